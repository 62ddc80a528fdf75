"""Speed of the exact end-game solver: ``python -m agents.solver_bench [--json PATH]``.

Plays games of ``expert_rules`` against itself in the vector env as imitation's data
does (``agents.imitation.generate_positions``, a tenth of the moves random) and keeps the
first ``--positions`` two-player decisions with a choice once every card is placed (talon
empty, or only the face-up trump left), of both seats, in the order of their games. Then
solves them one by one, each game's positions in a row, in the two ways the project uses the solver:

- ``label``: every legal move solved (``SearchLabeler.label_set``, the end-game stage's
  and imitation's labels), one transposition table kept across all positions;
- ``play``: ``expert``'s search (``EndgameSolver.solve``: stops at the first proven win),
  its smaller table cleared at each new game.

Prints, for each, the positions per second, the nodes searched and nodes per second,
and the share of positions proven within the node cap. Nodes and proven shares depend
only on the positions and the cap, not on the machine: two commits that print the same
nodes searched the same trees, and their seconds compare their speed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from durak_env import Rules  # noqa: E402

from .endgame import EndgameSolver  # noqa: E402
from .imitation import ImitationConfig, generate_positions  # noqa: E402
from .results import write_result  # noqa: E402
from .teacher import SearchConfig, SearchLabeler  # noqa: E402
from .view import fast_decode  # noqa: E402


def end_game_positions(rules: Rules, n: int, seed: int, num_envs: int = 64) -> dict:
    """The first ``n`` decisions with a choice once every card is placed, of both seats,
    in games of ``expert_rules`` against itself as imitation plays them (a tenth of the
    moves random, ``ImitationConfig.explore``); ``obs``, ``legal`` (lists) and ``game``
    (the game each came from), in the order of their games."""
    cfg = ImitationConfig(num_envs=num_envs)
    probe = EndgameSolver(rules, last_card=True)
    talon_at_most_1 = SearchLabeler(rules, SearchConfig(pimc_talon=1))
    decisions = 8 * n
    while True:
        data = generate_positions(rules, decisions, cfg, None, seed, with_state=False,
                                  progress=False)
        order = np.argsort(data.game, kind="stable")  # each game's positions in a row
        cand = order[(data.counts[order] > 1) & talon_at_most_1.candidates(data.obs[order])]
        rows = [i for i in cand if probe.applies(fast_decode(data.obs[i], rules))]
        if len(rows) >= n:
            break
        decisions *= 2
    rows = rows[:n]
    return {"obs": [data.obs[i] for i in rows],
            "legal": [data.ids[i, : data.counts[i]].tolist() for i in rows],
            "game": [int(data.game[i]) for i in rows]}


def bench_label(rules: Rules, pos: dict, nodes: int) -> dict:
    labeler = SearchLabeler(rules, SearchConfig(endgame_nodes=nodes))
    searched = proven = 0
    start = time.perf_counter()
    for obs, legal in zip(pos["obs"], pos["legal"], strict=True):
        proven += labeler.label_set(obs, legal) is not None
        searched += int(labeler.solver.nodes[0])
    return _row(len(pos["obs"]), time.perf_counter() - start, searched, proven)


def bench_play(rules: Rules, pos: dict, nodes: int) -> dict:
    solver = EndgameSolver(rules, nodes, last_card=True, cheap_first=True)
    searched = proven = 0
    last = None
    start = time.perf_counter()
    for obs, legal, g in zip(pos["obs"], pos["legal"], pos["game"], strict=True):
        if g != last:
            solver.reset()
            last = g
        proven += solver.solve(fast_decode(obs, rules), legal) is not None
        searched += int(solver.nodes[0])
    return _row(len(pos["obs"]), time.perf_counter() - start, searched, proven)


def _row(n: int, seconds: float, nodes: int, proven: int) -> dict:
    return {"positions": n, "seconds": round(seconds, 2),
            "positions_per_s": round(n / seconds, 1), "nodes": nodes,
            "nodes_per_s": round(nodes / seconds), "proven": round(proven / n, 4)}


def run(positions: int = 3000, nodes: int = 50_000, seed: int = 0, deck_size: int = 36) -> dict:
    """Collect the positions, warm the solver's compiled code up, and time both modes."""
    rules = Rules(num_players=2, deck_size=deck_size)
    pos = end_game_positions(rules, positions, seed)
    warm = {k: v[:5] for k, v in pos.items()}
    bench_label(rules, warm, 1000), bench_play(rules, warm, 1000)
    return {"rules": rules.to_dict(), "nodes_cap": nodes, "seed": seed,
            "label": bench_label(rules, pos, nodes), "play": bench_play(rules, pos, nodes)}


def report(r: dict) -> str:
    lines = [f"{r['label']['positions']:,} end-game positions (seed {r['seed']}), "
             f"node cap {r['nodes_cap']:,} per move",
             f"{'mode':6} {'positions/s':>12} {'nodes':>14} {'nodes/s':>12} {'proven':>8}"]
    for mode in ("label", "play"):
        m = r[mode]
        lines.append(f"{mode:6} {m['positions_per_s']:>12,.1f} {m['nodes']:>14,} "
                     f"{m['nodes_per_s']:>12,} {100 * m['proven']:>7.1f}%")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=3000)
    ap.add_argument("--nodes", type=int, default=50_000, help="node cap per move")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deck-size", type=int, default=36, choices=(24, 36, 52))
    ap.add_argument("--json", metavar="PATH",
                    help="also write the figures, the command and the commit to PATH")
    args = ap.parse_args(argv)
    if args.positions < 1 or args.nodes < 1:
        print("solver_bench: error: --positions and --nodes must be >= 1", file=sys.stderr)
        return 2
    r = run(args.positions, args.nodes, args.seed, args.deck_size)
    print(report(r))
    if args.json:
        write_result(args.json, r, "agents.solver_bench", argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
