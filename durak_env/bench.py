"""Throughput benchmark: ``python -m durak_env.bench [--json] [--seconds S]``.

Random legal play inside numba (every decision drawn uniformly from the legal
actions), for 2-player podkidnoy (36 cards), 4-player podkidnoy and 2-player
perevodnoy; compile and start-up times measured in fresh subprocesses; with
``--reference tests.reference``, the tests' plain-Python reference on the same work,
for the ratio (imported only when asked for: the engine does not depend on its
tests). Environment figures (AEC env, VectorEnv) come from ``durak_env.bench_env``.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from numba import njit, prange

from . import core
from .cli import ArgumentParser, positive_float
from .rules import Rules

SCALING_ROUNDS = 5

CONFIGS = {
    "2p_podkidnoy": Rules(num_players=2),
    "4p_podkidnoy": Rules(num_players=4),
    "2p_perevodnoy": Rules(num_players=2, variant="perevodnoy"),
}


@njit(cache=True)
def play_games_serial(st, prm, games, buf, log):
    """Play ``games`` random games one after another in slot 0; return decisions."""
    b = core.borrowed
    prm, buf, log = b(prm), b(buf), b(log)
    total = 0
    r = st[0]
    for _ in range(games):
        total += core.random_game(r, prm, buf, log)
    return total


@njit(cache=True, parallel=True)
def play_games_parallel(st, prm, games_per_slot, bufs, logs):
    """Each batch slot plays ``games_per_slot`` random games; slots run in parallel."""
    slots = st.shape[0]
    totals = np.zeros(slots, np.int64)
    for g in prange(slots):
        t = 0
        for _ in range(games_per_slot):
            t += core.random_game(st[g], prm, bufs[g], logs[g])
        totals[g] = t
    return totals.sum()


def _timed(fn, seconds):
    """Call fn(k) with growing k until it runs at least `seconds`; return (k, result, s)."""
    k = 64
    while True:
        t0 = time.perf_counter()
        res = fn(k)
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return k, res, dt
        k = int(k * max(2.0, 1.2 * seconds / max(dt, 1e-3)))


def bench_core(rules: Rules, seconds: float = 2.0, threads: int | None = None) -> dict:
    prm = core.kernel_params(rules)
    buf = np.zeros(int(prm[core.A_N]), np.int64)
    log = np.zeros((0, 2), np.int32)
    st = core.new_state(1)
    core.seed_games(st, np.array([1], np.uint64))
    play_games_serial(st, prm, 2, buf, log)  # warm
    games, decisions, dt = _timed(lambda k: play_games_serial(st, prm, k, buf, log), seconds)
    out = {
        "games_per_s_1thread": games / dt,
        "decisions_per_s_1thread": decisions / dt,
        "decisions_per_game": decisions / games,
    }
    threads = threads or numba.config.NUMBA_NUM_THREADS
    slots = threads * 8
    stp = core.new_state(slots)
    core.seed_games(stp, np.arange(1, slots + 1, dtype=np.uint64))
    bufs = np.zeros((slots, buf.shape[0]), np.int64)
    logs = np.zeros((slots, 0, 2), np.int32)
    play_games_parallel(stp, prm, 1, bufs, logs)
    games, scaling = _threads_vs_one(
        lambda k: play_games_parallel(stp, prm, k, bufs, logs), slots, threads, seconds / 2)
    out["games_per_s_all_threads"] = games
    out["threads"] = threads
    out["scaling_all_threads"] = scaling
    return out


def _threads_vs_one(run, slots, threads, seconds):
    """Rate of ``run(k)`` (k items in each of ``slots`` parallel slots) on all threads,
    and its ratio to one thread.

    A shared or virtual machine's speed can drift from second to second, so one
    thread and all threads are timed in alternating rounds on the same kernel and
    the scaling is the median of the per-round ratios.
    """
    one, many = [], []
    for _ in range(SCALING_ROUNDS):
        for n, sink in ((1, one), (threads, many)):
            numba.set_num_threads(n)
            per_slot, _, dt = _timed(run, seconds)
            sink.append(per_slot * slots / dt)
    numba.set_num_threads(threads)
    return float(np.median(many)), float(np.median(np.array(many) / np.array(one)))


@njit(cache=True, parallel=True)
def _arithmetic(slots, steps):
    """A loop that touches no memory (xorshift in registers), one per slot in parallel."""
    out = np.zeros(slots, np.uint64)
    for g in prange(slots):
        x = np.uint64(g + 1)
        for _ in range(steps):
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
        out[g] = x
    return out.sum()


def machine_scaling(seconds: float = 1.0, threads: int | None = None) -> float:
    """The all-threads speed-up of ``_arithmetic``: what this machine's cores allow
    when nothing is shared, the ceiling for the engine's scaling column."""
    threads = threads or numba.config.NUMBA_NUM_THREADS
    slots = threads * 8
    _arithmetic(slots, 1)
    return _threads_vs_one(lambda k: _arithmetic(slots, 1000 * k), slots, threads, seconds)[1]


def bench_reference(rules: Rules, reference, seconds: float = 2.0) -> dict:
    """Random games by a plain-Python reference module (one with ``RefGame``, such as
    ``tests/reference.py``), dealt by the engine."""
    from .game import Game

    rng = random.Random(0)
    games = decisions = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        start = Game.new(rules, seed=rng.randrange(1 << 30)).deal_record
        ref = reference.RefGame.from_deal(rules, start["hands"], start["talon"],
                                          trump=start["trump"])
        while not ref.over:
            ref.play(rng.choice(ref.legal_moves()))
            decisions += 1
        games += 1
    dt = time.perf_counter() - t0
    return {"games_per_s": games / dt, "decisions_per_s": decisions / dt}


_STARTUP = (
    "import time; t=time.perf_counter(); import numpy as np; from durak_env import core, bench;"
    "r=bench.CONFIGS['2p_podkidnoy']; p=core.kernel_params(r); s=core.new_state(1);"
    "core.seed_games(s, np.array([1],np.uint64));"
    "bench.play_games_serial(s,p,1,np.zeros(int(p[core.A_N]),np.int64),np.zeros((0,2),np.int32));"
    "print(time.perf_counter()-t)"
)


def bench_startup() -> dict:
    """Import plus first game, in fresh interpreters: with an empty and with a warm cache."""

    def run(env):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", _STARTUP], env=env, check=True, capture_output=True)
        return time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as cold_dir:
        cold = run(os.environ | {"NUMBA_CACHE_DIR": cold_dir})
    run(dict(os.environ))  # make sure the normal cache is warm
    warm = run(dict(os.environ))
    return {"compile_s_cold": cold, "import_and_first_game_s_cached": warm}


def run_all(seconds: float, with_env: bool, reference=None) -> dict:
    """Every measurement; ``reference``: a module with ``RefGame`` to compare with, or None."""
    result: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "scaling_arithmetic": machine_scaling(seconds / 2),
        }
    }
    for name, rules in CONFIGS.items():
        result[name] = bench_core(rules, seconds)
        if reference is not None and name == "2p_podkidnoy":
            ref = bench_reference(rules, reference, seconds)
            result[name]["reference_games_per_s"] = ref["games_per_s"]
            result[name]["speedup_vs_reference"] = (
                result[name]["games_per_s_1thread"] / ref["games_per_s"]
            )
    result.update(bench_startup())
    # The headline keys for the default configuration, at the top level too.
    for key in ("games_per_s_1thread", "decisions_per_s_1thread", "games_per_s_all_threads"):
        result[key] = result["2p_podkidnoy"][key]
    if with_env:
        from . import bench_env

        result["env"] = bench_env.run_all(seconds)
    return result


def print_table(res: dict) -> None:
    print(
        f"{'configuration':<16}{'games/s 1T':>14}{'decisions/s 1T':>16}"
        f"{'games/s all T':>16}{'scaling':>9}"
    )
    for name in CONFIGS:
        r = res[name]
        print(
            f"{name:<16}{r['games_per_s_1thread']:>14,.0f}{r['decisions_per_s_1thread']:>16,.0f}"
            f"{r['games_per_s_all_threads']:>16,.0f}{r['scaling_all_threads']:>8.2f}x"
        )
    m = res["machine"]
    print(
        f"machine ceiling: a loop that touches no memory scales {m['scaling_arithmetic']:.2f}x "
        f"on {m['numba_threads']} threads"
    )
    ref = res["2p_podkidnoy"].get("reference_games_per_s")
    if ref:
        print(
            f"plain-Python reference ({res['reference']}): {ref:,.1f} games/s; "
            f"core is {res['2p_podkidnoy']['speedup_vs_reference']:,.0f}x faster"
        )
    print(f"cold compile (empty numba cache): {res['compile_s_cold']:.1f} s")
    print(f"import + first game (warm cache): {res['import_and_first_game_s_cached']:.2f} s")
    if "env" in res:
        from . import bench_env

        bench_env.print_table(res["env"])


def main(argv=None) -> int:
    ap = ArgumentParser(prog="python -m durak_env.bench", description=__doc__)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--seconds", type=positive_float, default=2.0, help="time per measurement")
    ap.add_argument("--no-env", action="store_true", help="skip the environment benchmarks")
    ap.add_argument("--reference", metavar="MODULE",
                    help="also time this plain-Python reference module (one with RefGame) "
                         "on the same work, e.g. tests.reference from the repository root")
    ap.add_argument("--no-reference", action="store_true",
                    help="skip the reference timing even when --reference is given")
    args = ap.parse_args(argv)
    module = args.reference if not args.no_reference else None
    reference = _reference(ap, module) if module else None
    res = run_all(args.seconds, not args.no_env, reference)
    if module:
        res["reference"] = module
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print_table(res)
    return 0


def _reference(ap: ArgumentParser, module: str):
    """The ``--reference`` module, checked before any measurement."""
    try:
        ref = importlib.import_module(module)
    except Exception as e:  # noqa: BLE001 - any failure to import is a bad argument
        ap.error(f"--reference {module}: cannot import it: {type(e).__name__}: {e}")
    if not hasattr(ref, "RefGame"):
        ap.error(f"--reference {module}: the module has no RefGame (e.g. tests.reference)")
    return ref


if __name__ == "__main__":
    sys.exit(main())
