"""A tournament's output: the printed tables, CSV and JSON files, plots, game records."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os

import numpy as np

from durak_env.records import save_record

from .play import GameResult
from .summary import Summary


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


def write_outputs(out: str, s: Summary, config: dict, recorded: list[dict] = (),
                  plots: bool = True) -> None:
    """CSV, JSON and (with ``plots``) PNG plots into the directory ``out``.

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
    if plots:
        _plot(out, s)


def _write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _label(spec: str, width: int = 32) -> str:
    """An agent spec for a plot's axis: broken after its commas into lines of about
    ``width`` characters, so that long specs (a checkpoint with its searches) fit."""
    lines = [""]
    for piece in spec.split(","):
        if lines[-1] and len(lines[-1]) + len(piece) + 1 > width:
            lines[-1] += ","
            lines.append(piece)
        else:
            lines[-1] += ("," if lines[-1] else "") + piece
    return "\n".join(lines)


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
    labels = [_label(spec) for spec in s.specs]
    ax.set_xticks(range(k), labels, rotation=45, ha="right")
    ax.set_yticks(range(k), labels)
    for i, j in itertools.product(range(k), range(k)):
        if not np.isnan(rate[i, j]):
            ax.text(j, i, f"{100 * rate[i, j]:.0f}", ha="center", va="center")
    ax.set_title("win % of row agent against column agent (decided games)")
    fig.colorbar(im, ax=ax)
    fig.savefig(os.path.join(out, "heatmap.png"), dpi=110, bbox_inches="tight")
    plt.close(fig)
    order = np.argsort(s.elo)
    fig, ax = plt.subplots(figsize=(7, 0.5 * k + 1.5))
    ax.errorbar(s.elo[order], range(k), xerr=1.96 * s.elo_se[order], fmt="o", capsize=4)
    ax.set_yticks(range(k), [labels[i] for i in order])
    ax.set_xlabel("Bradley-Terry rating (Elo scale, mean 0), 95% interval")
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(os.path.join(out, "ratings.png"), dpi=110, bbox_inches="tight")
    plt.close(fig)
