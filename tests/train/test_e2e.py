"""train.py end to end through subprocess (tiny config), resume, and CLI errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from agents.stats import wilson  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _train(*args, timeout=600):
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_tiny_config_end_to_end_and_resume(tmp_path):
    out = _train("--config", "configs/tiny.yaml", f"logging.runs_dir={tmp_path}")
    assert out.returncode == 0, out.stderr
    (run,) = tmp_path.iterdir()
    assert run.name.startswith("tiny__1__")
    for name in ["config.yaml", "checkpoints/latest.pt", "checkpoints/final.pt",
                 "final_eval.json", "curves.png"]:
        assert (run / name).is_file(), name
    assert list(run.glob("events.out.tfevents.*"))
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["global_step"] == 1024
    # The tiny run learns nothing, so its win rate is not bounded; the figures must agree.
    ev = summary["final_eval"]["random"]
    assert ev["games"] == 16 and ev["wins"] + ev["losses"] + ev["draws"] == 16
    assert ev["winrate"] == ev["wins"] / 16
    assert ev["ci95"] == pytest.approx(list(wilson(ev["wins"], 16)))
    speed = summary["speed"]  # 4 updates, the first (warm-up) left out
    assert speed["sps_median"] > 0
    assert abs(sum(speed["time_share"].values()) - 1) < 1e-6
    assert "charts/SPS median" in out.stdout

    from agents.ppo import PPOAgent
    from durak_env import Rules

    agent = PPOAgent.load(run / "checkpoints" / "final.pt", Rules())
    assert agent.checkpoint["update"] == 4

    out = _train("--resume", str(run), "ppo.total_timesteps=2048")
    assert out.returncode == 0, out.stderr
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["global_step"] == 2048 and summary["updates"] == 8


@pytest.mark.parametrize("args, message", [
    (["--config", "configs/does_not_exist.yaml"], "does not exist"),
    (["--config", "configs/tiny.yaml", "ppo.learning_rate=1"],
     "unknown key(s) ppo.learning_rate; valid keys in ppo:"),
    (["--config", "configs/tiny.yaml", "env.num_envs=-3"], "env.num_envs must be >= 1"),
    (["--resume", "/nonexistent/run"], "not a run directory"),
])
def test_cli_errors_are_clear(args, message):
    out = _train(*args, timeout=120)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr
