"""``durak_env.parallel_env()``: Durak under PettingZoo's Parallel API.

Durak is turn-based, so the Parallel API is PettingZoo's own turn-based conversion
(``pettingzoo.utils.conversions.turn_based_aec_to_parallel``) of ``durak_env.env()``;
``aec_to_parallel`` rightly refuses it (``metadata["is_parallelizable"]`` is False).

```python
import durak_env

env = durak_env.parallel_env(num_players=3)
observations, infos = env.reset(seed=0)
while env.agents:
    acting = infos[env.agents[0]]["active_agent"]          # set on reset too
    mask = observations[acting]["action_mask"]
    actions = {a: 0 for a in env.agents}                   # only the acting one is used
    actions[acting] = env.action_space(acting).sample(mask)
    observations, rewards, terminations, truncations, infos = env.step(actions)
```

Each ``step`` takes a dict of actions and applies the one of the agent to act; every
other agent's entry is ignored (its mask is all zeros, as in the AEC env). Which agent
that is: ``infos[agent]["active_agent"]``, on ``reset`` as on every ``step``. Rewards,
terminations and observations are those of the AEC env after that one move.
"""

from __future__ import annotations

from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from .aec import env


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based conversion, which also names the acting agent on reset."""

    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        acting = self.aec_env.agent_selection
        infos = {a: {**infos[a], "active_agent": acting} for a in infos}
        return observations, infos


def parallel_env(**kwargs) -> ParallelEnv:
    """Durak as a PettingZoo ``ParallelEnv``; takes the arguments of ``durak_env.env``."""
    return TurnBasedParallelEnv(env(**kwargs))
