"""Training speed and strength, local rollouts against Ray actors:
``python scripts/bench_ray_train.py [--actors 2] [--steps 1000000] [key=value ...]``.

Runs ``train.py`` on configs/default.yaml (plain PPO, no periodic evaluation) once with
``ray.actors=0`` and once with ``ray.actors=N``, one after the other, and writes each
run's median ``charts/SPS`` (the first update left out), its time split and its final win
rate against ``random`` to ``docs/results/ray_train_sps.json`` (``--out``), with the
machine's load average around each run: on a shared machine the figures are what they
were then. ``python scripts/gen_docs.py`` renders the file into docs/training.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from agents.results import commit

ROOT = Path(__file__).resolve().parent.parent
FIXED = ["imitation.positions=0", "distill.coef=0", "eval.every=0", "eval.final_games=2000",
         "eval.opponents=[random]", "logging.progress=false"]


def run(actors: int, steps: int, extra: list[str], runs_dir: str) -> dict:
    args = ["--config", "configs/default.yaml", *FIXED, f"ppo.total_timesteps={steps}",
            f"ray.actors={actors}", f"logging.runs_dir={runs_dir}/a{actors}", *extra]
    load0 = os.getloadavg()
    out = subprocess.run([sys.executable, "train.py", *args], cwd=ROOT, capture_output=True,
                         text=True)
    load1 = os.getloadavg()
    if out.returncode:
        sys.exit(f"train.py failed:\n{out.stderr[-3000:]}")
    print(out.stdout, end="", flush=True)
    (run_dir,) = Path(runs_dir, f"a{actors}").iterdir()
    summary = json.loads((run_dir / "final_eval.json").read_text())
    return {"args": " ".join(args), "actors": actors, "global_step": summary["global_step"],
            "sps_median": summary["speed"]["sps_median"],
            "time_share": summary["speed"]["time_share"],
            "train_seconds": summary["train_seconds"],
            "random": summary["final_eval"]["random"],
            "load_before": [round(x, 2) for x in load0], "load_after": [round(x, 2) for x in load1]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actors", type=int, default=2)
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "ray_train_sps.json"))
    ap.add_argument("--note", default="", help="what else ran on the machine")
    ap.add_argument("overrides", nargs="*", help="more train.py overrides")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        runs = [run(0, args.steps, args.overrides, tmp),
                run(args.actors, args.steps, args.overrides, tmp)]
    cmd = " ".join(["python scripts/bench_ray_train.py", f"--actors {args.actors}",
                    f"--steps {args.steps}", *args.overrides])
    res = {"command": cmd, "commit": commit(), "date": datetime.date.today().isoformat(),
           "cpus": os.cpu_count(), "note": args.note, "runs": runs,
           "sps_ratio": runs[1]["sps_median"] / runs[0]["sps_median"]}
    Path(args.out).write_text(json.dumps(res, indent=2) + "\n")
    print(f"SPS: local {runs[0]['sps_median']:,.0f}, {args.actors} actors "
          f"{runs[1]['sps_median']:,.0f} ({res['sps_ratio']:.2f}x); win rate vs random "
          f"{runs[0]['random']['winrate']:.3f} {runs[0]['random']['ci95']} and "
          f"{runs[1]['random']['winrate']:.3f} {runs[1]['random']['ci95']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
