"""Result files of the measuring commands: the figures wrapped with the command that
printed them, the commit and the date, which ``scripts/gen_docs.py`` renders."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

from durak_env.atomic import write_text

ROOT = Path(__file__).resolve().parent.parent


def write_result(path: str | Path, result: dict, module: str, argv=None) -> None:
    """Write ``result`` to ``path`` as ``{"command", "commit", "date", "result"}``, the
    command being ``python -m module`` with ``argv`` (``sys.argv[1:]`` if None)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    data = {"command": f"python -m {module} " + " ".join(argv), "commit": commit,
            "date": datetime.date.today().isoformat(), "result": result}
    write_text(path, json.dumps(data, indent=2) + "\n")
