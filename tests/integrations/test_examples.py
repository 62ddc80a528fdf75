"""Every script under examples/ runs to its end with a tiny budget and prints its win rate
against random (CleanRL-style smoke tests through subprocess)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# script -> (the libraries it needs, tiny-budget arguments)
TINY = {
    "sb3_durak_v0.py": (["sb3_contrib"], ["--timesteps", "256", "--num-envs", "2",
                                           "--eval-games", "20"]),
    "sb3_vector.py": (["sb3_contrib"], ["--timesteps", "512", "--num-envs", "8",
                                         "--eval-games", "20"]),
    "pettingzoo_sb3_selfplay.py": (["sb3_contrib"], ["--timesteps", "128", "--eval-games", "20"]),
    "tianshou_dqn.py": (["tianshou"], ["--epochs", "1", "--epoch-steps", "120",
                                        "--eval-games", "8"]),
    "openspiel_ismcts.py": (["pyspiel"], ["--games", "1", "--simulations", "4",
                                          "--sims-check", "1"]),
    "rllib_ppo.py": (["ray"], ["--iterations", "1", "--batch", "400", "--eval-games", "8"]),
}


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(TINY)


@pytest.mark.parametrize("script", sorted(TINY))
def test_example_runs_and_prints_its_win_rate(script):
    needs, args = TINY[script]
    missing = [m for m in needs if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{script} needs {missing}: install the extra its docstring names")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(EXAMPLES / script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("win rate vs random: "), proc.stdout[-2000:]
    assert 0.0 <= float(last.split(": ")[1]) <= 1.0
