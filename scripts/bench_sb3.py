"""Steps per second of SB3 MaskablePPO on Durak-v0: DummyVecEnv vs DurakSB3VecEnv.

Both run the same budget with the same hyperparameters; the first table row is the envs
alone (the lowest legal action, masks fetched as MaskablePPO fetches them), the second
MaskablePPO's ``learn`` (collection and update).

    python scripts/bench_sb3.py --num-envs 64 --steps 20000
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.env_util import make_vec_env

import durak_env  # noqa: F401  (registers Durak-v0)
from durak_env.sb3 import DurakSB3VecEnv


def dummy(num_envs: int, seed: int):
    # make_vec_env asks for render_mode="rgb_array", which Durak-v0 does not draw
    return make_vec_env("Durak-v0", n_envs=num_envs, seed=seed, env_kwargs={"render_mode": None})


def numba(num_envs: int, seed: int):
    return DurakSB3VecEnv(num_envs=num_envs, seed=seed, num_threads=1)


def env_sps(venv, steps: int, seed: int) -> float:
    venv.reset()
    t0, done = time.perf_counter(), 0
    while done < steps:
        masks = get_action_masks(venv)
        venv.step(masks.argmax(1))  # the lowest legal id: a policy that costs nothing
        done += venv.num_envs
    return done / (time.perf_counter() - t0)


def learn_sps(venv, steps: int, seed: int) -> float:
    n_steps = max(steps // (2 * venv.num_envs), 8)
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=256, n_epochs=2,
                        seed=seed, device="cpu")
    t0 = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    gym.logger.min_level = 40
    print(f"| measure ({a.num_envs} envs, {a.steps} steps) | DummyVecEnv(Durak-v0) "
          "| DurakSB3VecEnv | ratio |\n|---|---|---|---|")
    for name, fn in (("env steps/s", env_sps), ("MaskablePPO learn steps/s", learn_sps)):
        slow = fn(dummy(a.num_envs, a.seed), a.steps, a.seed)
        fast = fn(numba(a.num_envs, a.seed), a.steps, a.seed)
        print(f"| {name} | {slow:,.0f} | {fast:,.0f} | {fast / slow:.1f}x |")


if __name__ == "__main__":
    main()
