"""Issue 22, points 2, 4 and 6: PPO rollouts on Ray actors (``ray.actors=2``).

A run of a few updates on two actors (the local batch, step count, checkpoints,
``--resume``), the same run reproduced, and an actor whose process is killed by its pid
mid-run: Ray restarts it, the run finishes with its step count and a loadable checkpoint.
The runs are in-process on one module-scoped local Ray (two CPUs, no dashboard).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ray = pytest.importorskip("ray")

from agents.ppo import load_checkpoint  # noqa: E402
from agents.ppo_config import load_config  # noqa: E402
from agents.ppo_train import resume_config, start_run, train  # noqa: E402
from agents.ray_rollout import RayRollouts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "configs" / "tiny.yaml"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _run(tmp_path, *overrides):
    cfg = load_config(TINY, [f"logging.runs_dir={tmp_path}", "ray.actors=2", *overrides])
    run = start_run(cfg)
    return run, train(cfg, run)


# 4 updates of 64 steps in 16 games: long enough for games against snapshots to end
LONGER = ("ppo.num_steps=64", "ppo.total_timesteps=4096")


def test_two_actors_train_checkpoint_and_resume(tmp_path):
    run, summary = _run(tmp_path / "a", *LONGER)
    assert summary["global_step"] == 4096 and summary["updates"] == 4
    assert summary["actor_restarts"] == 0
    cfg = load_config(run / "config.yaml")
    assert cfg.ray.actors == 2
    net, data = load_checkpoint(run / "checkpoints" / "final.pt", cfg.rules)
    assert data["update"] == 4 and data["global_step"] == 4096
    assert len(data["pool"]["states"]) == 3  # a snapshot per update, pool_size 3
    assert sum(data["pool"]["games"]) > 0  # the actors' games against snapshots came back
    evals = [json.loads(line) for line in (run / "evals.jsonl").read_text().splitlines()]
    assert [e["global_step"] for e in evals] == [2048, 4096]

    # the same seed and actor count: the same run, to the last weight
    run_b, _ = _run(tmp_path / "b", *LONGER)
    a = load_checkpoint(run / "checkpoints" / "final.pt", cfg.rules)[1]
    b = load_checkpoint(run_b / "checkpoints" / "final.pt", cfg.rules)[1]
    for k, v in a["model"].items():
        assert torch.equal(v, b["model"][k]), k
    assert a["pool"]["games"] == b["pool"]["games"]

    summary = train(resume_config(run, ["ppo.total_timesteps=8192"]), run, resume=True)
    assert summary["global_step"] == 8192 and summary["updates"] == 8
    _, data = load_checkpoint(run / "checkpoints" / "final.pt", cfg.rules)
    assert data["update"] == 8


def test_a_killed_actor_is_restarted_and_the_run_finishes(tmp_path, monkeypatch):
    collect, calls = RayRollouts.collect, []

    def kill_then_collect(self, *args):
        calls.append(1)
        if len(calls) == 3:  # after two updates: kill actor 0's worker process by its pid
            pid = ray.get(self.actors[0].pid.remote())
            assert pid == self.pids[0] != os.getpid()
            os.kill(pid, signal.SIGKILL)
        return collect(self, *args)

    monkeypatch.setattr(RayRollouts, "collect", kill_then_collect)
    run, summary = _run(tmp_path, "ppo.total_timesteps=1536")  # 6 updates
    assert len(calls) == 6
    assert summary["actor_restarts"] == 1
    assert summary["global_step"] == 1536 and summary["updates"] == 6
    cfg = load_config(run / "config.yaml")
    _, data = load_checkpoint(run / "checkpoints" / "final.pt", cfg.rules)
    assert data["update"] == 6 and data["global_step"] == 1536


def test_the_actors_slices_join_into_one_rollout():
    """Each actor's links (``nxt``: flat indices into its own ``[T, b]``) point at the same
    decisions in the driver's ``[T, B]`` rollout."""
    import numpy as np

    from agents.rollout import Rollout, RolloutStats
    from agents.selfplay import Pool

    t, share, k, obs_size = 5, 3, 2, 4
    rng = np.random.default_rng(0)
    parts = []
    for a in range(k):
        obs = (np.arange(t * share, dtype=np.float32).reshape(t, share, 1) + 100 * a
               + np.zeros((1, 1, obs_size), np.float32))
        nxt = np.where(rng.random((t, share)) < 0.5, rng.integers(0, t * share, (t, share)), -1)
        parts.append({"obs": obs, "ids": np.full((t, share, 2 + a), 7), "counts":
                      np.full((t, share), 2), "pos": np.zeros((t, share), np.int64),
                      "logp": np.zeros((t, share), np.float32),
                      "value": np.zeros((t, share), np.float32),
                      "learner": nxt >= 0, "reward": np.full((t, share), a, np.float32),
                      "done": np.zeros((t, share), np.bool_), "nxt": nxt,
                      "stats": RolloutStats(),
                      "pid": a, "tally": (np.zeros(0, np.int64), np.zeros(0, np.bool_))})
    remote = RayRollouts.__new__(RayRollouts)
    remote.share, remote.pids, remote.restarts = share, [0, 1], 0
    ro = Rollout(t, share * k, obs_size, width=2)
    remote._merge(parts, ro, Pool())
    flat = ro.obs.reshape(-1, obs_size)[:, 0].numpy()
    for a, p in enumerate(parts):
        linked = p["nxt"] >= 0
        here = ro.nxt[:, a * share:(a + 1) * share][linked]
        assert (flat[here] == p["obs"].reshape(-1, obs_size)[p["nxt"][linked], 0]).all()
        assert (ro.reward[:, a * share:(a + 1) * share] == a).all()
    assert ro.ids.shape[2] == 3 and (ro.ids[:, :share, 2] == 0).all()  # padded to the widest
    assert remote.restarts == 0


def test_train_py_starts_ray_itself(tmp_path):
    """``train.py ... ray.actors=2`` in a fresh process: Ray started there, and stopped."""
    out = subprocess.run([sys.executable, "train.py", "--config", str(TINY), "ray.actors=2",
                          f"logging.runs_dir={tmp_path}", "eval.every=0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "charts/SPS median" in out.stdout
    (run,) = tmp_path.iterdir()
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["global_step"] == 1024 and summary["actor_restarts"] == 0


@pytest.mark.parametrize("args, message", [
    (["ray.actors=3"], "env.num_envs (16) must be a multiple of ray.actors (3)"),
    (["ray.actors=8", "ray.num_cpus_per_actor=64"],
     "ray.actors=8 with ray.num_cpus_per_actor=64 need 512 CPUs, the Ray cluster has"),
])
def test_ray_config_errors_are_one_line(tmp_path, args, message):
    out = subprocess.run([sys.executable, "train.py", "--config", str(TINY), *args,
                          f"logging.runs_dir={tmp_path}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert not list(tmp_path.iterdir())  # no run directory
