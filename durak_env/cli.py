"""The ``Rules`` options of every command line: one set of flags, one way to read them.

    parser = argparse.ArgumentParser()
    add_rules_arguments(parser)
    rules = rules_from_args(parser.parse_args())

``--players`` and the flags named after the other ``Rules`` fields (``--deck-size``,
``--variant``, ...) set those fields; ``--rules FILE`` reads a YAML file of Rules fields
(at the top level or under ``rules:``) that the flags then override. A flag left out
keeps the ``Rules`` default.
"""

from __future__ import annotations

import argparse
import dataclasses

from .cards import DECK_SIZES
from .rules import THROW_IN, VARIANTS, Rules


def add_rules_arguments(parser: argparse.ArgumentParser, players: int = 2) -> None:
    """Add ``--players``, ``--rules`` and one flag per other ``Rules`` field to ``parser``.

    Args:
        parser: the command's parser.
        players: the default of ``--players``.
    """
    g = parser.add_argument_group("rules (docs/rules.md)")
    g.add_argument("--players", type=int, default=players,
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
    d: dict = {}
    if args.rules:
        import yaml

        with open(args.rules) as f:
            loaded = yaml.safe_load(f) or {}
        d.update(loaded.get("rules", loaded))
    d["num_players"] = args.players
    for name in _FIELDS:
        value = getattr(args, name)
        if value is not None:
            d[name] = value
    return Rules.from_dict(d)
