"""Time to strength: win rates of a training run over steps and wall-clock.

    python -m agents.strength runs/ppo_2p_podkidnoy__1__1700000000 [RUN_DIR ...]
        [--opponents expert_rules,expert] [--target 0.55] [--budget MINUTES]
        [--out strength.png]
    python -m agents.strength checkpoints/ppo_2p_podkidnoy_evals.jsonl

Reads each run's ``evals.jsonl`` (one line per evaluation during training, written by
``agents.ppo_train``; evaluation time is not counted in the wall-clock), or such a file
itself (a shipped checkpoint's ``NAME_evals.jsonl``), prints a table
of the win rates with their 95% intervals, the first evaluation at or above
``--target`` against the last opponent, and plots win rate against environment steps
and against wall-clock minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def evals_path(run: str | Path) -> Path:
    """``run``'s ``evals.jsonl`` if it is a directory, else ``run`` itself (a ``.jsonl``)."""
    run = Path(run)
    if run.is_dir():
        path = run / "evals.jsonl"
        if not path.is_file():
            raise FileNotFoundError(f"{run} has no evals.jsonl (not a training run directory?)")
        return path
    if not run.exists():
        raise FileNotFoundError(f"{run} does not exist")
    if run.suffix != ".jsonl":
        raise FileNotFoundError(f"{run} is neither a training run directory nor an evaluations "
                                "file (.jsonl)")
    return run


def _name_and_plot(run: str | Path) -> tuple[str, Path]:
    """How a run is named in the table and legend, and where its plot goes by default:
    ``RUN_DIR`` and ``RUN_DIR/strength.png``; ``X/NAME_evals.jsonl``: ``NAME`` and
    ``X/NAME_strength.png``."""
    run = Path(run)
    if run.is_dir():
        return run.name, run / "strength.png"
    prefix = run.stem.removesuffix("evals")
    return (prefix.rstrip("_") or run.parent.name), run.with_name(prefix + "strength.png")


def read_evals(run_dir: str | Path) -> list[dict]:
    """The evaluations of a run (its directory or its evaluations file), in order."""
    path = evals_path(run_dir)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("detail")]


def table(evals: list[dict], opponents: list[str]) -> str:
    head = "| update | steps | minutes | " + " | ".join(f"vs {o} [95% CI]" for o in opponents)
    rows = [head + " |", "|---" * (3 + len(opponents)) + "|"]
    for r in evals:
        cells = []
        for o in opponents:
            if o in r:
                lo, hi = r["detail"][o]["ci95"]
                cells.append(f"{100 * r[o]:.1f} [{100 * lo:.1f}, {100 * hi:.1f}] "
                             f"({r['detail'][o]['games']})")
            else:
                cells.append("-")
        rows.append(f"| {r.get('update', '-')} | {r['global_step']:,} | "
                    f"{r.get('elapsed', 0) / 60:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def first_reaching(evals: list[dict], opponent: str, target: float) -> dict | None:
    """The first evaluation whose win rate against ``opponent`` is at least ``target``."""
    return next((r for r in evals if r.get(opponent, -1) >= target), None)


def plot(runs: dict[str, list[dict]], opponents: list[str], out: Path,
         target: float | None = None, budget: float | None = None) -> None:
    """Write ``figure`` of the runs to ``out``."""
    fig = figure(runs, opponents, target, budget)  # selects the Agg backend first
    import matplotlib.pyplot as plt

    fig.savefig(out, dpi=110)
    plt.close(fig)


def figure(runs: dict[str, list[dict]], opponents: list[str], target: float | None = None,
           budget: float | None = None):
    """Win rate against steps and against minutes. One run: a colour per opponent. Several:
    a colour per run and a line style per opponent (solid for the last), the legend beside
    the axes. ``target``: a dotted line at that win rate; ``budget``: a dotted line at that
    many minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    several = len(runs) > 1
    fig, axes = plt.subplots(1, 2, figsize=(13 if several else 11, 4.5 if several else 4),
                             sharey=True)
    cmap = plt.get_cmap("tab20" if len(runs) > 10 else "tab10")
    styles = {o: "-" if i == len(opponents) - 1 else "--" for i, o in enumerate(opponents)}
    for k, (name, evals) in enumerate(runs.items()):
        for o in opponents:
            pts = [r for r in evals if o in r]
            if not pts:
                continue
            lo = [r["detail"][o]["ci95"][0] for r in pts]
            hi = [r["detail"][o]["ci95"][1] for r in pts]
            label = f"{name}: vs {o}" if several else f"vs {o}"
            style = {"color": cmap(k % cmap.N), "ls": styles[o]} if several else {}
            for ax, xs in ((axes[0], [r["global_step"] / 1e6 for r in pts]),
                           (axes[1], [r.get("elapsed", 0) / 60 for r in pts])):
                line, = ax.plot(xs, [r[o] for r in pts], marker=".", ms=4, label=label, **style)
                ax.fill_between(xs, lo, hi, alpha=0.12 if several else 0.2,
                                color=line.get_color())
    axes[0].set_xlabel("environment steps (millions)")
    axes[1].set_xlabel("wall-clock minutes of training")
    axes[0].set_ylabel("win rate (95% interval)")
    for ax in axes:
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        if target is not None:
            ax.axhline(target, color="black", lw=0.9, ls=":", label=None)
        ax.grid(alpha=0.3)
    if target is not None:
        axes[0].annotate(f"target {target:.0%}", (0, target), xycoords=("axes fraction", "data"),
                         xytext=(4, 3), textcoords="offset points", fontsize=8)
    if budget is not None:
        axes[1].axvline(budget, color="black", lw=0.9, ls=":")
        axes[1].annotate(f"{budget:g} min", (budget, 0), xycoords=("data", "axes fraction"),
                         xytext=(3, 4), textcoords="offset points", fontsize=8)
    if several:
        axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    else:
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    return fig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.strength",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="RUN_DIR",
                    help="training run directories, or their evaluations files (.jsonl)")
    ap.add_argument("--opponents", default="expert_rules,expert",
                    help="comma-separated opponents to show (default: expert_rules,expert)")
    ap.add_argument("--target", type=float, default=None,
                    help="report the first evaluation at or above this win rate against the "
                         "last opponent (default 0.55); given, it is also marked on the plot")
    ap.add_argument("--budget", type=float, default=None, metavar="MINUTES",
                    help="mark this many minutes of training on the plot (e.g. a time budget)")
    ap.add_argument("--out", default=None,
                    help="plot file (default RUN_DIR/strength.png, or NAME_strength.png beside "
                         "NAME_evals.jsonl)")
    args = ap.parse_args(argv)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not opponents:
        ap.error("--opponents is empty")
    target = 0.55 if args.target is None else args.target
    if not 0 < target <= 1:
        ap.error(f"--target must be in (0, 1], got {args.target}")
    if args.budget is not None and not args.budget > 0:
        ap.error(f"--budget must be a positive number of minutes, got {args.budget}")
    runs = {}
    for d in args.runs:
        try:
            runs[_name_and_plot(d)[0]] = read_evals(d)
        except (FileNotFoundError, json.JSONDecodeError) as e:
            print(f"agents.strength: error: {e}", file=sys.stderr)
            return 2
    for name, evals in runs.items():
        print(f"## {name}\n\n{table(evals, opponents)}\n")
        hit = first_reaching(evals, opponents[-1], target)
        if hit is None:
            print(f"never reached {target:.0%} against {opponents[-1]}\n")
        else:
            print(f"first at or above {target:.0%} against {opponents[-1]}: "
                  f"{hit['global_step']:,} steps, {hit.get('elapsed', 0) / 60:.1f} minutes\n")
    out = Path(args.out) if args.out else _name_and_plot(args.runs[0])[1]
    plot(runs, opponents, out, args.target, args.budget)
    print(f"plot: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
