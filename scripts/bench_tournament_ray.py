"""Tournament games per second on this machine: the local path (one process, a pool of
worker processes) against Ray in this process, for a cheap and a searching lineup.

Every run plays the same schedule with the same seed; the script checks that each gives
the games of the one-process run. Ray's start and its workers' first task (imports, numba
cache loads) are timed apart from the warm run, which is what a long tournament sees.

    python scripts/bench_tournament_ray.py
    python scripts/bench_tournament_ray.py --json docs/results/ray_tournament.json --note "..."
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
import time

from agents.results import commit
from agents.tournament import run
from durak_env import Rules

LINEUPS = {"cheap": ["greedy", "random"],
           # no time cap, so that every run plays the same games
           "search": ["ismcts:iterations=200,max_time=none", "greedy"]}


def timed(specs: list[str], games: int, **kwargs) -> tuple[float, list]:
    t0 = time.perf_counter()
    results = run(Rules(), specs, games, seed=0, progress=False, **kwargs)
    return time.perf_counter() - t0, results


def untimed(results: list) -> list:
    return [dataclasses.replace(r, think_s=(), think_max_s=()) for r in results]


def bench_local(specs: list[str], games: int, workers: int) -> dict:
    timed(specs, 2)  # numba's kernels load in this process before anything is timed
    s1, one = timed(specs, games)
    sp, pool = timed(specs, games, workers=workers)
    return {"agents": specs, "games_arg": games, "results": untimed(one),
            "identical": untimed(pool) == untimed(one),
            "local_1_process": len(one) / s1, f"local_{workers}_processes": len(one) / sp}


def bench_ray(local: dict) -> dict:
    """The lineup of ``bench_local`` on the Ray of this process: a first run, then a warm."""
    specs, games, one = local.pop("agents"), local.pop("games_arg"), local.pop("results")
    sr_cold, ray_cold = timed(specs, games, ray="local")
    sr, ray_warm = timed(specs, games, ray="local")
    same = local.pop("identical") and untimed(ray_cold) == untimed(ray_warm) == one
    return {"agents": specs, "games": len(one), "identical": same, **local,
            "ray_first_run": len(one) / sr_cold, "ray": len(one) / sr}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cheap-games", type=int, default=2000)
    p.add_argument("--search-games", type=int, default=40)
    p.add_argument("--json", help="also write the figures to this file (docs/results/...)")
    p.add_argument("--note", default="", help="what else ran on the machine")
    a = p.parse_args()
    import ray

    cpus = os.cpu_count() or 1
    load_before = os.getloadavg()[0]
    # the pools first: a process forked from one running Ray inherits Ray's signal handlers
    local = {name: bench_local(specs, n, cpus) for name, specs, n in
             (("cheap", LINEUPS["cheap"], a.cheap_games),
              ("search", LINEUPS["search"], a.search_games))}
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False,
             logging_level="ERROR")
    start = time.perf_counter() - t0
    result = {"cpus": cpus, "ray_version": ray.__version__, "ray_start_s": start,
              "lineups": {name: bench_ray(r) for name, r in local.items()}}
    result["load_average"] = [load_before, os.getloadavg()[0]]  # other work on the machine
    ray.shutdown()
    print(f"ray.init(): {start:.1f} s; games/s on {cpus} CPUs; load average "
          f"{result['load_average'][0]:.1f} before, {result['load_average'][1]:.1f} after")
    print("| lineup | games | 1 process | pool | Ray, first run | Ray | identical |")
    print("|---|---|---|---|---|---|---|")
    for name, r in result["lineups"].items():
        print(f"| {name} | {r['games']} | {r['local_1_process']:.1f} | "
              f"{r[f'local_{cpus}_processes']:.1f} | {r['ray_first_run']:.1f} | "
              f"{r['ray']:.1f} | {r['identical']} |")
    if a.json:
        args = sys.argv[:sys.argv.index("--note")] if "--note" in sys.argv else sys.argv
        command = shlex.join(["python", *args])  # the note is kept apart
        with open(a.json, "w") as f:
            json.dump({"command": command, "commit": commit(), "date": time.strftime("%Y-%m-%d"),
                       "note": a.note, "result": result}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
