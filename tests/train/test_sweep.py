"""Issue 22, points 3 and 6: a two-trial sweep with Ray Tune (``python -m agents.sweep``)
on configs/tiny.yaml, and the sweep file's errors."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
ray = pytest.importorskip("ray")

from agents.ppo_config import ConfigError  # noqa: E402
from agents.sweep import load_sweep, run_sweep  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

TWO_TRIALS = """
name: two
base: configs/tiny.yaml
overrides: {eval.opponents: [random, expert_rules], eval.every: 1, eval.games: 8}
search:
  ppo.lr: {grid: [1.0e-3, 3.0e-4]}
num_samples: 1
metric: expert_rules
scheduler: {asha: {grace_period: 512, reduction_factor: 2}}
"""


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_trials_report_their_evaluations(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(TWO_TRIALS)
    sweep = load_sweep(path)
    rows = run_sweep(sweep, tmp_path / "out")
    assert sorted(r["ppo.lr"] for r in rows) == [3e-4, 1e-3]
    assert not any(r["error"] for r in rows)
    # 4 updates of 256 steps, an evaluation after each (the last one the final evaluation)
    # unless ASHA stopped the trial at its 512-step rung
    for r in rows:
        assert r["global_step"] in (512, 1024)
        assert r["stopped_early"] == (r["global_step"] < 1024)
        assert 0 <= r["winrate_vs_expert_rules"] <= 1
    out = tmp_path / "out" / "two"
    for name in ("results.csv", "results.md", "curves.png"):
        assert (out / name).is_file(), name
    with open(out / "results.csv") as f:
        assert len(list(csv.DictReader(f))) == 2
    runs = list(out.glob("*/run/tiny__1__*/checkpoints/latest.pt"))
    assert len(runs) == 2  # each trial is a training run with its checkpoint


@pytest.mark.parametrize("text, message", [
    ("base: configs/tiny.yaml\nsearch: {ppo.lr: {grid: [1.0e-3]}}\nbogus: 1\n",
     "unknown key(s) bogus"),
    ("base: configs/tiny.yaml\nsearch: {ppo.learning_rate: {grid: [1.0e-3]}}\n",
     "unknown key(s) ppo.learning_rate"),
    ("base: configs/tiny.yaml\nsearch: {ppo.lr: {normal: [0, 1]}}\n", "search.ppo.lr must be"),
    ("base: configs/tiny.yaml\nsearch: {ppo.lr: {grid: [1.0e-3]}}\n",
     "metric 'expert_rules' must be one of eval.opponents"),
    ("base: configs/tiny.yaml\nsearch: {ppo.lr: {grid: [1.0e-3]}}\nmetric: random\n"
     "searcher: optuna\n", "Optuna draws every key"),
])
def test_sweep_file_errors(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=None) as e:
        load_sweep(path)
    assert message in str(e.value)


def test_cli_error_is_one_line(tmp_path):
    out = subprocess.run([sys.executable, "-m", "agents.sweep", str(tmp_path / "none.yaml")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "does not exist" in out.stderr
    assert "Traceback" not in out.stderr
