"""RLlib: Durak as a ``MultiAgentEnv`` with the keys RLlib's action masking expects, and a
ready PPO config that trains one shared policy in self-play.

```python
import ray
from durak_env.rllib import ppo_config

ray.init()                        # on a cluster: ray.init(address="auto") on its head node
algo = ppo_config(num_players=2).build_algo()
for _ in range(10):
    result = algo.train()
```

``DurakMultiAgentEnv`` is the AEC env (``durak_env.raw_env``) in RLlib's turn-based
protocol (as RLlib's own tic-tac-toe example): each step returns the observation of the
one agent to act, and the step that ends the game returns every agent that has acted
its final observation and reward, with ``terminateds["__all__"]``. Observations are
dicts ``{"observations": float32[obs_size], "action_mask": float32[num_actions]}``, the
keys of RLlib's ``ActionMaskingTorchRLModule``; a final observation carries
``gym_env.autoreset_mask`` (``pass`` alone), which has something to sample.

No illegal action ever reaches the env: the module masks the logits, and an illegal
action raises ``IllegalMoveError`` rather than being played. RLlib's env pre-check
steps one unmasked random action, so the ready config turns env checking off.

Needs ``pip install "durak-rl[rllib]"``; Ray brings its own Gymnasium pin (1.2.x for
Ray 2.60), which is why it is an extra of its own.
"""

from __future__ import annotations

import numpy as np

try:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError('durak_env.rllib needs RLlib: pip install "durak-rl[rllib]"') from e

from gymnasium import spaces

from .aec import raw_env
from .gym_env import autoreset_mask
from .vector import observation_space

SHARED_POLICY = "shared"


class DurakMultiAgentEnv(MultiAgentEnv):
    """Durak for RLlib; ``config`` holds ``durak_env.raw_env`` arguments (Rules fields)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        self.aec = raw_env(**dict(config or {}))
        self.agents = self.possible_agents = list(self.aec.possible_agents)
        n = self.aec.layout.n
        space = spaces.Dict({"observations": observation_space(self.aec.rules),
                             "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})
        self.observation_spaces = dict.fromkeys(self.agents, space)
        self.action_spaces = {a: spaces.Discrete(n) for a in self.agents}
        self._end_mask = autoreset_mask(n).astype(np.float32)
        self._acted: set[str] = set()

    def reset(self, *, seed=None, options=None):
        self.aec.reset(seed=seed, options=options)
        self._acted = set()
        return self._observe_next(), {}

    def step(self, action_dict: dict):
        agent = self.aec.agent_selection
        self._acted.add(agent)
        self.aec.step(int(action_dict[agent]))  # raw_env raises on an illegal action
        if not all(self.aec.terminations.values()):
            # RLlib wants a reward for every agent that acted, even when it is 0
            return self._observe_next(), {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}
        done = sorted(self._acted)
        obs = {a: self._final(a) for a in done}
        rewards = {a: float(self.aec.rewards[a]) for a in done}
        terminated = {**dict.fromkeys(done, True), "__all__": True}
        return obs, rewards, terminated, {"__all__": False}, {}

    def _observe_next(self) -> dict:
        agent = self.aec.agent_selection
        o = self.aec.observe(agent)
        return {agent: {"observations": o["observation"],
                        "action_mask": o["action_mask"].astype(np.float32)}}

    def _final(self, agent: str) -> dict:
        return {"observations": self.aec.observe(agent)["observation"],
                "action_mask": self._end_mask}


def ppo_config(num_env_runners: int = 0, hidden: tuple[int, ...] = (256, 256),
               **env_config) -> PPOConfig:
    """PPO with RLlib's action-masking module and one policy shared by every seat.

    Args:
        num_env_runners: RLlib env runners (0: sample in the driver process).
        hidden: sizes of the module's hidden layers.
        **env_config: ``DurakMultiAgentEnv`` arguments (Rules fields).
    """
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": list(hidden),
                                        "fcnet_hiddens": list(hidden)})
    return (
        PPOConfig()
        .environment(DurakMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .multi_agent(policies={SHARED_POLICY},
                     policy_mapping_fn=lambda agent_id, episode, **kw: SHARED_POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
        .env_runners(num_env_runners=num_env_runners)
        .training(gamma=1.0, lr=3e-4, entropy_coeff=0.01, train_batch_size_per_learner=4000,
                  minibatch_size=500, num_epochs=4)
    )
