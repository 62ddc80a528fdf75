"""The plain-Python reference replays the worked example of docs/rules.md section 8."""

import pytest

from tests.helpers import (
    WORKED_EXAMPLE_HANDS,
    WORKED_EXAMPLE_ROWS,
    WORKED_EXAMPLE_TALON,
    check_worked_example_end,
    replay_worked_example,
)
from tests.reference import IllegalMoveError, RefGame, RefRules, beats, parse_card, parse_move


def worked_example():
    return RefGame.from_deal(
        RefRules(num_players=3), hands=WORKED_EXAMPLE_HANDS, talon=WORKED_EXAMPLE_TALON
    )


def test_worked_example_start():
    game = worked_example()
    # Seat 0 holds 7S, the lowest trump: it attacks seat 1, throwers are 0 then 2.
    assert game.trump_suit == "S"
    assert (game.attacker, game.defender, game.to_act) == (0, 1, 0)
    assert game.history == []


def test_worked_example_row_by_row():
    game = worked_example()
    replay_worked_example(game)
    check_worked_example_end(game)


@pytest.mark.parametrize("upto", range(1, len(WORKED_EXAMPLE_ROWS) + 1))
def test_worked_example_prefixes(upto):
    # Every asked row, checked on its own: who acts and exactly which moves are legal.
    game = worked_example()
    for seat, legal, chosen in WORKED_EXAMPLE_ROWS[:upto]:
        if chosen is None:
            continue
        assert game.to_act == seat
        assert set(game.legal_moves()) == legal
        game.play(chosen)


def test_card_notation():
    assert parse_card("td") == "10D"
    assert parse_card("10♥") == "10H"
    assert parse_card("q♠") == "QS"
    assert parse_move("Beat 7c k♣") == "beat 7C KC"
    with pytest.raises(IllegalMoveError):
        parse_move("beat 7C")
    with pytest.raises(IllegalMoveError):
        parse_move(3)


def test_beats():
    assert beats("8C", "7C", "S")
    assert not beats("6C", "7C", "S")
    assert beats("6S", "AC", "S")
    assert not beats("6S", "7S", "S")
    assert not beats("AD", "7C", "S")
