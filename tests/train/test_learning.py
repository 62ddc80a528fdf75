"""A learner really improves: win rate against random climbs from ~50% to >= 70%."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from agents.ppo_config import config_from_dict  # noqa: E402
from agents.ppo_train import Trainer, evaluate  # noqa: E402

OVERRIDES = [
    "seed=3", "torch_threads=2", "env.num_envs=256", "env.num_threads=2",
    "network.hidden=[128,128]", "ppo.total_timesteps=327680", "ppo.num_steps=32",
    "ppo.lr=1e-3", "ppo.minibatch_size=4096", "ppo.update_epochs=2",
    "selfplay.self_share=1.0", "selfplay.pool_share=0.0", "selfplay.heuristic_share=0.0",
    "eval.every=0",
]


@pytest.mark.slow
def test_win_rate_against_random_climbs(tmp_path):
    cfg = config_from_dict({}, OVERRIDES + [f"logging.runs_dir={tmp_path}"])
    trainer = Trainer(cfg, tmp_path)

    def vs_random():
        return evaluate(trainer.net, cfg.rules, "random", 600, seed=99, greedy=False,
                        num_threads=2)["winrate"]

    before = vs_random()
    assert 0.38 <= before <= 0.62, before
    while trainer.update < trainer.num_updates:
        trainer.train_step()
    after = vs_random()
    assert after >= 0.70, (before, after)
