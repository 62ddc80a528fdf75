"""PettingZoo's SB3 action-masking pattern on the Durak AEC env: MaskablePPO in self-play.

    pip install -e ".[sb3]"
    python examples/pettingzoo_sb3_selfplay.py --timesteps 300000

As in PettingZoo's "SB3 action masking" tutorial, a wrapper turns the AEC env into a
single-agent Gymnasium env in which one policy plays every seat: each step is the move of
the agent to act, its reward that agent's. The settings are the tutorial's (SB3's
defaults). Measured with this script (seed 0, scored over 1000 games as Durak-v0's
learner against random opponents): untrained 45.8%, after 100,000 steps 72.4%; with
``gamma=1``, ``batch_size=512`` and ``ent_coef=0.01`` instead, 66.4%.
"""

import argparse

import gymnasium as gym
import numpy as np
from sb3_contrib import MaskablePPO

import durak_env


class SelfPlayEnv(gym.Env):
    """An AEC env as one Gymnasium env for SB3: the policy plays whoever is to act.

    PettingZoo's tutorial subclasses ``BaseWrapper``; Gymnasium 1.x wrappers (SB3's
    ``Monitor``) accept only a ``gymnasium.Env``, so this holds the AEC env instead.
    """

    def __init__(self, aec):
        self.aec = aec
        first = aec.possible_agents[0]
        self.observation_space = aec.observation_space(first)["observation"]
        self.action_space = aec.action_space(first)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        return self.aec.observe(self.aec.agent_selection)["observation"], {}

    def step(self, action):
        agent = self.aec.agent_selection
        self.aec.step(int(action))
        obs = self.aec.observe(self.aec.agent_selection)["observation"]
        return (obs, self.aec.rewards[agent], self.aec.terminations[agent],
                self.aec.truncations[agent], {})

    def action_masks(self) -> np.ndarray:
        return self.aec.observe(self.aec.agent_selection)["action_mask"].astype(bool)


def win_rate(model, games: int, seed: int) -> float:
    """Games won as Durak-v0's learner against random opponents (masked greedy actions)."""
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
    p.add_argument("--timesteps", type=int, default=300_000)
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    env = SelfPlayEnv(durak_env.env())
    model = MaskablePPO("MlpPolicy", env, seed=a.seed, device="cpu", verbose=0)
    model.learn(a.timesteps)
    print(f"win rate vs random: {win_rate(model, a.eval_games, a.seed + 1):.3f}")


if __name__ == "__main__":
    main()
