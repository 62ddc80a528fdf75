"""Files written whole or not at all: a temporary file in the same directory, then a rename.

A process killed at any moment (even by SIGKILL, in the middle of a write) leaves either
the previous file or the new one, never a truncated mix: checkpoints, run configs, game
records and result files are all written through ``atomic_write``. A killed writer may
leave its temporary file (``.NAME.<random>.tmp``) beside the target; nothing reads it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_write(path: str | Path, binary: bool = False) -> Iterator[IO]:
    """Open a temporary file for writing; on a clean exit it replaces ``path`` atomically.

    The data is flushed to disk before the rename, and the directory entry after it, so
    a crash of the machine cannot leave an empty file either. On an exception the
    temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    # os.open with mode 0o666 lets the umask decide the permissions, as open() does.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})
                       ) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def write_text(path: str | Path, text: str) -> Path:
    """``Path.write_text``, atomically (UTF-8)."""
    with atomic_write(path) as f:
        f.write(text)
    return Path(path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # not possible on every platform; the rename itself is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
