"""Playing the schedule: one game per ``Match``, in this process or in workers.

Deal seeds and agent RNGs come from the tournament seed and the game's index only, so
the results are the same for any number of workers.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
import warnings
import weakref
from dataclasses import dataclass

import numpy as np

from durak_env import Game, IllegalMoveError, Rules

from ..registry import make_agent
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


def _init_worker(rules_dict: dict, specs: list[str], seed: int, record: int):
    rules = Rules.from_dict(rules_dict)
    _WORKER.update(rules=rules, specs=specs, seed=seed, record=record, cache={})


def _seat_agents(match: Match) -> list:
    """One agent object per (agent, seat), built once per worker."""
    w = _WORKER
    out = []
    for s, i in enumerate(match.seats):
        key = (i, s)
        if key not in w["cache"]:
            w["cache"][key] = make_agent(w["specs"][i], w["rules"])
        out.append(w["cache"][key])
    return out


def _run_chunk(matches: list[Match]) -> list[GameResult]:
    w = _WORKER
    return [play_game(w["rules"], _seat_agents(m), w["seed"], m, m.index < w["record"],
                      [w["specs"][i] for i in m.seats]) for m in matches]


def run(rules: Rules, specs: list[str], games: int, seed: int = 0, workers: int = 1,
        progress: bool = True, record: int = 0, chunk: int = 20) -> list[GameResult]:
    """Play the whole schedule and return the results in schedule order.

    Args:
        record: keep the game record (``GameResult.record``) of the first ``record``
            games of the schedule; ``write_records`` saves them as files.
    """
    for spec in specs:  # fail fast on a bad spec, before any worker starts
        make_agent(spec, rules)
    matches = schedule(len(specs), rules.num_players, games)
    chunks = [matches[i : i + chunk] for i in range(0, len(matches), chunk)]
    init = (rules.to_dict(), specs, seed, record)
    bar = _progress(len(matches), progress)
    results: list[GameResult] = []
    if workers <= 1:
        _init_worker(*init)
        for c in chunks:
            results += _run_chunk(c)
            bar.update(len(c))
    else:
        # fork is fast, but a forked child deadlocks in torch's thread pool once the
        # parent has used torch (checking a ppo spec loads its network): spawn then
        forkable = os.name == "posix" and "torch" not in sys.modules
        ctx = mp.get_context("fork" if forkable else "spawn")
        with ctx.Pool(workers, _init_worker, init) as pool:
            for res in pool.imap(_run_chunk, chunks):
                results += res
                bar.update(len(res))
    bar.close()
    return results


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=not enabled, smoothing=0.05)
