"""``durak_env.parallel_env()``: PettingZoo's turn-based conversion of the AEC env."""

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

import durak_env


@pytest.mark.parametrize("kwargs", [{}, {"num_players": 3, "variant": "perevodnoy"}],
                         ids=["2p", "3p-perevodnoy"])
def test_parallel_api_and_seed(kwargs):
    parallel_api_test(durak_env.parallel_env(**kwargs), num_cycles=300)
    parallel_seed_test(lambda: durak_env.parallel_env(**kwargs), num_cycles=300)


def test_whole_games_through_the_active_agent():
    env = durak_env.parallel_env(num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, infos = env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            acting = infos[env.agents[0]]["active_agent"]
            assert all(i["active_agent"] == acting for i in infos.values())
            mask = obs[acting]["action_mask"]
            assert mask.sum() >= 2
            assert not any(obs[a]["action_mask"].any() for a in obs if a != acting)
            actions = dict.fromkeys(env.agents, 0)
            actions[acting] = int(rng.choice(np.flatnonzero(mask)))
            obs, rewards, terms, truncs, infos = env.step(actions)
            for a, r in rewards.items():
                totals[a] += r
        assert sorted(totals.values()) in ([-1.0, 0.5, 0.5], [0.0, 0.0, 0.0])
