"""Ship a training run's checkpoint: ``python scripts/ship_checkpoint.py RUN_DIR NAME``.

Copies what the model card (``checkpoints/README.md``, rendered by
``scripts/gen_docs.py``) reads, and nothing else of the run directory:

- ``checkpoints/NAME.pt``: the run's ``final.pt`` (``--latest``: ``latest.pt``) without
  the optimizer state and the snapshot pool, with the imitation report and the
  machine it was trained on;
- ``checkpoints/NAME.yaml``: the run's resolved config;
- ``checkpoints/NAME_evals.jsonl`` and ``NAME_strength.png``: the evaluations during
  training and the time-to-strength plot (``python -m agents.strength``);
- ``checkpoints/NAME_curves.png``: the training curves (``--finetuned``, a run of
  ``python -m agents.finetune``: ``NAME_finetune_curves.png``, the fine-tuning's).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def machine() -> dict:
    import numba
    import torch

    return {"cpus": os.cpu_count(), "gpu": torch.cuda.is_available(),
            "torch": torch.__version__, "numba": numba.__version__,
            "python": platform.python_version(), "platform": platform.platform()}


def _commit() -> str:
    import subprocess

    out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="training run directory")
    ap.add_argument("name", help="checkpoint name, e.g. ppo_2p_podkidnoy")
    ap.add_argument("--latest", action="store_true", help="ship latest.pt instead of final.pt")
    ap.add_argument("--command", action="append", default=[], metavar="CMD",
                    help="a command that trained the run, in order (repeat for --resume steps)")
    ap.add_argument("--finetuned", action="store_true",
                    help="a run of python -m agents.finetune: its curves (the fine-tuning "
                         "only) go to NAME_finetune_curves.png")
    args = ap.parse_args(argv)
    import torch

    from agents.ppo_plot import plot_run
    from agents.strength import main as strength

    run = Path(args.run)
    src = run / "checkpoints" / ("latest.pt" if args.latest else "final.pt")
    if not src.is_file():
        print(f"ship_checkpoint: error: {src} does not exist", file=sys.stderr)
        return 2
    data = torch.load(src, map_location="cpu", weights_only=False)
    data["optimizer"], data["pool"] = None, None
    if (run / "imitation.json").is_file():
        rep = json.loads((run / "imitation.json").read_text())
        data["imitation"] = {k: v for k, v in rep.items() if k != "history"}
    if (run / "endgame.json").is_file():
        data["endgame"] = json.loads((run / "endgame.json").read_text())
    data["machine"] = machine()
    data["provenance"] = {"commands": args.command, "commit": _commit()}
    out = ROOT / "checkpoints"
    tmp = out / f"{args.name}.pt.tmp"
    torch.save(data, tmp)
    tmp.replace(out / f"{args.name}.pt")
    shutil.copy(run / "config.yaml", out / f"{args.name}.yaml")
    shutil.copy(run / "evals.jsonl", out / f"{args.name}_evals.jsonl")
    strength([str(run), "--out", str(out / f"{args.name}_strength.png")])
    # a run of agents.finetune logged the fine-tuning only: the PPO curves already shipped stay
    curves = "finetune_curves" if args.finetuned else "curves"
    plot_run(run, out / f"{args.name}_{curves}.png")
    for png in ("strength", curves):  # the docs site shows them on the training page
        shutil.copy(out / f"{args.name}_{png}.png", ROOT / "docs" / f"{args.name}_{png}.png")
    print(f"shipped {src} as checkpoints/{args.name}.pt; now run python scripts/gen_docs.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
