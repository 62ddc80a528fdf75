"""Training speed with and without search distillation: ``python scripts/bench_train.py``.

Runs ``train.py`` twice on one config, PPO only (no imitation stage, no KL, no
evaluation), once with ``distill.coef=0`` and once with ``distill.coef=1``, and writes the
median SPS that ``train.py`` prints to ``docs/results/train_sps.json`` (rendered in
``docs/training.md`` by ``scripts/gen_docs.py``). ``--logs A B`` reads the logs of two runs
made with exactly these commands instead of running them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from agents.results import commit

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "results" / "train_sps.json"
VARIANTS = {"ppo": "distill.coef=0", "ppo + distillation": "distill.coef=1"}
SPS = re.compile(r"SPS median ([\d,]+) env steps/s; time: (.*)")
TRAINED = re.compile(r"trained (\d+) steps in (\d+) s")


def command(config: str, steps: int, variant: str) -> list[str]:
    return ["python", "train.py", "--config", config, "imitation.positions=0",
            "ppo.kl_coef=0", f"ppo.total_timesteps={steps}", "eval.every=0",
            "eval.final_games=0", "logging.progress=false", VARIANTS[variant]]


def parse(log: str) -> dict:
    """The SPS line and the step count of one ``train.py`` log."""
    sps, trained = SPS.search(log), TRAINED.search(log)
    if not (sps and trained):
        raise SystemExit("error: the log has no 'SPS median' and 'trained N steps' lines")
    return {"sps_median": int(sps.group(1).replace(",", "")), "time_split": sps.group(2),
            "steps": int(trained.group(1)), "seconds": int(trained.group(2))}


def run(cmd: list[str]) -> str:
    with tempfile.TemporaryDirectory() as runs:
        done = subprocess.run([sys.executable, *cmd[1:], f"logging.runs_dir={runs}"],
                              cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/ppo_2p_podkidnoy.yaml")
    ap.add_argument("--steps", type=int, default=1_600_000)
    ap.add_argument("--logs", nargs=2, metavar=("PPO_LOG", "DISTILL_LOG"),
                    help="parse these two logs (made with the printed commands) instead")
    ap.add_argument("--commit", help="with --logs: the commit the logged runs used")
    ap.add_argument("--note", default="", help="e.g. what else ran on the machine")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    results = {}
    for i, variant in enumerate(VARIANTS):
        cmd = command(args.config, args.steps, variant)
        print(" ".join(cmd), flush=True)
        log = Path(args.logs[i]).read_text() if args.logs else run(cmd)
        results[variant] = {"command": " ".join(cmd), **parse(log)}
        print(f"  {results[variant]['sps_median']:,} SPS", flush=True)
    data = {"command": f"python scripts/bench_train.py --config {args.config} --steps {args.steps}",
            "commit": (args.commit if args.logs and args.commit else commit()),
            "date": datetime.date.today().isoformat(), "note": args.note, "result": results}
    Path(args.out).write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
