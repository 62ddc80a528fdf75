"""Issue 20, the engine's edges: each test names the defect it pins (points 1, 2, 6, 8).

Every malformed input is a ``ValueError``/``TypeError`` (``IllegalMoveError`` for moves)
whose message names the field, and a game that refused an input is unchanged.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from durak_env import Game, IllegalMoveError, Rules, render_text
from durak_env.cards import deck_mask, format_mask
from durak_env.game import iter_replay
from durak_env.html import render_html
from durak_env.records import dumps, load_record, save_record
from tests.helpers import snapshot

DECK = format_mask(deck_mask(36))


def seat_out_at_deal() -> Game:
    """Three players, seat 0 already out (no cards, empty talon): seats 1 and 2 play."""
    return Game.from_deal(Rules(num_players=3), hands=[[], DECK[:6], DECK[6:12]],
                          discard=DECK[12:], trump="S")


# ---------------------------------------------------------------- 1. rendering a seat out


def test_render_a_seat_out_since_the_deal():
    game = seat_out_at_deal()
    text = render_text(game)
    assert "seat 0: out (no cards at the deal)" in text
    for seat in range(3):
        assert "out (no cards at the deal)" in render_text(game, seat)
    assert "out" in render_html(game)
    while not game.over:  # and through the end of the game, with a seat leaving in play
        game.step(int(game.legal_actions()[0]))
        render_text(game)
    assert "Game over" in render_text(game)


# ---------------------------------------------------------------- 2. records of the wrong shape


def finished_record() -> dict:
    game = Game.new(Rules(), seed=3)
    while not game.over:
        game.step(int(game.legal_actions()[-1]))
    return game.to_record({"players": ["a", "b"]})


@pytest.mark.parametrize("bad, field", [
    ([], "dict"), ("x", "dict"), (None, "dict"), (7, "dict"),
    ({"meta": []}, "meta"), ({"meta": "x"}, "meta"),
    ({"meta": {"players": 3}}, "meta.players"), ({"meta": {"players": {"a": 1}}}, "meta.players"),
    ({"meta": {"players": ["a"]}}, "meta.players"),
    ({"meta": {"players": ["a", 2]}}, "meta.players"),
    ({"version": True}, "version"), ({"version": 1.0}, "version"),
])
def test_record_of_the_wrong_shape_is_refused(bad, field):
    record = bad if not isinstance(bad, dict) else {**finished_record(), **bad}
    with pytest.raises(ValueError, match=field):
        Game.from_record(record)
    with pytest.raises(ValueError, match=field):
        list(iter_replay(record))


def test_result_that_contradicts_the_moves_is_refused_by_every_reader():
    record = finished_record()
    record["result"]["durak"] = 1 - record["result"]["durak"]
    with pytest.raises(ValueError, match="result.durak"):
        Game.from_record(record)
    with pytest.raises(ValueError, match="result.durak"):  # the replay iterator too
        list(iter_replay(record))


@pytest.mark.parametrize("value", [np.arange(0), np.arange(2), [[1]], {"a": 1}, "x"])
def test_result_of_any_value_is_compared_safely(value):
    record = finished_record()
    record["result"]["durak"] = value
    with pytest.raises(ValueError, match="result.durak: the record says"):
        Game.from_record(record)


def test_deeply_nested_json_is_a_clear_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="not a JSON game record"):
        load_record(path)
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match="not a JSON game record"):
        load_record(binary)


def test_record_files_are_written_whole(tmp_path):
    record = finished_record()
    path = save_record(record, tmp_path / "r.json")
    assert json.loads(path.read_text()) == json.loads(dumps(record))
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary left over


# ---------------------------------------------------------------- 6. seeds


@pytest.mark.parametrize("seed, error", [
    (-1, ValueError), (2**64, ValueError), (2**64 + 7, ValueError), (-(2**63), ValueError),
    (1.5, TypeError), ("7", TypeError), (True, TypeError), (np.float64(3), TypeError),
])
def test_game_new_refuses_seeds_outside_the_one_rule(seed, error):
    with pytest.raises(error, match=r"seed must be (an int )?in 0\.\.2\*\*64-1"):
        Game.new(Rules(), seed=seed)


def test_every_seed_in_range_works():
    for seed in (0, 1, 2**63, 2**64 - 1, np.uint64(2**64 - 1), np.int8(5)):
        Game.new(Rules(), seed=seed)
    assert Game.new(Rules(), seed=np.uint64(7)).deal_record == Game.new(
        Rules(), seed=7).deal_record


# ---------------------------------------------------------------- 8. types


@pytest.mark.parametrize("action", [np.array([2]), np.array([]), [2], (2,), 2.0, "2", None, True])
def test_step_with_a_non_int_is_an_illegal_move_and_changes_nothing(action):
    game = Game.new(Rules(), seed=1)
    before = snapshot(game)
    with pytest.raises(IllegalMoveError, match="action id must be an int"):
        game.step(action)
    assert snapshot(game) == before


def test_step_accepts_numpy_integer_scalars():
    game = Game.new(Rules(), seed=1)
    game.step(np.int16(game.legal_actions()[0]))
    game.step(np.array(game.legal_actions()[0]))  # a 0-d array is an integer too


def test_rules_from_numpy_scalars_are_plain_python():
    rules = Rules(num_players=np.int64(3), hand_size=np.int32(5), max_attack=np.uint8(6),
                  first_round_max_attack=np.int64(5), variant="perevodnoy",
                  transfer_show_trump=np.bool_(True))
    for name, value in rules.to_dict().items():
        assert type(value) in (int, bool, str), (name, type(value))
    assert rules == Rules(num_players=3, hand_size=5, first_round_max_attack=5,
                          variant="perevodnoy", transfer_show_trump=True)
    game = Game.new(rules, seed=0)
    json.dumps(game.to_record())  # a record of such rules serialises
