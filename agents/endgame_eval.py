"""Compare end-game experts on the same labelled positions, without playing a game.

    python -m agents.endgame_eval POS.npz CKPT [CKPT ...] [--ensemble] [--all-rows]
        [--threads N] [--json PATH]

``POS.npz`` is a file of labelled positions written by ``python -m agents.endgame_expert
... --save-data POS.npz``: observations, legal lists and the best moves by the solver
(every card placed) or the sampled search (2-3 talon cards). For each checkpoint it
prints the share of *informative* positions (not every legal move is best) where the
policy, as it plays (its end-game expert, averaged over ``network.endgame_symmetries``
suit renamings), picks a move that is not among the best: overall with a 95% interval,
and by talon size. With more than one checkpoint each row also gives its difference to
the first on the same positions, with a paired 95% interval, so that a change smaller
than either interval can still be told apart. ``--ensemble`` adds the mean of the
checkpoints' log-probabilities as one more row.

By default only the positions of the file's held-out games count (``held``, which the
fit that wrote the file never trained on); ``--all-rows`` takes every position (a fit
that trained on them looks better than it is).
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402

from agents.endgame_expert import blunders, load_positions, log_probs  # noqa: E402
from agents.ppo import load_checkpoint  # noqa: E402
from agents.stats import Z95, wilson  # noqa: E402


def _rows(data: dict, all_rows: bool) -> np.ndarray:
    """The informative positions to judge on."""
    informative = data["good"].sum(1) < data["counts"]
    if all_rows:
        return np.flatnonzero(informative)
    if (data["held"] < 0).all():
        raise ValueError("the file has no held-out split (written before it was saved): "
                         "--all-rows judges on every position")
    return np.flatnonzero(informative & (data["held"] == 1))


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Mean of ``b - a`` (bool per row) with a normal 95% interval of paired rows."""
    d = b.astype(np.float64) - a.astype(np.float64)
    if len(d) < 2:
        return float(d.mean()) if len(d) else 0.0, -1.0, 1.0
    half = Z95 * float(d.std(ddof=1)) / math.sqrt(len(d))
    return float(d.mean()), float(d.mean()) - half, float(d.mean()) + half


def compare(data_path: str, checkpoints: list[str], ensemble: bool = False,
            all_rows: bool = False) -> dict:
    """The blunder rates of each checkpoint (and their ensemble) on the same positions."""
    nets = [load_checkpoint(p)[0] for p in checkpoints]
    first = nets[0]
    for path, net in zip(checkpoints, nets, strict=True):
        if net.rules != first.rules:
            raise ValueError(f"{path} is for other rules than {checkpoints[0]}")
        if net.endgame is None or not net.endgame.active:
            raise ValueError(f"{path} has no fitted end-game expert (python -m "
                             f"agents.endgame_expert fits one)")
    # the positions every expert plays: those of the smallest talon bound
    narrow = min(nets, key=lambda n: n.endgame.talon)
    data = load_positions(data_path, narrow)
    rows = _rows(data, all_rows)
    good = data["good"][rows]
    talon = np.rint(narrow.endgame.talon_sizes(data["obs"][rows])).astype(np.int64)
    sizes = [int(t) for t in np.unique(talon)]
    entries = [(path, log_probs(net, data, rows))
               for path, net in zip(checkpoints, nets, strict=True)]
    if ensemble and len(nets) > 1:
        entries.append(("ensemble", torch.stack([lp for _, lp in entries]).mean(0)))
    out, base = [], None
    for name, lp in entries:
        bad = blunders(lp, good)
        k = int(bad.sum())
        row = {"name": name, "positions": int(len(bad)), "blunders": k,
               "rate": k / max(len(bad), 1), "ci95": wilson(k, len(bad)),
               "by_talon": {str(t): [int((talon == t).sum()), float(bad[talon == t].mean())]
                            for t in sizes}}
        if base is None:
            base = bad
        else:
            row["difference"] = paired_difference(base, bad)
        out.append(row)
    return {"data": data_path, "held_out": not all_rows, "rows": out, "talons": sizes}


def table(r: dict) -> str:
    """The comparison as a Markdown table (rates in %)."""
    sizes = r["talons"]
    counts = {t: r["rows"][0]["by_talon"][str(t)][0] for t in sizes}
    head = (["expert", "informative positions", "blunders % [95% CI]", "vs the first"]
            + [f"talon {t} ({counts[t]:,})" for t in sizes])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in r["rows"]:
        lo, hi = row["ci95"]
        diff = ("" if "difference" not in row else
                "{:+.2f} [{:+.2f}, {:+.2f}]".format(*(100 * x for x in row["difference"])))
        cells = [f"`{row['name']}`", f"{row['positions']:,}",
                 f"{100 * row['rate']:.2f} [{100 * lo:.2f}, {100 * hi:.2f}]", diff]
        cells += [f"{100 * row['by_talon'][str(t)][1]:.2f}" for t in sizes]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.endgame_eval",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("data", metavar="POS.npz",
                    help="labelled positions (python -m agents.endgame_expert --save-data)")
    ap.add_argument("checkpoints", nargs="+", metavar="CKPT")
    ap.add_argument("--ensemble", action="store_true",
                    help="also the mean of the checkpoints' log-probabilities")
    ap.add_argument("--all-rows", action="store_true",
                    help="every position, not only those of the held-out games")
    ap.add_argument("--threads", type=int, default=None, help="torch threads")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH")
    args = ap.parse_args(argv)
    if args.threads is not None:
        if args.threads < 1:
            print("endgame_eval: error: --threads must be >= 1", file=sys.stderr)
            return 2
        torch.set_num_threads(args.threads)
    try:
        r = compare(args.data, args.checkpoints, args.ensemble, args.all_rows)
    except (FileNotFoundError, ValueError) as e:
        print(f"endgame_eval: error: {e}", file=sys.stderr)
        return 2
    which = "held-out" if r["held_out"] else "all"
    print(f"{args.data}: {r['rows'][0]['positions']:,} informative positions ({which} "
          f"games); blunders: the policy's move is not among the best")
    print(table(r))
    if args.json:
        import json

        from agents.results import provenance
        from durak_env.atomic import write_text

        write_text(args.json, json.dumps(dict(r, **provenance(argv, "agents.endgame_eval")),
                                         indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
