"""MaskablePPO (sb3-contrib) on Durak-v0, the single-game Gymnasium env.

    pip install -e ".[sb3]"
    python examples/sb3_durak_v0.py --timesteps 200000

The learner plays seat 0 against random opponents; MaskablePPO reads the legal actions
from ``env.action_masks()``. ``make_vec_env`` asks for ``render_mode="rgb_array"``,
which Durak-v0 does not draw, hence ``render_mode=None``.
"""

import argparse

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import durak_env  # noqa: F401  (registers Durak-v0)


def win_rate(model, games: int, seed: int) -> float:
    """Games won against random opponents, playing the model's masked greedy action."""
    envs = gym.make_vec("Durak-v0", num_envs=64, opponents="random", seed=seed)
    obs, info = envs.reset(seed=seed)
    results = []
    while len(results) < games:
        action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool),
                                  deterministic=True)
        obs, reward, terminated, _, info = envs.step(action)
        results += (reward[terminated] > 0).tolist()
    return float(np.mean(results[:games]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=200_000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    env = make_vec_env("Durak-v0", n_envs=a.num_envs, seed=a.seed,
                       env_kwargs={"render_mode": None})
    model = MaskablePPO("MlpPolicy", env, n_steps=max(16, min(256, a.timesteps // a.num_envs)),
                        batch_size=256, learning_rate=3e-4, ent_coef=0.01, seed=a.seed,
                        device="cpu", verbose=0)
    model.learn(a.timesteps)
    print(f"win rate vs random: {win_rate(model, a.eval_games, a.seed + 1):.3f}")


if __name__ == "__main__":
    main()
