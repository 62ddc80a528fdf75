"""Tournament: who beats whom, by how much, with what certainty.

    python -m agents.tournament --agents expert,greedy,random --players 2 --games 10000

Design (paired deals, so that the luck of the deal cancels out):

- Two players: every pair of agents plays ``--games`` games, ``--games / 2`` deals
  each played twice with the seats swapped. Deal ``k`` is the same deck for
  every pair.
- More players: ``--games`` games in total, ``--games / n`` deals each played
  ``n`` times with the lineup rotated one seat at a time, so every agent of the
  lineup sits in every seat on the same deck. With ``K <= n`` agents the lineup of
  deal ``k`` is agents ``k, k+1, ...`` cyclically (an agent may hold several seats;
  each seat counts as one game of it); with ``K > n`` the lineups cycle through
  every ``n``-subset of the agents.

Per agent: games, losses (durak), wins, draws and rates with 95% Wilson intervals.
Per pair of agents, within the same games: games together, wins (the other one is
the durak), losses, and "draws" (neither is the durak: a drawn game, or with more
than two players a third player is the durak). Ratings: Bradley-Terry over the
decided pairwise results, fit by maximum likelihood, on the Elo scale with
standard errors from the Fisher information. With more than two players the durak
rate is the headline and the rating is read from the pairwise durak comparisons.

Every game is a ``durak_env.Game`` driven by ``observe(seat)``, ``action_mask()``
and ``step``. Deal seeds and agent RNGs are derived from ``--seed`` and the game's
index only, so the result is the same for any number of workers.

``--record N`` saves the first ``N`` games of the schedule as game records
(``durak_env.records``, the format ``durak_env.play`` writes) in ``OUT/records/``;
``python -m durak_env.replay OUT/records/game_00000.json`` steps through one.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import itertools
import json
import math
import multiprocessing as mp
import os
import shlex
import subprocess
import sys
import time
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np

from durak_env import Game, IllegalMoveError, Rules
from durak_env.records import save_record

from .registry import make_agent
from .stats import ELO_PER_NAT, bradley_terry, wilson

# ------------------------------------------------------------------ schedule


@dataclass(frozen=True)
class Match:
    """One game of the schedule: ``seats[s]`` is the index of the agent in seat s."""

    index: int
    deal: int
    seats: tuple[int, ...]


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1, np.uint64)[0] >> 1)


def schedule(num_agents: int, num_players: int, games: int) -> list[Match]:
    """The paired-deal schedule described in the module docstring."""
    if num_agents < 2 and num_players == 2:
        raise ValueError("a two-player tournament needs at least two agents")
    out: list[Match] = []
    if num_players == 2:
        deals = math.ceil(games / 2)
        for i, j in itertools.combinations(range(num_agents), 2):
            for k in range(deals):
                for seats in ((i, j), (j, i)):
                    out.append(Match(len(out), k, seats))
        return out
    deals = math.ceil(games / num_players)
    subsets = list(itertools.combinations(range(num_agents), num_players))
    for k in range(deals):
        if num_agents <= num_players:
            lineup = [(k + s) % num_agents for s in range(num_players)]
        else:
            lineup = list(subsets[k % len(subsets)])
        for rot in range(num_players):
            seats = tuple(lineup[(s + rot) % num_players] for s in range(num_players))
            out.append(Match(len(out), k, seats))
    return out


# ------------------------------------------------------------------ playing


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


MAX_DECISIONS = 5_000
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
    decisions = 0
    n = rules.num_players
    moves, think, think_max = [0] * n, [0.0] * n, [0.0] * n
    while not game.over:
        seat = game.to_act
        mask = game.action_mask()
        obs = game.observe(seat)
        t0 = time.perf_counter()
        action = agents[seat].act(obs, mask, rngs[seat])
        dt = time.perf_counter() - t0
        moves[seat] += 1
        think[seat] += dt
        if agents[seat] in _WARM:
            think_max[seat] = max(think_max[seat], dt)
        if not (isinstance(action, int | np.integer) and 0 <= action < mask.size
                and mask[action]):
            raise IllegalMoveError(
                f"agent {agents[seat].name!r} in seat {seat} chose illegal action {action!r} "
                f"(game {match.index}, deal {match.deal}); legal: {game.legal_moves()}")
        game.step(int(action))
        decisions += 1
        if decisions > MAX_DECISIONS:
            # Durak has no move limit: deterministic players can pass cards back and forth
            # for ever once the talon is empty. Such a game is scored as a draw, with a warning.
            warnings.warn(
                f"game {match.index} (deal {match.deal}) exceeded {MAX_DECISIONS} decisions "
                f"and is scored as a draw; agents by seat: {[a.name for a in agents]}",
                stacklevel=2)
            break
    _WARM.update(agents)
    durak = game.durak if game.durak is not None else -1
    result = GameResult(match.index, match.seats, durak, game.out_order, decisions, None,
                        tuple(moves), tuple(think), tuple(think_max))
    if record:
        meta = _record_meta(seed, match, agents, players, result, not game.over)
        result.record = game.to_record(meta)
    return result


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


# ------------------------------------------------------------------ statistics


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def add(self, w: int, lo: int, d: int):
        self.games += 1
        self.wins += w
        self.losses += lo
        self.draws += d

    def row(self) -> dict:
        decided = self.wins + self.losses
        wl, wh = wilson(self.wins, decided)
        ll, lh = wilson(self.losses, self.games)
        return {
            **dataclasses.asdict(self),
            "win_rate": self.wins / decided if decided else float("nan"),
            "win_rate_lo": wl, "win_rate_hi": wh,
            "durak_rate": self.losses / self.games if self.games else float("nan"),
            "durak_rate_lo": ll, "durak_rate_hi": lh,
        }


@dataclass
class Timing:
    """One agent's thinking time over all its seats and games."""

    moves: int = 0  # decisions asked
    think_s: float = 0.0  # seconds spent deciding them
    think_max_s: float = 0.0  # the longest single decision

    def add(self, moves: int, think_s: float, think_max_s: float):
        self.moves += moves
        self.think_s += think_s
        self.think_max_s = max(self.think_max_s, think_max_s)

    def row(self) -> dict:
        return {
            "ms_per_move": 1000 * self.think_s / self.moves if self.moves else float("nan"),
            "max_ms_per_move": 1000 * self.think_max_s,
        }


@dataclass
class Summary:
    specs: list[str]
    agents: list[Tally]
    pairs: dict[tuple[int, int], Tally] = field(default_factory=dict)
    elo: np.ndarray | None = None
    elo_se: np.ndarray | None = None
    mean_decisions: float = 0.0
    timing: list[Timing] = field(default_factory=list)  # per agent


def summarize(specs: list[str], results: list[GameResult]) -> Summary:
    """Per-agent and per-pair tallies and Bradley-Terry ratings (see the module docstring)."""
    k = len(specs)
    agents = [Tally() for _ in range(k)]
    timing = [Timing() for _ in range(k)]
    pairs = {(i, j): Tally() for i in range(k) for j in range(k) if i != j}
    for r in results:
        for s, i in enumerate(r.seats):
            agents[i].add(int(r.durak >= 0 and r.durak != s), int(r.durak == s), int(r.durak < 0))
            if r.moves:
                timing[i].add(r.moves[s], r.think_s[s], r.think_max_s[s])
        for s, t in itertools.permutations(range(len(r.seats)), 2):
            i, j = r.seats[s], r.seats[t]
            if i != j:
                pairs[i, j].add(int(r.durak == t), int(r.durak == s),
                                int(r.durak not in (s, t)))
    wins = np.zeros((k, k))
    for (i, j), t in pairs.items():
        wins[i, j] = t.wins
    theta, se = bradley_terry(wins)
    mean_dec = float(np.mean([r.decisions for r in results])) if results else 0.0
    return Summary(specs, agents, {p: t for p, t in pairs.items() if t.games},
                   theta * ELO_PER_NAT, se * ELO_PER_NAT, mean_dec, timing)


# ------------------------------------------------------------------ output


def format_tables(s: Summary, num_players: int) -> str:
    lines = ["Agents" + (" (durak rate is the headline)" if num_players > 2 else "")]
    w = max(28, 2 + max(len(spec) for spec in s.specs))  # long specs keep a gap
    lines.append(f"{'agent':<{w}}{'games':>8}{'wins':>8}{'durak':>8}{'draws':>7}"
                 f"{'win% (decided) [95% CI]':>28}{'durak% [95% CI]':>24}{'Elo ± SE':>14}"
                 f"{'ms/move':>9}{'max ms':>8}")
    for i, spec in enumerate(s.specs):
        r = {**s.agents[i].row(), **s.timing[i].row()}
        lines.append(
            f"{spec:<{w}}{r['games']:>8}{r['wins']:>8}{r['losses']:>8}{r['draws']:>7}"
            f"{_pct(r['win_rate'], r['win_rate_lo'], r['win_rate_hi']):>28}"
            f"{_pct(r['durak_rate'], r['durak_rate_lo'], r['durak_rate_hi']):>24}"
            f"{s.elo[i]:>8.0f} ± {s.elo_se[i]:<4.0f}"
            f"{r['ms_per_move']:>9.2f}{r['max_ms_per_move']:>8.0f}")
    lines.append("")
    lines.append("Pairs (row agent against column agent, in the same games)")
    lines.append(f"{'agent':<{w}}{'opponent':<{w}}{'games':>7}{'wins':>7}{'losses':>7}"
                 f"{'draws':>7}{'win% (decided) [95% CI]':>28}")
    for (i, j), t in sorted(s.pairs.items()):
        if i > j:
            continue
        r = t.row()
        lines.append(f"{s.specs[i]:<{w}}{s.specs[j]:<{w}}{r['games']:>7}{r['wins']:>7}"
                     f"{r['losses']:>7}{r['draws']:>7}"
                     f"{_pct(r['win_rate'], r['win_rate_lo'], r['win_rate_hi']):>28}")
    return "\n".join(lines)


def _pct(p, lo, hi) -> str:
    if math.isnan(p):
        return "-"
    return f"{100 * p:5.1f} [{100 * lo:5.1f}, {100 * hi:5.1f}]"


def write_records(out: str, results: list[GameResult]) -> list[dict]:
    """Save every kept game record as ``out/records/game_<index>.json``.

    Returns one small entry per file for results.json (the file path is relative to ``out``).
    """
    entries = []
    for r in results:
        if r.record is None:
            continue
        name = f"records/game_{r.index:05d}.json"  # relative to out, "/" on every OS
        save_record(r.record, os.path.join(out, name))
        entries.append({"index": r.index, "seats": list(r.seats), "durak": r.durak,
                        "decisions": r.decisions, "file": name})
    return entries


def write_outputs(out: str, s: Summary, config: dict, recorded: list[dict] = ()) -> None:
    """CSV, JSON and PNG plots into the directory ``out``.

    Args:
        recorded: the entries ``write_records`` returned, listed in results.json.
    """
    os.makedirs(out, exist_ok=True)
    agent_rows = [{"agent": spec, **s.agents[i].row(), **s.timing[i].row(), "elo": float(s.elo[i]),
                   "elo_se": float(s.elo_se[i])} for i, spec in enumerate(s.specs)]
    pair_rows = [{"agent": s.specs[i], "opponent": s.specs[j], **t.row()}
                 for (i, j), t in sorted(s.pairs.items())]
    _write_csv(os.path.join(out, "agents.csv"), agent_rows)
    _write_csv(os.path.join(out, "pairs.csv"), pair_rows)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"config": config, "agents": agent_rows, "pairs": pair_rows,
                   "mean_decisions": s.mean_decisions, "recorded_games": list(recorded)},
                  f, indent=1)
    _plot(out, s)


def _write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _plot(out: str, s: Summary) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(s.specs)
    rate = np.full((k, k), np.nan)
    for (i, j), t in s.pairs.items():
        if t.wins + t.losses:
            rate[i, j] = t.wins / (t.wins + t.losses)
    fig, ax = plt.subplots(figsize=(1.2 * k + 3, 1.0 * k + 2))
    im = ax.imshow(rate, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(k), s.specs, rotation=45, ha="right")
    ax.set_yticks(range(k), s.specs)
    for i, j in itertools.product(range(k), range(k)):
        if not np.isnan(rate[i, j]):
            ax.text(j, i, f"{100 * rate[i, j]:.0f}", ha="center", va="center")
    ax.set_title("win % of row agent against column agent (decided games)")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "heatmap.png"), dpi=110)
    plt.close(fig)
    order = np.argsort(s.elo)
    fig, ax = plt.subplots(figsize=(7, 0.5 * k + 1.5))
    ax.errorbar(s.elo[order], range(k), xerr=1.96 * s.elo_se[order], fmt="o", capsize=4)
    ax.set_yticks(range(k), [s.specs[i] for i in order])
    ax.set_xlabel("Bradley-Terry rating (Elo scale, mean 0), 95% interval")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ratings.png"), dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ command line


def rules_from_args(args) -> Rules:
    d: dict = {}
    if args.rules:
        import yaml

        with open(args.rules) as f:
            loaded = yaml.safe_load(f) or {}
        d.update(loaded.get("rules", loaded))
    d["num_players"] = args.players
    for name in ("deck_size", "hand_size", "variant", "throw_in", "max_attack",
                 "first_round_max_attack", "transfer_show_trump"):
        value = getattr(args, name)
        if value is not None:
            d[name] = value
    return Rules.from_dict(d)


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m agents.tournament", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agents", required=True,
                   help="comma-separated agent specs with parameters after a colon, "
                        "e.g. 'expert:w_pairs=0.5,w_trump=1,greedy,random'")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=1000,
                   help="games per agent pair (2 players) or in total (more players)")
    p.add_argument("--rules", help="YAML file with Rules fields (top level or under 'rules:')")
    p.add_argument("--deck-size", type=int, choices=(24, 36, 52))
    p.add_argument("--hand-size", type=int)
    p.add_argument("--variant", choices=("prostoy", "podkidnoy", "perevodnoy"))
    p.add_argument("--throw-in", choices=("all", "neighbors"))
    p.add_argument("--max-attack", type=int)
    p.add_argument("--first-round-max-attack", type=int)
    p.add_argument("--transfer-show-trump", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="output directory (default runs/tournament_<time>)")
    p.add_argument("--record", type=int, default=0, metavar="N",
                   help="save the first N games of the schedule as JSON game records in "
                        "OUT/records/game_00000.json, ... (replay one with "
                        "python -m durak_env.replay FILE); results.json lists them")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-plots", action="store_true")
    args = p.parse_args(argv)
    if args.record < 0:
        p.error(f"--record must be 0 or more, got {args.record}")
    return args


def split_specs(text: str) -> list[str]:
    """Split ``--agents``: ``"expert:a=1,b=2,greedy"`` -> ``["expert:a=1,b=2", "greedy"]``.

    A comma-separated piece with ``=`` but no ``:`` continues the previous spec's
    parameters (agent names never contain ``=``).
    """
    out: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if out and "=" in piece and ":" not in piece and ":" in out[-1]:
            out[-1] += "," + piece
        else:
            out.append(piece)
    return out


def provenance(argv=None) -> dict:
    """The command, commit and date that produce a result, for its results.json.

    ``commit`` is the checkout's ``git describe --always --dirty`` (None outside git),
    so a result made from uncommitted code says so.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"],
                                cwd=here, capture_output=True, text=True, timeout=10,
                                check=True).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"command": shlex.join(["python", "-m", "agents.tournament", *args]),
            "commit": commit, "date": time.strftime("%Y-%m-%d")}


def main(argv=None) -> Summary:
    args = parse_args(argv)
    rules = rules_from_args(args)
    specs = split_specs(args.agents)
    out = args.out or os.path.join("runs", time.strftime("tournament_%Y%m%d_%H%M%S"))
    t0 = time.time()
    results = run(rules, specs, args.games, args.seed, args.workers, not args.no_progress,
                  record=args.record)
    summary = summarize(specs, results)
    config = {**provenance(argv), "agents": specs, "rules": rules.to_dict(), "games": args.games,
              "seed": args.seed, "workers": args.workers, "played": len(results),
              "record": args.record, "seconds": round(time.time() - t0, 1)}
    print(f"{len(results)} games, {rules}, seed {args.seed}, {config['seconds']} s")
    print(format_tables(summary, rules.num_players))
    recorded = write_records(out, results)
    if not args.no_plots:
        write_outputs(out, summary, config, recorded)
    else:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({"config": config, "recorded_games": recorded}, f)
    if recorded:
        print(f"{len(recorded)} game records written to {os.path.join(out, 'records')} "
              f"(replay: python -m durak_env.replay {os.path.join(out, recorded[0]['file'])})")
    print(f"written to {out}")
    return summary


if __name__ == "__main__":
    main()
