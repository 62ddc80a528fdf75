"""Result files of the measuring commands: the figures wrapped with the command that
printed them, the commit and the date, which ``scripts/gen_docs.py`` renders."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from durak_env.atomic import write_text


def commit() -> str | None:
    """The checkout's ``git describe --always --dirty`` (None outside git), so a result
    made from uncommitted code says so."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"],
                              cwd=here, capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def provenance(argv=None, prog: str = "agents.tournament") -> dict:
    """The command (``python -m prog`` with ``argv``, ``sys.argv[1:]`` if None), commit
    (``commit()``) and date that produce a result, for its results file."""
    args = sys.argv[1:] if argv is None else list(argv)
    return {"command": shlex.join(["python", "-m", prog, *args]),
            "commit": commit(), "date": time.strftime("%Y-%m-%d")}


def write_result(path: str | Path, result: dict, module: str, argv=None) -> None:
    """Write ``result`` to ``path`` as ``{"command", "commit", "date", "result"}``
    (``provenance`` of ``python -m module`` with ``argv``)."""
    write_text(path, json.dumps({**provenance(argv, module), "result": result}, indent=2) + "\n")
