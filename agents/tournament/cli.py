"""The command line: ``python -m agents.tournament --agents A,B ...`` (``--help``)."""

from __future__ import annotations

import argparse
import os
import time

from durak_env.checks import check_writable_dir
from durak_env.cli import ArgumentParser, add_rules_arguments, count, rules_from_args
from durak_env.cli import seed as seed_arg

from ..registry import make_agent
from ..results import provenance
from .play import connect_ray, run
from .report import format_tables, write_outputs, write_records
from .scheduling import schedule
from .summary import Summary, summarize


def _package_doc() -> str:
    from . import __doc__ as doc  # the package docstring describes the design

    return doc


def _parser() -> ArgumentParser:
    p = ArgumentParser(prog="python -m agents.tournament", description=_package_doc(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agents", required=True,
                   help="comma-separated agent specs with parameters after a colon, "
                        "e.g. 'expert:w_pairs=0.5,w_trump=1,greedy,random'")
    add_rules_arguments(p)
    p.add_argument("--games", type=count(1), default=1000,
                   help="games per agent pair (2 players) or in total (more players)")
    p.add_argument("--workers", type=count(1), default=1, help="worker processes (default 1)")
    p.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                   help="play the games as Ray tasks instead of worker processes (needs the "
                        "ray extra): alone, on a Ray started in this process; 'auto' or "
                        "HOST:PORT, on a running cluster (docs/cluster.md)")
    p.add_argument("--seed", type=seed_arg, default=0, help="an int in 0..2**64-1 (default 0)")
    p.add_argument("--out", help="output directory (default runs/tournament_<time>)")
    p.add_argument("--record", type=count(0), default=0, metavar="N",
                   help="save the first N games of the schedule as JSON game records in "
                        "OUT/records/game_00000.json, ... (replay one with "
                        "python -m durak_env.replay FILE); results.json lists them")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--no-plots", action="store_true",
                   help="skip the PNG plots (the CSV and JSON results are written all the same)")
    return p


def parse_args(argv=None):
    return _parser().parse_args(argv)


def _setup(argv=None):
    """Parse and check everything a tournament needs before it plays a game: the rules,
    every agent spec (built once), the schedule and the output directory. A bad argument
    is one line on stderr and exit status 2 (``SystemExit``)."""
    p = _parser()
    args = p.parse_args(argv)
    try:
        rules = rules_from_args(args)
        specs = split_specs(args.agents)
        if not specs:
            raise ValueError(f"--agents names no agent: {args.agents!r}")
        for spec in specs:
            make_agent(spec, rules)
        schedule(len(specs), rules.num_players, 1)
        if args.ray is not None:
            if args.workers > 1:
                raise ValueError("--workers and --ray exclude each other: on Ray every CPU "
                                 "of the cluster is a worker")
            connect_ray(args.ray)
        out = args.out or os.path.join("runs", time.strftime("tournament_%Y%m%d_%H%M%S"))
        check_writable_dir("--out", out)
    except ValueError as e:
        p.error(str(e))
    return args, rules, specs, out


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


def main(argv=None) -> Summary:
    args, rules, specs, out = _setup(argv)
    made_by = provenance(argv)  # the code the games start with, whatever lands meanwhile
    t0 = time.time()
    results = run(rules, specs, args.games, args.seed, args.workers, not args.no_progress,
                  record=args.record, ray=args.ray)
    summary = summarize(specs, results)
    config = {**made_by, "agents": specs, "rules": rules.to_dict(), "games": args.games,
              "seed": args.seed, "workers": args.workers, "ray": args.ray, "played": len(results),
              "record": args.record, "seconds": round(time.time() - t0, 1)}
    print(f"{len(results)} games, {rules}, seed {args.seed}, {config['seconds']} s")
    print(format_tables(summary, rules.num_players))
    recorded = write_records(out, results)
    write_outputs(out, summary, config, recorded, plots=not args.no_plots)
    if recorded:
        print(f"{len(recorded)} game records written to {os.path.join(out, 'records')} "
              f"(replay: python -m durak_env.replay {os.path.join(out, recorded[0]['file'])})")
    print(f"written to {out}")
    return summary
