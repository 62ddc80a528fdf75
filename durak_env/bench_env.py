"""Environment throughput, called by ``python -m durak_env.bench`` (or run this module).

* ``bench_aec``: the PettingZoo env through ``env()`` with its wrappers, random legal
  actions drawn in Python from the mask; agent decisions per second on one core.
* ``bench_vector``: ``VectorEnv`` with observations and masks, random legal actions
  drawn in numba inside the step call (``step_random``, the same draws as
  ``step(random_actions())``); game steps (one per game per call) per second.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numba
import numpy as np

from .rules import Rules

SWEEP_SIZES = (1, 64, 1024, 4096, 16384)


def bench_aec(rules: Rules | None = None, seconds: float = 2.0, seed: int = 0) -> dict:
    """Random legal play through ``durak_env.env()`` (all three wrappers)."""
    from .aec import env

    e = env(rules=rules or Rules())
    rnd = random.Random(seed)
    e.reset(seed=seed)
    for _agent in e.agent_iter():  # warm-up game: compiles the kernels outside the timing
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    e.reset(seed=seed)
    decisions = games = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rnd.randrange(len(legal))]))
            decisions += 1
        games += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            break
        e.reset()
    cpu = time.process_time() - c0
    return {"steps_per_s": decisions / dt, "steps_per_cpu_s": decisions / cpu,
            "games_per_s": games / dt, "decisions_per_game": decisions / games}


def bench_vector(rules: Rules | None = None, num_envs: int = 4096, num_threads: int = 2,
                 seconds: float = 2.0, copy: bool = False, seed: int = 0) -> dict:
    """``VectorEnv.step_random()`` in a loop; steps/s counts one step per game.

    Wall-clock and CPU time are both reported: on a shared machine CPU time per
    thread shows what the code does when it gets the cores.
    """
    from .vector import VectorEnv

    threads = min(num_threads, numba.config.NUMBA_NUM_THREADS)
    v = VectorEnv(rules or Rules(), num_envs, seed=seed, num_threads=threads, copy=copy)
    v.reset()
    for _ in range(3):  # warm-up
        v.step_random()
    calls, games = 0, 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        for _ in range(8):
            _, _, term, _, _ = v.step_random()
            games += int(term.sum())
        calls += 8
        dt = time.perf_counter() - t0
        if dt >= seconds:
            break
    cpu = time.process_time() - c0
    return {"num_envs": num_envs, "threads": threads, "copy": copy,
            "steps_per_s": calls * num_envs / dt, "calls_per_s": calls / dt,
            "games_per_s": games / dt, "steps_per_cpu_s": calls * num_envs / cpu}


def run_all(seconds: float = 2.0) -> dict:
    out = {"aec_2p_podkidnoy": bench_aec(seconds=seconds)}
    out["vector_4096_2t"] = bench_vector(num_envs=4096, num_threads=2, seconds=seconds)
    out["vector_4096_2t_copy"] = bench_vector(num_envs=4096, num_threads=2, seconds=seconds,
                                              copy=True)
    out["vector_sweep"] = [
        bench_vector(num_envs=b, num_threads=t, seconds=seconds / 2)
        for t in (1, 2) for b in SWEEP_SIZES
    ]
    return out


def print_table(res: dict) -> None:
    aec = res["aec_2p_podkidnoy"]
    print(f"AEC env via env() (2p podkidnoy, 1 core): {aec['steps_per_s']:,.0f} steps/s "
          f"wall, {aec['steps_per_cpu_s']:,.0f} per CPU second")
    for key in ("vector_4096_2t", "vector_4096_2t_copy"):
        r = res[key]
        print(f"VectorEnv 4096 games, 2 threads, copy={r['copy']}: {r['steps_per_s']:,.0f} "
              f"steps/s wall, {r['steps_per_cpu_s']:,.0f} per CPU second")
    print(f"{'num_envs':>10}{'threads':>9}{'steps/s':>14}{'steps/cpu-s':>14}{'calls/s':>11}")
    for r in res["vector_sweep"]:
        print(f"{r['num_envs']:>10}{r['threads']:>9}{r['steps_per_s']:>14,.0f}"
              f"{r['steps_per_cpu_s']:>14,.0f}{r['calls_per_s']:>11,.0f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m durak_env.bench_env", description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args(argv)
    res = run_all(args.seconds)
    print(json.dumps(res, indent=2) if args.json else "", end="")
    if not args.json:
        print_table(res)


if __name__ == "__main__":
    main()
