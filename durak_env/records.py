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
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from .actions import IllegalMoveError
from .rules import Rules

FORMAT = "durak-record"
VERSION = 1
_DEAL_KEYS = ("hands", "talon", "discard", "trump", "first_attacker")
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
        "result": _result(game),
    }
    if meta:
        record["meta"] = dict(meta)
    return record


def _plain(value):
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, str) else int(value)


def _result(game) -> dict:
    return {
        "over": game.over,
        "durak": game.durak,
        "out_order": game.out_order,
        "rewards": game.rewards,
    }


def from_record(record: dict):
    """Rebuild a ``Game`` by dealing the record's position and replaying its moves.

    Raises:
        ValueError: the record is malformed or does not replay; the message names
            the field or the move (by index) that is wrong.
    """
    for game, seat, _move, _forced in iter_replay(record):
        if seat is None:
            _check_result(record, game)
            return game
    raise AssertionError("iter_replay always ends with the final position")


def iter_replay(record: dict) -> Iterator[tuple]:
    """Step through a record decision by decision.

    Yields ``(game, seat, move, forced)`` before each decision: ``game`` is the
    position where ``seat`` chooses ``move``; once the caller resumes the
    iterator, the move is applied, and ``forced`` (a list of ``(seat, move)``,
    filled in place) holds the forced moves the engine applied after it. Last
    comes ``(game, None, None, [])``: the position after every move of the
    record. The same ``Game`` object is updated in place throughout; the forced
    moves of the deal itself are ``game.history`` at the first item.

    Raises:
        ValueError: as ``from_record``.
    """
    moves = _check_moves(record)
    game = _start(record)
    i = len(game.history)
    while i < len(moves):
        seat, move = moves[i]
        if game.over:
            raise ValueError(
                f"moves[{i}]: the game is already over, yet the record goes on "
                f"with seat {seat}: {move!r}"
            )
        if seat != game.to_act:
            raise ValueError(
                f"moves[{i}]: seat {seat} plays {move!r}, but seat {game.to_act} is to act"
            )
        forced: list[tuple[int, str]] = []
        yield game, seat, move, forced
        try:
            game.play(move)
        except IllegalMoveError as e:
            raise ValueError(f"moves[{i}]: {e}") from None
        _check_forced(moves, i + 1, game.history)
        forced.extend(game.history[i + 1 :])
        i = len(game.history)
    yield game, None, None, []


def _start(record: dict):
    from .game import Game

    _check_header(record)
    rules = _rules(record["rules"])
    deal = record["deal"]
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict of Game.from_deal keywords, got {deal!r}")
    unknown = [k for k in deal if k not in _DEAL_KEYS]
    if unknown:
        raise ValueError(f"deal: unknown key(s) {unknown}; valid keys: {list(_DEAL_KEYS)}")
    if "hands" not in deal:
        raise ValueError("deal: 'hands' is missing")
    try:
        game = Game.from_deal(rules, **deal)
    except ValueError as e:
        raise ValueError(f"deal: {e}") from None
    _check_forced(_check_moves(record), 0, game.history)
    return game


def _check_header(record):
    if not isinstance(record, dict):
        raise ValueError(f"a game record must be a dict, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise ValueError(
            f"not a game record: format must be {FORMAT!r}, got {record.get('format')!r}"
        )
    if record.get("version") != VERSION:
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


def _check_forced(moves, start, history):
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
    from .cards import format_card, parse_card

    try:
        return " ".join([words[0].lower()] + [format_card(parse_card(w)) for w in words[1:]])
    except ValueError:
        return move


def _check_result(record, game):
    want = record.get("result")
    if want is None:
        return
    if not isinstance(want, dict):
        raise ValueError(f"result must be a dict, got {want!r}")
    got = _result(game)
    for key in got:
        if key in want and _norm(want[key]) != _norm(got[key]):
            raise ValueError(
                f"result.{key}: the record says {want[key]!r}, "
                f"but replaying its moves gives {got[key]!r}"
            )


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
    """Write a record (or a ``Game``'s record) to ``path`` as JSON; returns the path."""
    if not isinstance(record, dict):
        record = record.to_record()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(record), encoding="utf-8")
    return path


def load_record(path: str | Path) -> dict:
    """Read a record file (not yet validated: ``from_record`` does that).

    Raises:
        ValueError: the file is not JSON.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a JSON game record: {e}") from None
