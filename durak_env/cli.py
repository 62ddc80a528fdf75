"""What every command line shares: one-line errors, argument types, the ``Rules`` flags.

    parser = ArgumentParser(prog="python -m durak_env.replay")
    add_rules_arguments(parser)
    args = parser.parse_args()
    rules = rules_from_args(args)        # ValueError naming the flag or file: parser.error(e)

Every bad argument of a command is one line on stderr, ``PROG: error: MESSAGE``, and exit
status 2: never a traceback, never output before it (``ArgumentParser.error``). The
argument types (``count``, ``seed``, ``positive_float``) refuse bad values while parsing.

``--players`` and the flags named after the other ``Rules`` fields (``--deck-size``,
``--variant``, ...) set those fields; ``--rules FILE`` reads a YAML file of Rules fields
(at the top level or under ``rules:``) that the flags then override. A flag left out
keeps the ``Rules`` default.
"""

from __future__ import annotations

import argparse
import dataclasses
import math

from .cards import DECK_SIZES
from .checks import check_seed
from .rules import THROW_IN, VARIANTS, Rules


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line (no usage block) and exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def count(lo: int):
    """An argparse type: an int >= ``lo``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an int >= {lo}, got {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {value}")
        return value

    parse.__name__ = f"int >= {lo}"
    return parse


def seed(text: str) -> int:
    """An argparse type: a seed, an int in 0..2**64-1 (``checks.check_seed``)."""
    try:
        return check_seed(int(text), allow_none=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a seed must be an int in 0..2**64-1, got {text!r}") from None


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def add_rules_arguments(parser: argparse.ArgumentParser, players: int = 2) -> None:
    """Add ``--players``, ``--rules`` and one flag per other ``Rules`` field to ``parser``.

    Args:
        parser: the command's parser.
        players: the default of ``--players``.
    """
    g = parser.add_argument_group("rules (docs/rules.md)")
    g.add_argument("--players", type=count(2), default=players,
                   help=f"number of players (default {players})")
    g.add_argument("--rules", metavar="FILE",
                   help="YAML file with Rules fields (top level or under 'rules:')")
    g.add_argument("--deck-size", type=int, choices=DECK_SIZES, help="default 36")
    g.add_argument("--hand-size", type=int, help="default 6")
    g.add_argument("--variant", choices=VARIANTS, help="default podkidnoy")
    g.add_argument("--throw-in", choices=THROW_IN, help="default all")
    g.add_argument("--max-attack", type=int, help="default 6")
    g.add_argument("--first-round-max-attack", type=int, help="default: max-attack")
    g.add_argument("--transfer-show-trump", action=argparse.BooleanOptionalAction, default=None,
                   help="perevodnoy: allow transferring by showing a trump")


# Every Rules field but num_players (``--players``) has a flag of the same name.
_FIELDS = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "num_players")


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The ``Rules`` of parsed arguments (see ``add_rules_arguments``).

    Raises:
        ValueError: an invalid combination, naming the field (``Rules`` checks it).
    """
    d: dict = _rules_file(args.rules) if args.rules else {}
    d["num_players"] = args.players
    for name in _FIELDS:
        value = getattr(args, name)
        if value is not None:
            d[name] = value
    return Rules.from_dict(d)


def _rules_file(path: str) -> dict:
    """The Rules fields of a ``--rules`` YAML file; ``ValueError`` naming the file if it
    cannot be read or holds no mapping of fields."""
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            loaded = yaml.safe_load(f)
    except OSError as e:
        raise ValueError(f"--rules {path}: cannot read it: {e.strerror or e}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as e:
        raise ValueError(f"--rules {path}: not a YAML file: {str(e).splitlines()[0]}") from None
    if isinstance(loaded, dict) and "rules" in loaded:
        loaded = loaded["rules"]
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ValueError(f"--rules {path}: expected a mapping of Rules fields, "
                         f"got {type(loaded).__name__}")
    return dict(loaded)
