"""Playing the schedule: one game per ``Match``, in this process, in worker processes or
as Ray tasks on a cluster.

Deal seeds and agent RNGs come from the tournament seed and the game's index only, so
the results are the same for any number of workers, local or on Ray.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import socket
import sys
import tempfile
import time
import uuid
import warnings
import weakref
from dataclasses import dataclass

import numpy as np

from durak_env import Game, IllegalMoveError, Rules

from ..registry import make_agent, parse_spec
from ..stats import MAX_DECISIONS
from .scheduling import Match, deal_seed, schedule


@dataclass
class GameResult:
    index: int
    seats: tuple[int, ...]
    durak: int  # seat, -1 on a draw
    out_order: list[int]
    decisions: int
    record: dict | None = None  # Game.to_record of the game played, for ``--record``
    moves: tuple[int, ...] = ()  # per seat: decisions asked of it
    think_s: tuple[float, ...] = ()  # per seat: seconds spent in act
    think_max_s: tuple[float, ...] = ()  # per seat: the longest act (see _WARM)


# Agent objects that have played a whole game in this process. Numba loads (or, after a
# source change, compiles) each kernel at its first call, which can take seconds and falls
# anywhere in an agent's first game (the end-game search runs only at its end), so that
# game counts in the mean time per move, not in the max.
_WARM: weakref.WeakSet = weakref.WeakSet()


def play_game(rules: Rules, agents: list, seed: int, match: Match, record: bool = False,
              players: list[str] | None = None) -> GameResult:
    """Play one scheduled game; ``agents[s]`` is the agent object in seat s.

    Args:
        record: keep the game's record (``Game.to_record``, a plain dict) in the result.
        players: what the record's meta calls each seat's player (default the agent names).

    Raises:
        IllegalMoveError: an agent chose an illegal action (names the agent).
    """
    game = Game.new(rules, deal_seed(seed, match.deal))
    rngs = [np.random.default_rng([seed, match.index, s]) for s in range(rules.num_players)]
    for a in agents:
        a.reset()
    decisions, moves, think, think_max = _play_out(game, agents, rngs, match)
    _WARM.update(agents)
    durak = game.durak if game.durak is not None else -1
    result = GameResult(match.index, match.seats, durak, game.out_order, decisions, None,
                        tuple(moves), tuple(think), tuple(think_max))
    if record:
        meta = _record_meta(seed, match, agents, players, result, not game.over)
        result.record = game.to_record(meta)
    return result


def _play_out(game: Game, agents: list, rngs: list, match: Match):
    """Play ``game`` to its end or to the decision cap.

    Returns:
        The decisions made, and per seat: decisions, seconds in ``act``, and the longest
        ``act`` of an agent that has played a whole game before (see ``_WARM``).
    """
    n = game.rules.num_players
    moves, think, think_max = [0] * n, [0.0] * n, [0.0] * n
    decisions = 0
    while not game.over:
        seat = game.to_act
        dt = _play_turn(game, agents[seat], seat, rngs[seat], match)
        moves[seat] += 1
        think[seat] += dt
        if agents[seat] in _WARM:
            think_max[seat] = max(think_max[seat], dt)
        decisions += 1
        if decisions > MAX_DECISIONS:
            # Durak has no move limit: deterministic players can pass cards back and forth
            # for ever once the talon is empty. Such a game is scored as a draw, with a warning
            # (attributed to play_game's caller).
            warnings.warn(
                f"game {match.index} (deal {match.deal}) exceeded {MAX_DECISIONS} decisions "
                f"and is scored as a draw; agents by seat: {[a.name for a in agents]}",
                stacklevel=3)
            break
    return decisions, moves, think, think_max


def _play_turn(game: Game, agent, seat: int, rng: np.random.Generator, match: Match) -> float:
    """Ask ``agent`` (in ``seat``, to act) for its action and play it; returns the seconds
    it took to choose.

    Raises:
        IllegalMoveError: the action is not a legal action id (names the agent).
    """
    mask = game.action_mask()
    obs = game.observe(seat)
    t0 = time.perf_counter()
    action = agent.act(obs, mask, rng)
    dt = time.perf_counter() - t0
    if not (isinstance(action, int | np.integer) and 0 <= action < mask.size and mask[action]):
        raise IllegalMoveError(
            f"agent {agent.name!r} in seat {seat} chose illegal action {action!r} "
            f"(game {match.index}, deal {match.deal}); legal: {game.legal_moves()}")
    game.step(int(action))
    return dt


def _record_meta(seed: int, match: Match, agents: list, players: list[str] | None,
                 result: GameResult, stopped: bool) -> dict:
    """Where a recorded game sits in the tournament, and how the tournament scored it.

    ``result`` in the record itself is the engine's; a game stopped at ``MAX_DECISIONS``
    is unfinished there but scored as a draw here.
    """
    return {
        "players": list(players) if players else [a.name for a in agents],
        "seats": list(match.seats),
        "tournament_seed": seed,
        "game": match.index,
        "deal": match.deal,
        "deal_seed": deal_seed(seed, match.deal),
        "tournament_result": {"durak": None if result.durak < 0 else result.durak,
                              "decisions": result.decisions,
                              "move_limit": stopped},
    }


_WORKER: dict = {}


def _init_worker(rules_dict: dict, specs: list[str], seed: int, record: int,
                 files: dict[str, bytes] | None = None):
    rules = Rules.from_dict(rules_dict)
    _WORKER.update(rules=rules, specs=specs, seed=seed, record=record, files=files or {},
                   cache={})


def _init_pool_worker(*init) -> None:
    """``_init_worker`` in one of ``workers`` processes: torch gets one thread that sleeps
    when idle, since the processes already fill the cores (an agent plays one position at
    a time, and spinning thread pools would take the cores from the other processes)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    _init_worker(*init)


def _seat_agents(match: Match) -> list:
    """One agent object per (agent, seat), built once per worker."""
    w = _WORKER
    out = []
    for s, i in enumerate(match.seats):
        key = (i, s)
        if key not in w["cache"]:
            w["cache"][key] = _build(w["specs"][i], w["rules"], w["files"])
        out.append(w["cache"][key])
    return out


def _build(spec: str, rules: Rules, files: dict[str, bytes]):
    """``make_agent(spec)``; a file the spec names and the driver shipped (``ship_files``)
    is read from a temporary copy of its bytes instead of from its path."""
    name, params = parse_spec(spec)
    if params.get("path") not in files:
        return make_agent(spec, rules)
    with tempfile.TemporaryDirectory(prefix="durak_tournament_") as directory:
        copy = os.path.join(directory, os.path.basename(params["path"]))
        with open(copy, "wb") as f:
            f.write(files[params["path"]])
        agent = make_agent(f"{name}:" + ",".join(
            f"{k}={copy if k == 'path' else v}" for k, v in params.items()), rules)
    agent.name = spec.strip()  # results, warnings and errors name the driver's spec
    return agent


def _run_chunk(matches: list[Match]) -> list[GameResult]:
    w = _WORKER
    return [play_game(w["rules"], _seat_agents(m), w["seed"], m, m.index < w["record"],
                      [w["specs"][i] for i in m.seats]) for m in matches]


def run(rules: Rules, specs: list[str], games: int, seed: int = 0, workers: int = 1,
        progress: bool = True, record: int = 0, chunk: int = 20,
        ray: str | None = None) -> list[GameResult]:
    """Play the whole schedule and return the results in schedule order.

    Args:
        record: keep the game record (``GameResult.record``) of the first ``record``
            games of the schedule; ``write_records`` saves them as files.
        ray: play the chunks as Ray tasks instead of in ``workers`` processes: ``"local"``
            starts Ray in this process, ``"auto"`` or ``"HOST:PORT"`` joins a running
            cluster (``connect_ray``); an already connected Ray is used as it is.
    """
    for spec in specs:  # fail fast on a bad spec, before any worker starts
        make_agent(spec, rules)
    matches = schedule(len(specs), rules.num_players, games)
    init = (rules.to_dict(), specs, seed, record)
    bar = _progress(len(matches), progress)
    if ray is not None:
        results = _run_on_ray(init, matches, chunk, ray, bar)
    else:
        results = _run_local(init, matches, chunk, workers, bar)
    bar.close()
    return results


def _chunks(matches: list[Match], size: int) -> list[list[Match]]:
    return [matches[i : i + size] for i in range(0, len(matches), size)]


def _run_local(init: tuple, matches: list[Match], chunk: int, workers: int, bar):
    results: list[GameResult] = []
    if workers <= 1:
        _init_worker(*init)
        for c in _chunks(matches, chunk):
            results += _run_chunk(c)
            bar.update(len(c))
        return results
    # fork is fast, but a forked child deadlocks in torch's thread pool once the
    # parent has used torch (checking a ppo spec loads its network): spawn then
    forkable = os.name == "posix" and "torch" not in sys.modules
    ctx = mp.get_context("fork" if forkable else "spawn")
    with ctx.Pool(workers, _init_pool_worker, init) as pool:
        for res in pool.imap(_run_chunk, _chunks(matches, chunk)):
            results += res
            bar.update(len(res))
    return results


# ---------------------------------------------------------------- Ray

# Ray retries a task whose worker process died (a killed worker, a lost node) this many
# times; an exception raised by the game itself (an illegal move) is not retried.
RAY_RETRIES = 5
# Tasks per CPU of the cluster on a long schedule: enough to balance uneven games over the
# workers, few enough that cheap games do not pay a task's fixed cost many times over.
RAY_CHUNKS_PER_CPU = 4


def connect_ray(address: str = "local"):
    """Connect to Ray unless connected already: ``"local"`` starts it in this process,
    ``"auto"`` or ``"HOST:PORT"`` joins a running cluster.

    Returns:
        The ``ray`` module.

    Raises:
        ValueError: Ray is not installed, or the cluster cannot be reached (one line).
    """
    try:
        import ray
    except ImportError:
        raise ValueError('Ray is not installed: pip install -e ".[ray]"') from None
    if not ray.is_initialized():
        _check_reachable(address)
        try:
            # the workers' output (a game's warning) reaches this terminal, Ray's own
            # start-up chatter does not; a Ray of this command alone needs no dashboard
            extra = {"include_dashboard": False} if address == "local" else {}
            ray.init(address=address, logging_level="ERROR", **extra)
        except (ConnectionError, RuntimeError, ValueError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ValueError(f"cannot reach a Ray cluster at {address!r}: {first}") from None
    return ray


def _check_reachable(address: str) -> None:
    """A quick TCP connection to a ``HOST:PORT`` address: ``ray.init`` would retry an
    unreachable one for a long time, logging as it goes."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        raise ValueError(f"cannot reach a Ray cluster at {address!r}: "
                         f"{e.strerror or e}") from None


def ray_chunk(matches: int, cpus: float, chunk: int) -> int:
    """Games per Ray task: at least ``chunk``, larger on a long schedule so that each CPU
    of the cluster gets about ``RAY_CHUNKS_PER_CPU`` tasks. Any size gives the same results."""
    return max(chunk, -(-matches // max(1, int(cpus) * RAY_CHUNKS_PER_CPU)))


def _run_on_ray(init: tuple, matches: list[Match], chunk: int, address: str, bar):
    """Send the chunks as Ray tasks and gather their results in schedule order as they
    arrive. The rules, specs and checkpoint bytes go to the cluster once (``ray.put``)."""
    ray = connect_ray(address)
    specs = init[1]
    shared = ray.put({"token": uuid.uuid4().hex, "init": init, "files": ship_files(specs)})
    task = ray.remote(max_retries=RAY_RETRIES, num_cpus=1)(_ray_chunk)
    size = ray_chunk(len(matches), ray.cluster_resources().get("CPU", 1), chunk)
    pending = {task.remote(shared, c): i for i, c in enumerate(_chunks(matches, size))}
    done: dict[int, list[GameResult]] = {}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            res = ray.get(ref)
            done[pending.pop(ref)] = res
            bar.update(len(res))
    return [r for i in sorted(done) for r in done[i]]


def ship_files(specs: list[str]) -> dict[str, bytes]:
    """The bytes of every file an agent spec names (a ``ppo:`` checkpoint's ``path``),
    read here, so that Ray workers need no shared file system."""
    files = {}
    for spec in specs:
        path = parse_spec(spec)[1].get("path")
        if path and path not in files:
            with open(path, "rb") as f:
                files[path] = f.read()
    return files


def _ray_chunk(shared: dict, matches: list[Match]) -> list[GameResult]:
    """One Ray task. A worker process keeps its agents between the tasks of one
    tournament (``token``), as a pool worker does."""
    if _WORKER.get("token") != shared["token"]:
        _init_worker(*shared["init"], shared["files"])
        _WORKER["token"] = shared["token"]
    return _run_chunk(matches)


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=not enabled, smoothing=0.05)
