"""Issue 20, points 4, 6 and 7 for ``train.py``: every bad argument is one line on stderr
and exit status 2, checked before the run directory is made; ``--resume`` refuses what it
cannot apply before it writes anything."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch")

import torch  # noqa: E402

from agents.ppo import PPONet, save_checkpoint  # noqa: E402
from agents.ppo_config import dump_config, load_config  # noqa: E402
from agents.ppo_train import resume_config  # noqa: E402
from tests.cli_helpers import assert_refused, run_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = str(ROOT / "configs" / "tiny.yaml")


def _train_module():
    spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


train = _train_module()


@pytest.fixture
def runs(tmp_path):
    return tmp_path / "runs"


@pytest.mark.parametrize("overrides, fragment", [
    (["eval.opponents=[nobody]"], "eval.opponents: unknown agent 'nobody'"),
    (["eval.opponents=[ppo:no/such/ckpt.pt]"],
     "eval.opponents: agent 'ppo:no/such/ckpt.pt': checkpoint 'no/such/ckpt.pt' does not exist"),
    (["selfplay.heuristics=['ismcts:c=nan']"], "selfplay.heuristics: agent 'ismcts'"),
    (["selfplay.heuristics=['expert:w_pairs=x']"], "selfplay.heuristics: agent 'expert'"),
    (["env.num_threads=999"], "env.num_threads must be at most"),
    (["seed=-1"], "seed must be in 0..2**64-1, got -1"),
    ([f"seed={2**64}"], "seed must be in 0..2**64-1"),
    (["ppo.lr=nan"], "ppo.lr must be > 0"),
])
def test_bad_config_values_are_refused_before_the_run_starts(runs, overrides, fragment):
    result = run_main(train.main, ["--config", TINY, f"logging.runs_dir={runs}", *overrides])
    assert_refused(result, "train.py: error:", fragment)
    assert not runs.exists() or not any(runs.iterdir())


def test_bad_config_files_are_refused(tmp_path):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(bytes(range(256)))
    assert_refused(run_main(train.main, ["--config", str(binary)]), "is not valid YAML")
    assert_refused(run_main(train.main, ["--config", str(tmp_path / "none.yaml")]),
                   "does not exist")
    assert_refused(run_main(train.main, ["--config", str(tmp_path)]), "cannot be read")
    assert_refused(run_main(train.main, ["--frobnicate"]), "unrecognized arguments")


def test_an_unwritable_runs_dir_is_refused_and_leaves_nothing(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    result = run_main(train.main, ["--config", TINY, f"logging.runs_dir={a_file}/runs"])
    assert_refused(result, "logging.runs_dir: cannot create a run directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


# ---------------------------------------------------------------- --resume


def make_run(tmp_path) -> Path:
    """A run directory as train.py leaves it after a checkpoint (no training needed)."""
    cfg = load_config(TINY, [f"logging.runs_dir={tmp_path}"])
    run = tmp_path / "tiny__1__1"
    dump_config(cfg, run / "config.yaml")
    net = PPONet(cfg.rules, cfg.network)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.ppo.lr)
    save_checkpoint(run / "checkpoints" / "latest.pt", net, opt, cfg.to_dict(), extra={
        "update": 2, "global_step": 512, "elapsed": 1.0, "pool": {}, "history": []})
    return run


@pytest.mark.parametrize("override, fragment", [
    ("network.hidden=[64]",
     "a resumed run cannot change its network (network.hidden: [32] -> [64])"),
    ("network.head=dense", "network.head: 'factored' -> 'dense'"),
    ("rules.num_players=3", "a resumed run cannot change its rules (rules.num_players: 2 -> 3)"),
    ("rules.variant=perevodnoy", "rules.variant"),
])
def test_resume_refuses_overrides_it_cannot_apply_and_writes_nothing(tmp_path, override,
                                                                     fragment):
    run = make_run(tmp_path)
    config = (run / "config.yaml").read_bytes()
    assert_refused(run_main(train.main, ["--resume", str(run), override]), fragment)
    assert (run / "config.yaml").read_bytes() == config
    resume_config(run, [])  # the run can still be resumed as it was


def test_resume_accepts_overrides_that_change_nothing_fixed(tmp_path):
    run = make_run(tmp_path)
    cfg = resume_config(run, ["network.hidden=[32]", "ppo.total_timesteps=2048",
                              "env.num_envs=8"])
    assert cfg.ppo.total_timesteps == 2048 and cfg.env.num_envs == 8


def test_resume_refuses_a_truncated_checkpoint_and_writes_nothing(tmp_path):
    run = make_run(tmp_path)
    latest = run / "checkpoints" / "latest.pt"
    latest.write_bytes(latest.read_bytes()[:1000])
    config = (run / "config.yaml").read_bytes()
    assert_refused(run_main(train.main, ["--resume", str(run)]),
                   "is not a readable PPO checkpoint")
    assert (run / "config.yaml").read_bytes() == config


def test_resume_refuses_a_checkpoint_without_the_optimizer_its_update_needs(tmp_path):
    """Only a checkpoint between the PPO updates and fine-tuning goes without an optimizer
    and pool (fine-tuning starts new ones); anywhere else the run could not go on as it was."""
    cfg = load_config(TINY, [f"logging.runs_dir={tmp_path}", "network.endgame_talon=1",
                             "endgame.games=8", "endgame.finetune_timesteps=512"])
    run = tmp_path / "tiny__1__1"
    dump_config(cfg, run / "config.yaml")
    net = PPONet(cfg.rules, cfg.network)
    ppo_updates = 1024 // 256  # tiny.yaml: total_timesteps / (num_steps * num_envs)
    for update, refused in ((2, True), (ppo_updates, False), (ppo_updates + 1, True)):
        save_checkpoint(run / "checkpoints" / "latest.pt", net, None, cfg.to_dict(), extra={
            "update": update, "global_step": 256 * update, "elapsed": 1.0, "history": []})
        if refused:
            assert_refused(run_main(train.main, ["--resume", str(run)]),
                           f"holds no optimizer state, which update {update} of this run needs")
        else:
            assert resume_config(run, []).endgame.finetune_timesteps == 512
    # without fine-tuning ahead the update after PPO needs its optimizer too
    save_checkpoint(run / "checkpoints" / "latest.pt", net, None, cfg.to_dict(), extra={
        "update": ppo_updates, "global_step": 1024, "elapsed": 1.0, "history": []})
    assert_refused(run_main(train.main, ["--resume", str(run), "endgame.finetune_timesteps=0"]),
                   "holds no optimizer state")


def test_resume_with_config_is_refused(tmp_path):
    run = make_run(tmp_path)
    assert_refused(run_main(train.main, ["--resume", str(run), "--config", TINY]),
                   "--resume uses the run's own config.yaml; drop --config")
