"""RLlib PPO on Durak: one policy shared by every seat (self-play), with RLlib's
action-masking module.

    pip install -e ".[ray]"            # Ray pins its own Gymnasium (1.2.x for Ray 2.60)
    python examples/rllib_ppo.py --iterations 50
    python examples/rllib_ppo.py --address auto   # on a Ray cluster's head node

``durak_env.rllib.ppo_config`` is the whole setup: ``DurakMultiAgentEnv`` (observations
``{"observations", "action_mask"}``), ``ActionMaskingTorchRLModule``, and a policy
mapping that sends every agent to the ``shared`` module. The trained module is then
scored as Durak-v0's learner against random opponents.
"""

import argparse

import gymnasium as gym
import numpy as np
import ray
import torch

import durak_env  # noqa: F401  (registers Durak-v0)
from durak_env.rllib import SHARED_POLICY, ppo_config


def win_rate(module, games: int, seed: int) -> float:
    """Games won against random opponents with the module's masked greedy action."""
    envs = gym.make_vec("Durak-v0", num_envs=32, opponents="random", seed=seed)
    obs, info = envs.reset(seed=seed)
    results = []
    while len(results) < games:
        batch = {"obs": {"observations": torch.from_numpy(obs),
                         "action_mask": torch.from_numpy(info["action_mask"].astype(np.float32))}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"]
        obs, reward, terminated, _, info = envs.step(logits.argmax(-1).numpy())
        results += (reward[terminated] > 0).tolist()
    return float(np.mean(results[:games]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    p.add_argument("--address", default=None, help="a Ray cluster ('auto'); default: local")
    p.add_argument("--num-cpus", type=int, default=1, help="CPUs of the local Ray instance")
    p.add_argument("--eval-games", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    if a.address:
        ray.init(address=a.address)
    else:
        # "local": a Ray of its own, even where a cluster runs on this machine
        ray.init(address="local", num_cpus=a.num_cpus, include_dashboard=False,
                 log_to_driver=False)
    config = ppo_config().training(train_batch_size_per_learner=a.batch,
                                   minibatch_size=max(a.batch // 8, 32), num_epochs=4)
    algo = config.debugging(seed=a.seed).build_algo()
    for i in range(a.iterations):
        result = algo.train()
        print(f"iteration {i + 1}: {result['env_runners']['num_episodes_lifetime']} games")
    rate = win_rate(algo.get_module(SHARED_POLICY), a.eval_games, a.seed)
    print(f"win rate vs random: {rate:.3f}")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
