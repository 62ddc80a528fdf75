"""Stable-Baselines3: ``DurakSB3VecEnv`` under MaskablePPO, with SB3's conventions."""

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason='needs the sb3 extra: pip install -e ".[sb3]"')
sb3_contrib = pytest.importorskip("sb3_contrib", reason='needs the sb3 extra')

from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from durak_env.sb3 import DurakSB3VecEnv  # noqa: E402


def test_sb3_conventions():
    env = DurakSB3VecEnv(num_envs=8, seed=0)
    assert is_masking_supported(env)
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (8, env.observation_space.shape[0])
    ended = 0
    for _ in range(200):
        masks = get_action_masks(env)
        assert masks.shape == (8, env.action_space.n) and masks.dtype == bool
        assert (masks.sum(1) >= 2).all()  # same-step autoreset: already the next game's
        obs, rew, dones, infos = env.step(masks.argmax(1))
        assert len(infos) == 8 and rew.shape == (8,)
        for g in np.flatnonzero(dones):
            assert infos[g]["terminal_observation"].shape == obs[g].shape
            assert infos[g]["TimeLimit.truncated"] is False
            ended += 1
    assert ended > 0
    with pytest.raises(ValueError, match="SameStep"):
        from durak_env.learner_vector import DurakVectorEnv

        DurakSB3VecEnv(venv=DurakVectorEnv(2))


def test_maskable_ppo_learns_a_little():
    env = VecMonitor(DurakSB3VecEnv(num_envs=16, seed=0))
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=128, n_epochs=1,
                                    seed=0, device="cpu")
    model.learn(1024)
    assert model.num_timesteps >= 1024
    obs = env.reset()
    action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
    assert get_action_masks(env)[np.arange(16), action].all()
