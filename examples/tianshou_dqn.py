"""Tianshou 2.x on the Durak AEC env: DQN for seat 0 against a random seat 1.

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py --epochs 10

Tianshou's ``PettingZooEnv`` takes ``durak_env.env()`` as it is (``observation`` and
``action_mask`` become ``obs`` and ``mask``); ``MultiAgentOffPolicyAlgorithm`` gives each
seat its algorithm, here a masked DQN and Tianshou's masked random player.
"""

import argparse

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import durak_env


def make_env() -> PettingZooEnv:
    return PettingZooEnv(durak_env.env())


def build(args) -> MultiAgentOffPolicyAlgorithm:
    env = make_env()
    obs_shape = env.observation_space["observation"].shape
    net = Net(state_shape=obs_shape, action_shape=env.action_space.n, hidden_sizes=[256, 256])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=0.1, eps_inference=0.0)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=0.99,
                  n_step_return_horizon=3, target_update_freq=320)
    rand = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, rand], env=env)


def win_rate(algorithm, games: int, seed: int) -> float:
    envs = DummyVectorEnv([make_env for _ in range(4)])
    envs.seed(seed)
    stats = Collector[CollectStats](algorithm, envs).collect(n_episode=games,
                                                               reset_before_collect=True)
    return float(np.mean(stats.returns[:, 0] > 0))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--epoch-steps", type=int, default=5000)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    np.random.seed(a.seed)
    torch.manual_seed(a.seed)
    algorithm = build(a)
    train_envs = DummyVectorEnv([make_env for _ in range(4)])
    train_envs.seed(a.seed)
    collector = Collector[CollectStats](algorithm, train_envs,
                                        VectorReplayBuffer(20_000, len(train_envs)),
                                        exploration_noise=True)
    collector.reset()
    collector.collect(n_step=256)
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector, test_collector=None, max_epochs=a.epochs,
        epoch_num_steps=a.epoch_steps, collection_step_num_env_steps=12, batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, 0], show_progress=False))
    print(f"win rate vs random: {win_rate(algorithm, a.eval_games, a.seed + 1):.3f}")


if __name__ == "__main__":
    main()
