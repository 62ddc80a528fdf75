"""Positions of random play, every phase of the game, for the end-game tests."""

from __future__ import annotations

import numpy as np

from agents.ppo import legal_lists
from durak_env import VectorEnv


def random_positions(rules, games=64, seed=0, steps=400):
    """Observations, dense masks and legal lists of ``steps`` steps of ``games`` games."""
    venv = VectorEnv(rules, games, seed=seed)
    obs, info = venv.reset(seed=seed)
    seen_obs, seen_mask = [], []
    for _ in range(steps):
        seen_obs.append(obs.copy())
        seen_mask.append(info["action_mask"].copy())
        obs, _, _, _, info = venv.step(venv.random_actions())
    obs, mask = np.concatenate(seen_obs), np.concatenate(seen_mask)
    ids, counts = legal_lists(mask)
    return obs, mask, ids, counts
