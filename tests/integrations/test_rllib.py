"""RLlib: ``DurakMultiAgentEnv`` speaks RLlib's turn-based protocol and the ready PPO config
trains on a local one-CPU Ray."""

import numpy as np
import pytest

# dev installs the ray extra, so in CI this runs
pytest.importorskip("ray.rllib", reason='needs the ray extra: pip install -e ".[ray]"')

from durak_env.rllib import SHARED_POLICY, DurakMultiAgentEnv, ppo_config  # noqa: E402


def test_turn_based_protocol():
    env = DurakMultiAgentEnv({"num_players": 3})
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        while True:
            assert len(obs) == 1
            (agent, o), = obs.items()
            assert env.observation_spaces[agent].contains(o)
            assert o["action_mask"].sum() >= 2
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rewards, terms, truncs, _ = env.step({agent: action})
            if terms["__all__"]:
                break
            assert rewards == {agent: 0.0} and not truncs["__all__"]
        assert set(obs) == set(rewards) == set(terms) - {"__all__"}
        assert sum(rewards.values()) == pytest.approx(0.0)
        assert all(o["action_mask"].tolist() == [1.0] + [0.0] * (len(o["action_mask"]) - 1)
                   for o in obs.values())


def test_ppo_trains_one_iteration_on_a_local_ray():
    import ray

    # "local": a Ray of its own, never a cluster someone else started on this machine
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = ppo_config().training(train_batch_size_per_learner=400, minibatch_size=100,
                                     num_epochs=1).build_algo()
        result = algo.train()
        assert result["env_runners"]["num_episodes_lifetime"] >= 1
        assert algo.get_module(SHARED_POLICY) is not None
        algo.stop()
    finally:
        ray.shutdown()
