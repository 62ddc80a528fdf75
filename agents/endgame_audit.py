"""End-game audit: how often a two-player policy throws away a proven result.

    python -m agents.endgame_audit checkpoints/ppo_2p_podkidnoy.pt [--opponent expert_rules]
        [--games 2000] [--seed 1] [--nodes 50000]

Plays ``--games`` games of the checkpoint's greedy policy (seats alternating) against a
batched opponent and, at every decision of the policy once every card is placed (talon
empty, or only the face-up trump left: open information with two players), solves every
legal move exactly. A decision is a *blunder* when the chosen move's game-theoretic value
is below the best move's (a win turned into a draw or a loss, or a draw into a loss).
Prints the decisions audited, the blunder rate with its 95% interval, and how many games
the policy entered with a proven win and still lost.

This measures what ``expert``'s end-game solver adds to a policy without playing
``expert``: a policy that never blunders here plays the end game as the solver does.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from agents.endgame import UNKNOWN, EndgameSolver  # noqa: E402
from agents.ppo import load_checkpoint  # noqa: E402
from agents.results import write_result  # noqa: E402
from agents.selfplay import play_against  # noqa: E402
from agents.stats import wilson  # noqa: E402
from agents.view import fast_decode  # noqa: E402


def audit(path: str, opponent: str = "expert_rules", games: int = 2000, seed: int = 1,
          nodes: int = 50_000, progress: bool = True) -> dict:
    """Play and audit; returns the counts that ``main`` prints."""
    net, _ = load_checkpoint(path)
    rules = net.rules
    if rules.num_players != 2:
        raise ValueError(f"the end-game audit needs a two-player checkpoint, got "
                         f"{rules.num_players} players")
    solver = EndgameSolver(rules, nodes, last_card=True, cheap_first=True)
    entered = np.full(games, -2)  # proven value of the first audited position, per game
    counts_by = {"decisions": 0, "choices": 0, "unsolved": 0, "blunders": 0,
                 "win_to_loss": 0}

    def on_decision(obs, ids, counts, rows, actions):
        for g in rows:
            _audit_one(solver, rules, obs[g], ids[g, : counts[g]], int(actions[g]),
                       counts_by, entered, g)

    bar = _bar(games, progress)
    result, _ = play_against(net, rules, opponent, games, seed, greedy=True,
                             on_decision=on_decision, bar=bar)
    bar.close()
    won_entry = entered == 1
    return {**counts_by, "games": games, "wins": int((result > 0).sum()),
            "entered_won": int(won_entry.sum()),
            "entered_won_lost": int((won_entry & (result < 0)).sum()),
            "entered_lost": int((entered == -1).sum()),
            "entered_lost_won": int(((entered == -1) & (result > 0)).sum())}


def _audit_one(solver, rules, obs, legal, chosen, c, entered, g) -> None:
    v = fast_decode(obs, rules)
    if not solver.applies(v):
        return
    c["decisions"] += 1
    order = [int(a) for a in legal]
    solver.reset()
    solver.load(v)
    values = solver.root_values(order, solver.max_nodes)
    if (values == UNKNOWN).any():
        c["unsolved"] += 1
        return
    best, mine = int(values.max()), int(values[order.index(chosen)])
    if entered[g] == -2:
        entered[g] = best
    if len(order) < 2:
        return
    c["choices"] += 1
    if mine < best:
        c["blunders"] += 1
        c["win_to_loss"] += int(best == 1 and mine == -1)


def _bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", disable=not enabled, file=sys.stderr)


def report(r: dict) -> str:
    lo, hi = wilson(r["blunders"], max(r["choices"], 1))
    rate = r["blunders"] / max(r["choices"], 1)
    return "\n".join([
        f"games {r['games']:,}, policy wins {r['wins']:,} ({100 * r['wins'] / r['games']:.1f}%)",
        f"end-game decisions {r['decisions']:,} (every card placed), with a choice "
        f"{r['choices']:,}, not solved within the node cap {r['unsolved']:,}",
        f"blunders {r['blunders']:,}: {100 * rate:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}] of "
        f"decisions with a choice ({r['win_to_loss']:,} turned a win into a loss)",
        f"games entered with a proven win {r['entered_won']:,}, lost anyway "
        f"{r['entered_won_lost']:,}; entered with a proven loss {r['entered_lost']:,}, "
        f"won anyway {r['entered_lost_won']:,}",
    ])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--opponent", default="expert_rules",
                    help="opponent spec, batched if expert_rules (default expert_rules)")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=50_000, help="node cap per move")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--json", metavar="PATH",
                    help="also write the counts, the command and the commit to PATH")
    args = ap.parse_args(argv)
    if args.games < 1 or args.nodes < 1:
        print("endgame_audit: error: --games and --nodes must be >= 1", file=sys.stderr)
        return 2
    try:
        r = audit(args.checkpoint, args.opponent, args.games, args.seed, args.nodes,
                  not args.no_progress)
    except (FileNotFoundError, ValueError) as e:
        print(f"endgame_audit: error: {e}", file=sys.stderr)
        return 2
    print(report(r))
    if args.json:
        write_result(args.json, r, "agents.endgame_audit", argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
