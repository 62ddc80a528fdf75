"""Issue 22, points 1, 4 and 6 for tournaments: on Ray (in this process, or on a cluster on
127.0.0.1 that the test starts and stops) the same seed plays the same games as the local
path, a ``ppo:`` checkpoint reaches the workers as bytes, and a worker killed mid-run loses
no game."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

ray = pytest.importorskip("ray", reason='needs the ray extra: pip install -e ".[ray]"')

from agents.tournament import format_tables, run, summarize  # noqa: E402
from agents.tournament.play import _build  # noqa: E402
from durak_env import Rules  # noqa: E402
from tests.ray.cluster import LocalCluster  # noqa: E402

# The Ray tests share one Ray per module: xdist keeps them on one worker (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("ray")

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT = ROOT / "checkpoints" / "ppo_2p_podkidnoy.pt"
RULES = Rules()
SPECS = ["greedy", "random", "card_counting"]
GAMES, SEED, RECORD = 6, 11, 4


@pytest.fixture(scope="module")
def local_ray():
    # Ray runs its workers at niceness +15; on a machine busy with other work that starves
    # them, so the tests run them at the niceness of pytest.
    mp = pytest.MonkeyPatch()
    mp.setenv("RAY_worker_niceness", "0")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             logging_level="ERROR")
    yield ray
    ray.shutdown()
    mp.undo()


@pytest.fixture(scope="module")
def local_results():
    return run(RULES, SPECS, GAMES, seed=SEED, progress=False, record=RECORD)


def played(results) -> list:
    """Everything a result holds but the thinking times, which are measured."""
    return [dataclasses.replace(r, think_s=(), think_max_s=()) for r in results]


def table(specs, results) -> str:
    """The summary tables with every thinking time zero."""
    untimed = [dataclasses.replace(r, think_s=(0.0,) * len(r.seats),
                                   think_max_s=(0.0,) * len(r.seats)) for r in results]
    return format_tables(summarize(specs, untimed), RULES.num_players)


def test_in_process_ray_plays_the_local_games(local_ray, local_results):
    on_ray = run(RULES, SPECS, GAMES, seed=SEED, progress=False, record=RECORD, chunk=1,
                 ray="local")
    assert played(on_ray) == played(local_results)
    assert [r.record is not None for r in on_ray] == [True] * RECORD + [False] * 14
    assert table(SPECS, on_ray) == table(SPECS, local_results)


def test_a_ppo_checkpoint_reaches_the_workers_as_bytes(local_ray, tmp_path):
    # The worker builds the agent from the shipped bytes: the driver's path need not exist.
    spec = "ppo:path=/no/such/dir/on/the/worker.pt,greedy=1"
    agent = _build(spec, RULES, {"/no/such/dir/on/the/worker.pt": CHECKPOINT.read_bytes()})
    assert agent.name == spec
    # And a tournament with it plays the local games, the spec unchanged in the records.
    path = tmp_path / "copy.pt"
    shutil.copy(CHECKPOINT, path)
    specs = [f"ppo:{path}", "random"]
    local = run(RULES, specs, 2, seed=2, progress=False, record=1)
    on_ray = run(RULES, specs, 2, seed=2, progress=False, record=1, ray="local")
    assert played(on_ray) == played(local)
    assert on_ray[0].record["meta"]["players"][on_ray[0].seats.index(0)] == f"ppo:{path}"


def _chunk_workers() -> list[psutil.Process]:
    """This test's Ray worker processes running a tournament task just now."""
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if p.cmdline()[:1] == ["ray::_ray_chunk"]:
                out.append(p)
        except psutil.Error:
            pass
    return out


def test_a_worker_killed_mid_tournament_loses_no_game(local_ray):
    # no time cap: a search cut short by the clock would play differently under load
    specs, games = ["ismcts:iterations=50,max_time=none", "greedy"], 8
    undisturbed = run(RULES, specs, games, seed=3, progress=False)
    out: dict = {}
    t = threading.Thread(daemon=True, target=lambda: out.update(
        results=run(RULES, specs, games, seed=3, progress=False, chunk=1, ray="local")))
    t.start()
    killed = None
    while t.is_alive() and killed is None:
        for p in _chunk_workers():
            p.kill()  # by its process id, in the middle of a task
            killed = p.pid
            break
        time.sleep(0.05)
    t.join(timeout=300)
    assert killed is not None, "the tournament ended before a worker could be killed"
    assert not psutil.pid_exists(killed) or psutil.Process(killed).status() == "zombie"
    assert played(out["results"]) == played(undisturbed)


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(num_cpus=1, worker_niceness=0) as c:
        yield c


def _tournament(out: Path, *extra: str, env=None) -> Path:
    cmd = [sys.executable, "-m", "agents.tournament", "--agents", ",".join(SPECS),
           "--games", str(GAMES), "--seed", str(SEED), "--record", str(RECORD),
           "--no-progress", "--out", str(out), *extra]
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    return out


def _untimed(results_json: Path) -> dict:
    data = json.loads(results_json.read_text())
    for row in data["agents"]:
        del row["ms_per_move"], row["max_ms_per_move"]
    return {k: data[k] for k in ("agents", "pairs", "mean_decisions", "recorded_games")}


def test_a_local_cluster_plays_the_local_games(cluster, tmp_path):
    local = _tournament(tmp_path / "local")
    on_cluster = _tournament(tmp_path / "cluster", "--ray", cluster.address, env=cluster.env)
    assert _untimed(on_cluster / "results.json") == _untimed(local / "results.json")
    assert (on_cluster / "pairs.csv").read_bytes() == (local / "pairs.csv").read_bytes()
    records = sorted(p.name for p in (local / "records").iterdir())
    assert records == sorted(p.name for p in (on_cluster / "records").iterdir())
    assert len(records) == RECORD
    for name in records:
        assert (on_cluster / "records" / name).read_bytes() == (
            local / "records" / name).read_bytes()
    config = json.loads((on_cluster / "results.json").read_text())["config"]
    assert config["ray"] == cluster.address
