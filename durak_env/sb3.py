"""Stable-Baselines3 ``VecEnv`` over ``DurakVectorEnv``: MaskablePPO at numba speed.

```python
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor
from durak_env.sb3 import DurakSB3VecEnv

env = VecMonitor(DurakSB3VecEnv(num_envs=64, opponents="random", seed=0))
model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=1024, verbose=1)
model.learn(100_000)
```

SB3's conventions: same-step autoreset (``infos[i]["terminal_observation"]`` holds
the final observation of game i on the step that ends it), ``dones = terminated |
truncated``, one info dict per game. ``env_method("action_masks")`` gives each game's
mask, which is what ``sb3_contrib``'s ``get_action_masks`` asks for; the mask of a
finished game is already the next game's. Episode statistics (``ep_rew_mean``) come
from wrapping it in SB3's ``VecMonitor``. Needs ``pip install "durak-rl[sb3]"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError('durak_env.sb3 needs Stable-Baselines3: pip install "durak-rl[sb3]"') from e

from gymnasium.vector import AutoresetMode

from .learner_vector import DurakVectorEnv


class DurakSB3VecEnv(VecEnv):
    """``num_envs`` games of ``Durak-v0`` as one SB3 ``VecEnv``.

    Args:
        num_envs: number of games.
        venv: an existing ``DurakVectorEnv`` with ``autoreset_mode="SameStep"`` to wrap
            instead (then give no other arguments).
        **kwargs: ``DurakVectorEnv`` arguments (``opponents``, ``seat``, ``seed``, Rules
            fields, ...).
    """

    def __init__(self, num_envs: int | None = None, venv: DurakVectorEnv | None = None,
                 **kwargs):
        if venv is None:
            venv = DurakVectorEnv(1 if num_envs is None else num_envs,
                                  autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        elif num_envs is not None or kwargs:
            raise TypeError("pass either venv or DurakVectorEnv arguments, not both")
        if venv.autoreset_mode != AutoresetMode.SAME_STEP:
            raise ValueError("SB3 resets in the same step: the venv needs autoreset_mode "
                             f"SameStep, got {venv.autoreset_mode.value}")
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions = np.zeros(venv.num_envs, np.int64)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, _info = self.venv.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, rew, term, trunc, info = self.venv.step(self._actions)
        dones = term | trunc
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for g in np.flatnonzero(dones):
            infos[g] = {"terminal_observation": info["final_obs"][g],
                        "TimeLimit.truncated": bool(trunc[g] and not term[g])}
        return obs, rew, dones, infos

    def action_masks(self) -> np.ndarray:
        """bool[num_envs, num_actions]: the legal actions of every game."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    # SB3 addresses attributes per sub-env; here every game shares one env object.
    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
