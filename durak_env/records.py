"""Game records: one game as JSON (rules, deal, moves with seats), and its replay.

A record is a plain dict that ``json`` can write::

    {
      "format": "durak-record",
      "version": 1,
      "rules": {"num_players": 2, "deck_size": 36, ...},     # Rules.to_dict()
      "deal": {"hands": [[...], [...]], "talon": [...],        # Game.deal_record:
               "discard": [], "trump": "S", "first_attacker": 0},  # from_deal keywords
      "moves": [[0, "play 7C"], [1, "beat 7C KC"], [2, "pass"], ...],
      "result": {"over": true, "durak": 1, "out_order": [0], "rewards": [1.0, -1.0]},
      "meta": {...}                                            # optional, free-form
    }

``moves`` is the complete history, exactly ``Game.history``: every decision *and*
every forced move (docs/rules.md section 4), in order. Keeping the forced moves makes a
record readable on its own, and replaying checks each of them against the move the
engine applies by itself, so a record that does not describe this engine's game is
rejected rather than silently replayed into another game. A record may stop in the
middle of a game (an abandoned game); ``result`` then has ``"over": false``.
``result`` and ``meta`` are optional when reading; a ``result`` that is present
must match the replay.

This module knows the format and checks it; replaying a record is ``Game``'s job
(``Game.from_record`` and ``durak_env.game.iter_replay``), which uses the checks here.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import atomic
from .cards import format_card, parse_card
from .deal import DEAL_KEYS
from .rules import Rules

FORMAT = "durak-record"
VERSION = 1
_KEYS = ("format", "version", "rules", "deal", "moves", "result", "meta")


def to_record(game, meta: dict | None = None) -> dict:
    """The record of a ``Game`` (see the module docstring).

    Args:
        game: the game, at any point (finished or not).
        meta: free-form JSON-able extras, e.g. the players and the seed.
    """
    record = {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "deal": {k: _plain(v) for k, v in game.deal_record.items()},
        "moves": [[int(seat), move] for seat, move in game.history],
        "result": result_of(game),
    }
    if meta:
        record["meta"] = dict(meta)
    return record


def _plain(value):
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, str) else int(value)


def result_of(game) -> dict:
    """The ``result`` entry of a game's record."""
    return {
        "over": game.over,
        "durak": game.durak,
        "out_order": game.out_order,
        "rewards": game.rewards,
    }


def read_record(record: dict) -> tuple[Rules, dict, list[tuple[int, str]]]:
    """Check a record's header, rules, deal keys and moves; return (rules, deal, moves).

    ``deal`` holds the ``Game.from_deal`` keywords, not yet checked as a position.

    Raises:
        ValueError: naming the field that is wrong.
    """
    moves = _check_moves(record)
    rules = _rules(record["rules"])
    check_players(record, rules)
    deal = record["deal"]
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict of Game.from_deal keywords, got {deal!r}")
    unknown = [k for k in deal if k not in DEAL_KEYS]
    if unknown:
        raise ValueError(f"deal: unknown key(s) {unknown}; valid keys: {list(DEAL_KEYS)}")
    if "hands" not in deal:
        raise ValueError("deal: 'hands' is missing")
    return rules, deal, moves


def _check_header(record):
    if not isinstance(record, dict):
        raise ValueError(f"a game record must be a dict, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise ValueError(
            f"not a game record: format must be {FORMAT!r}, got {record.get('format')!r}"
        )
    version = record.get("version")
    if type(version) is not int or version != VERSION:  # ``true == 1`` is no version
        raise ValueError(
            f"unsupported record version {record.get('version')!r} "
            f"(this reader knows version {VERSION})"
        )
    missing = [k for k in ("rules", "deal", "moves") if k not in record]
    if missing:
        raise ValueError(f"game record is missing {missing}")
    unknown = [k for k in record if k not in _KEYS]
    if unknown:
        raise ValueError(f"game record has unknown key(s) {unknown}; valid keys: {list(_KEYS)}")
    _check_meta(record.get("meta"))


def _check_meta(meta):
    """``meta`` is free-form, but an object; its ``players``, which the replay prints, are
    names (strings)."""
    if meta is None:
        return
    if not isinstance(meta, dict):
        raise ValueError(f"meta must be a dict (a JSON object), got {type(meta).__name__}")
    players = meta.get("players")
    if players is not None and (
            not isinstance(players, list) or not all(isinstance(p, str) for p in players)):
        raise ValueError(f"meta.players must be a list of names, one per seat, got {players!r}")


def check_players(record, rules) -> None:
    """``meta.players``, if present, names every seat of ``rules``."""
    players = (record.get("meta") or {}).get("players")
    if players is not None and len(players) != rules.num_players:
        raise ValueError(f"meta.players must name {rules.num_players} seats "
                         f"(rules.num_players), got {len(players)}")


def _rules(data) -> Rules:
    if not isinstance(data, dict):
        raise ValueError(f"rules must be a dict of Rules fields, got {data!r}")
    try:
        return Rules.from_dict(data)
    except (ValueError, TypeError) as e:
        raise ValueError(f"rules: {e}") from None


def _check_moves(record) -> list[tuple[int, str]]:
    _check_header(record)
    moves = record["moves"]
    if not isinstance(moves, list):
        raise ValueError(f"moves must be a list of [seat, move] pairs, got {type(moves).__name__}")
    out = []
    for i, m in enumerate(moves):
        ok = isinstance(m, list | tuple) and len(m) == 2 and isinstance(m[1], str)
        if not ok or isinstance(m[0], bool) or not isinstance(m[0], int):
            raise ValueError(
                f'moves[{i}] must be a [seat, move] pair such as [0, "play 7C"], got {m!r}'
            )
        out.append((m[0], m[1]))
    return out


def check_forced(moves, start, history):
    """The engine's forced moves ``history[start:]`` must be what the record says."""
    for j in range(start, len(history)):
        if j >= len(moves):
            break  # the record stops here (an abandoned game, or the engine's last moves)
        seat, move = moves[j]
        if (seat, _canonical(move)) != history[j]:
            raise ValueError(
                f"moves[{j}]: the record has seat {seat}: {move!r}, but here the engine "
                f"applies the forced move seat {history[j][0]}: {history[j][1]!r} "
                "(records list every move, forced ones included)"
            )


def _canonical(move: str) -> str:
    words = move.split()
    if not words:
        return move
    try:
        return " ".join([words[0].lower()] + [format_card(parse_card(w)) for w in words[1:]])
    except ValueError:
        return move


def check_result(record, game):
    """A ``result`` present in the record must be what replaying it gave ``game``."""
    want = record.get("result")
    if want is None:
        return
    if not isinstance(want, dict):
        raise ValueError(f"result must be a dict, got {want!r}")
    got = result_of(game)
    for key in got:
        if key in want and not _same(want[key], got[key]):
            raise ValueError(
                f"result.{key}: the record says {want[key]!r}, "
                f"but replaying its moves gives {got[key]!r}"
            )


def _same(said, replayed) -> bool:
    try:  # a record read from anywhere may hold any value, numpy arrays included
        return bool(_norm(said) == _norm(replayed))
    except (ValueError, TypeError):
        return False


def _norm(v):
    if isinstance(v, list):
        return [round(float(x), 9) if isinstance(x, float) else x for x in v]
    return v


# ---------------------------------------------------------------- files


def dumps(record: dict) -> str:
    """The record as JSON text, one move per line."""
    lines = []
    for key, value in record.items():
        if key == "moves" and value:
            moves = ",\n".join(f"    {json.dumps(m, ensure_ascii=False)}" for m in value)
            lines.append(f'  "moves": [\n{moves}\n  ]')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def save_record(record: dict, path: str | Path) -> Path:
    """Write a record (or a ``Game``'s record) to ``path`` as JSON, atomically (a killed
    writer leaves the old file or the new one, never half of one); returns the path."""
    if not isinstance(record, dict):
        record = record.to_record()
    return atomic.write_text(path, dumps(record))


def load_record(path: str | Path) -> dict:
    """Read a record file (not yet validated: ``from_record`` does that).

    Raises:
        ValueError: the file is not JSON.
    """
    text = Path(path).read_bytes()
    try:
        return json.loads(text.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a JSON game record: {e}") from None
    except RecursionError:
        raise ValueError(f"{path}: not a JSON game record: nested too deeply") from None
