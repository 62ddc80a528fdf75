"""Fine-tuning after the end-game stage: the expert is frozen while PPO moves the main
head, heuristic opponents hand their end game to it, and a finished checkpoint can be
fine-tuned from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.finetune import adopt  # noqa: E402
from agents.ppo import (  # noqa: E402
    NetworkConfig,
    PPONet,
    legal_valid,
    load_checkpoint,
    save_checkpoint,
)
from agents.ppo_config import ConfigError, load_config, preflight  # noqa: E402
from agents.ppo_train import Trainer  # noqa: E402
from agents.selfplay import EndgameHandoff, RandomPlayer  # noqa: E402
from durak_env import Rules  # noqa: E402

from .positions import random_positions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ["network.endgame_talon=1", "endgame.games=8", "endgame.workers=1",
        "endgame.finetune_timesteps=512"]


def test_the_handoff_plays_the_expert_greedy_move_exactly_where_the_expert_plays():
    rules = Rules()
    torch.manual_seed(0)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1))
    obs, mask, ids, counts = random_positions(rules)
    keep = counts > 1
    obs, mask, ids, counts = obs[keep], mask[keep], ids[keep], counts[keep]
    plays = net.endgame.plays(obs)
    assert plays.any() and not plays.all()
    rows = np.arange(len(obs))
    player = EndgameHandoff(RandomPlayer(), net)
    before = player.act(obs, mask, ids, counts, rows, np.random.default_rng(1))
    alone = RandomPlayer().act(obs, mask, ids, counts, rows, np.random.default_rng(1))
    assert np.array_equal(before, alone)  # no fitted expert yet: the player alone
    net.endgame.start()
    with torch.no_grad():  # make the expert differ from the main head
        for p in net.endgame.parameters():
            p.add_(torch.randn_like(p))
    got = player.act(obs, mask, ids, counts, rows, np.random.default_rng(1))
    assert np.array_equal(got[~plays], alone[~plays])
    with torch.no_grad():
        logits = net.endgame.logits(torch.from_numpy(obs[plays]), torch.from_numpy(ids[plays]),
                                    legal_valid(torch.from_numpy(counts[plays]), ids.shape[1]))
    assert np.array_equal(got[plays], ids[plays][np.arange(plays.sum()), logits.argmax(1)])
    assert mask[rows, got].all()


def test_fine_tuning_moves_the_main_head_and_leaves_the_expert_as_fitted(tmp_path):
    cfg = load_config(ROOT / "configs" / "tiny.yaml",
                      [*TINY, f"logging.runs_dir={tmp_path}", "ppo.lr=0.01",
                       "endgame.finetune_lr=0.01", "selfplay.heuristics=[random]",
                       "selfplay.heuristic_share=0.5"])
    trainer = Trainer(cfg, tmp_path)
    trainer.net.endgame.start()
    with torch.no_grad():
        for p in trainer.net.endgame.parameters():
            p.add_(0.1)
    trainer.update = trainer.num_updates  # PPO done
    trainer.start_finetune()
    assert all(isinstance(h, EndgameHandoff) for h in trainer.heuristics)
    expert = {k: v.clone() for k, v in trainer.net.endgame.state_dict().items()}
    main = {k: v.clone() for k, v in trainer.net.trunk.state_dict().items()}
    lrs = []
    while trainer.update < trainer.all_updates:
        lrs.append(trainer.learning_rate())
        trainer.train_step()
    for k, v in trainer.net.endgame.state_dict().items():
        assert torch.equal(v, expert[k]), k
    assert any(not torch.equal(v, main[k]) for k, v in trainer.net.trunk.state_dict().items())
    n = trainer.finetune_updates
    assert n == 2 and lrs == pytest.approx([0.01 * (1 - i / n) for i in range(n)])
    trainer.close()


def test_the_fine_tuning_cut_starts_with_the_fine_tuning_updates(tmp_path):
    """``endgame.finetune_cut_nodes``: the PPO updates before play their games out; the
    fine-tuning ones end them where every card is placed, by their solved value."""
    cfg = load_config(ROOT / "configs" / "tiny.yaml",
                      [*TINY, f"logging.runs_dir={tmp_path}", "rules.deck_size=24",
                       "rules.hand_size=3", "ppo.num_steps=120",
                       "endgame.finetune_cut_nodes=100000"])
    trainer = Trainer(cfg, tmp_path)
    assert trainer.arena.cut is None
    assert trainer._collect().cut == 0
    assert "charts/cut_share" not in trainer.train_step()
    trainer.net.endgame.start()
    trainer.update = trainer.num_updates
    trainer.start_finetune()
    assert trainer.arena.cut is not None
    assert trainer._collect().cut > 0
    assert trainer.train_step()["charts/cut_share"] > 0
    trainer.close()


def test_fine_tuning_needs_a_fitted_expert(tmp_path):
    cfg = load_config(ROOT / "configs" / "tiny.yaml", [*TINY, f"logging.runs_dir={tmp_path}"])
    trainer = Trainer(cfg, tmp_path)
    with pytest.raises(RuntimeError, match="fitted end-game expert"):
        trainer.start_finetune()
    trainer.close()


@pytest.mark.parametrize("overrides, message", [
    (["endgame.finetune_timesteps=100"], "set endgame.games > 0"),
    ([*TINY[:3], "endgame.finetune_timesteps=-1"], "finetune_timesteps must be >= 0"),
    ([*TINY, "endgame.finetune_lr=0"], "finetune_lr must be > 0"),
    ([*TINY, "endgame.finetune_cut_nodes=-1"], "finetune_cut_nodes must be >= 0"),
    ([*TINY[:3], "endgame.finetune_cut_nodes=100"], "set endgame.finetune_timesteps > 0"),
])
def test_bad_finetune_configs_are_refused(overrides, message):
    with pytest.raises(ConfigError, match=message):
        preflight(load_config(ROOT / "configs" / "tiny.yaml", overrides))


def test_train_fine_tunes_after_the_stage_and_the_cli_fine_tunes_a_checkpoint(tmp_path):
    runs = tmp_path / "runs"
    args = ["configs/tiny.yaml", f"logging.runs_dir={runs}", *TINY]
    out = subprocess.run([sys.executable, "train.py", "--config", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    (run,) = runs.iterdir()
    staged, data = load_checkpoint(run / "checkpoints" / "final.pt")
    data_staged = {"endgame": json.loads((run / "endgame.json").read_text())}
    steps = 16 * 16  # num_steps * num_envs of tiny.yaml
    assert data["update"] == 1024 // steps + 512 // steps and staged.endgame.active

    # the CLI: a checkpoint without an expert is refused and leaves no run directory
    plain = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=1))
    save_checkpoint(tmp_path / "plain.pt", plain, extra={"update": 4})
    cli = [sys.executable, "-m", "agents.finetune"]
    opts = ["--config", "configs/tiny.yaml", f"logging.runs_dir={tmp_path / 'ft'}", *TINY]
    refused = subprocess.run([*cli, str(tmp_path / "plain.pt"), *opts], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "no fitted end-game expert" in refused.stderr
    assert not any((tmp_path / "ft").iterdir())
    # ... and one with a fitted expert, past its PPO updates, is fine-tuned, with the
    # expert's play-time averaging (no weights) set by the config; other shapes are refused
    shipped = torch.load(run / "checkpoints" / "final.pt", weights_only=False)
    shipped["endgame"] = data_staged["endgame"]  # as ship_checkpoint stores it
    torch.save(shipped, tmp_path / "shipped.pt")
    wider = subprocess.run([*cli, str(tmp_path / "shipped.pt"), *opts, "network.hidden=[48]"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert wider.returncode == 2 and "holds a network" in wider.stderr
    ok = subprocess.run([*cli, str(tmp_path / "shipped.pt"), *opts,
                         "endgame.finetune_timesteps=1024", "network.endgame_symmetries=4"],
                        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stderr
    (ft,) = (tmp_path / "ft").iterdir()
    tuned, data = load_checkpoint(ft / "checkpoints" / "final.pt")
    assert data["update"] == 4 + 1024 // steps
    assert staged.cfg.endgame_symmetries == 1 and tuned.cfg.endgame_symmetries == 4
    for k, v in staged.endgame.state_dict().items():
        assert torch.equal(tuned.endgame.state_dict()[k], v)
    assert (ft / "evals.jsonl").is_file()
    # fine-tuning a run's own checkpoint carries that run's evaluations (not only a
    # shipped NAME.pt's NAME_evals.jsonl), so that its plot shows the whole run
    again = tmp_path / "again"
    adopt(ft / "checkpoints" / "final.pt", load_config("configs/tiny.yaml", TINY), again)
    assert (again / "evals.jsonl").read_text() == (ft / "evals.jsonl").read_text()
    adopt(tmp_path / "shipped.pt", load_config("configs/tiny.yaml", TINY), tmp_path / "bare")
    assert not (tmp_path / "bare" / "evals.jsonl").exists()
    assert json.loads((ft / "endgame.json").read_text()) == data_staged["endgame"]
