"""Issue 20, point 9: a real training run killed with SIGKILL in the middle of saving a
checkpoint resumes from its last whole checkpoint, with nothing corrupt.

The run is ``train.py`` on configs/tiny.yaml in a subprocess whose ``torch.save`` writes
half of the checkpoint, says so on stdout and sleeps before writing the rest (the saving
code itself is the product's, unchanged): the test kills the process by its id while the
second checkpoint is half written, then resumes the run with a plain ``train.py --resume``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

SLOW_SAVE = textwrap.dedent('''
    """train.py, with a torch.save that stops halfway through its SLOW_SAVE_AT-th save."""
    import io, os, runpy, sys, time
    import torch

    real_save, count = torch.save, [0]

    def slow_save(obj, f, *args, **kwargs):
        count[0] += 1
        if count[0] != int(os.environ["SLOW_SAVE_AT"]):
            return real_save(obj, f, *args, **kwargs)
        buf = io.BytesIO()
        real_save(obj, buf, *args, **kwargs)
        data = buf.getvalue()
        if isinstance(f, (str, os.PathLike)):
            f = open(f, "wb")
        f.write(data[: len(data) // 2])
        f.flush()
        print("HALF-SAVED", flush=True)
        time.sleep(120)  # killed here
        f.write(data[len(data) // 2 :])

    torch.save = slow_save
    sys.argv = ["train.py", *sys.argv[1:]]
    runpy.run_path(sys.argv[0], run_name="__main__")
''')


def test_a_run_killed_mid_save_resumes_from_its_last_checkpoint(tmp_path):
    driver = tmp_path / "slow_save_train.py"
    driver.write_text(SLOW_SAVE)
    runs = tmp_path / "runs"
    env = {**os.environ, "SLOW_SAVE_AT": "2", "PYTHONPATH": str(ROOT)}
    # tiny.yaml: 4 updates, a checkpoint every 2: the second save is update 4's.
    proc = subprocess.Popen(
        [sys.executable, str(driver), "--config", "configs/tiny.yaml",
         f"logging.runs_dir={runs}", "eval.every=0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("HALF-SAVED"):
                os.kill(proc.pid, signal.SIGKILL)
                break
    finally:
        proc.kill()
        proc.wait(timeout=60)
        stderr = proc.stderr.read()
    assert proc.returncode == -signal.SIGKILL, f"the run was not killed mid-save:\n" \
        f"{''.join(lines)}\n{stderr}"
    (run,) = runs.iterdir()
    checkpoints = run / "checkpoints"
    assert sorted(p.name for p in checkpoints.iterdir() if not p.name.startswith(".")) == [
        "latest.pt"]
    assert list(checkpoints.glob(".latest.pt.*.tmp")), "the half-written temporary is left"

    from agents.ppo import load_checkpoint
    from agents.ppo_config import load_config

    cfg = load_config(run / "config.yaml")  # whole, and the run's own
    _, data = load_checkpoint(checkpoints / "latest.pt", cfg.rules)
    assert data["update"] == 2 and data["global_step"] == 512  # the first checkpoint, whole

    out = subprocess.run([sys.executable, "train.py", "--resume", str(run)], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["updates"] == 4 and summary["global_step"] == 1024
    assert not list(checkpoints.glob(".*.tmp"))  # the resume cleared the killed save's file
    _, data = load_checkpoint(checkpoints / "final.pt", cfg.rules)
    assert data["update"] == 4
