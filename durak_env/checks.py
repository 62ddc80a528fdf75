"""Argument checks shared by every entry point: one rule per kind of value, one message.

A wrong type raises ``TypeError``, a value out of range ``ValueError``; either way the
message starts with the name of the offending argument or field and ends with the value
that was given. The command lines (``durak_env.cli``) turn both into one line on stderr
and exit status 2.

Seeds: every seed of the project (``Game.new``, the environments' ``reset`` and
constructors, agent seeds, ``train.py``'s ``seed``, the ``--seed`` of the command lines)
is an int in ``0..2**64-1``, the range of the engine's 64-bit RNG state, or None where
the caller documents that None draws fresh entropy. Negative seeds and seeds of 2**64 or
more are refused rather than wrapped, so no two seeds name the same game.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

SEED_MAX = 2**64 - 1


def is_int(value) -> bool:
    """A Python or numpy integer, and not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def check_seed(seed, name: str = "seed", *, allow_none: bool = True) -> int | None:
    """``seed`` as a Python int in ``0..2**64-1`` (None passes through when allowed).

    Raises:
        TypeError: not an int (bools and floats are not seeds).
        ValueError: negative, or 2**64 or more.
    """
    if seed is None and allow_none:
        return None
    if not is_int(seed):
        none = " or None" if allow_none else ""
        raise TypeError(f"{name} must be an int in 0..2**64-1{none}, got {seed!r}")
    if not 0 <= seed <= SEED_MAX:
        raise ValueError(f"{name} must be in 0..2**64-1, got {int(seed)}")
    return int(seed)


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    """``value`` as a Python int in ``lo..hi`` (``hi`` None: no upper bound)."""
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        top = "" if hi is None else f"..{hi}"
        raise ValueError(f"{name} must be {'>= ' + str(lo) if hi is None else f'in {lo}{top}'}, "
                         f"got {int(value)}")
    return int(value)


def check_bool(name: str, value) -> bool:
    """A bool (Python or numpy); ints and strings such as ``"no"`` are refused."""
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_number(name: str, value, lo: float | None = None) -> float:
    """A finite real number (not a bool), at least ``lo`` if given, as a float."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number) \
            or isinstance(value, complex | np.complexfloating):
        raise TypeError(f"{name} must be a number, got {value!r}")
    f = float(value)
    if not math.isfinite(f):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if lo is not None and f < lo:
        raise ValueError(f"{name} must be >= {lo}, got {value!r}")
    return f


def check_writable_dir(name: str, path: str | Path) -> Path:
    """Create directory ``path`` (and its parents) if needed; raise ``ValueError`` naming
    ``name`` if that fails or if it exists and files cannot be created in it."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write_test_{np.random.SeedSequence().entropy % 10**9}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ValueError(f"{name}: cannot write to {str(path)!r}: "
                         f"{e.strerror or e}") from None
    return path
