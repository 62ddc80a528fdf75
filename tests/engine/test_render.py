"""Rendering: the HTML of a position shows every card of it in the referee's view and
none of the hidden cards in a seat's view; the terminal text uses Unicode suits and
colours red suits only when asked."""

import random
import re

import pytest

from durak_env import Game, Rules, decode
from durak_env.cards import cards_of, format_card, parse_card, pretty_card
from durak_env.html import render_html
from durak_env.term import colorize, render_terminal
from tests.helpers import random_move, random_rules_kwargs

SHOWN = re.compile(r'data-card="([0-9JQKA]+[SCDH])"')


def positions(count: int, seed: int = 0):
    """Games stopped at random points (some over), under random rules."""
    rng = random.Random(seed)
    for i in range(count):
        rules = Rules(**random_rules_kwargs(rng))
        game = Game.new(rules, seed=i)
        for _ in range(rng.choice([0, 3, 10, 30, 10_000])):
            if game.over:
                break
            game.play(random_move(game, rng, eager=True))
        yield game


def public_cards(game) -> list[str]:
    """Cards everyone sees: the table and the face-up trump card while in the talon."""
    out = [c for pair in game.table for c in pair if c is not None]
    if game.talon:
        out.append(game.talon[-1])
    return out


def test_referee_view_shows_every_card_of_the_position():
    for game in positions(40):
        html = render_html(game)
        shown = SHOWN.findall(html)
        expected = [c for h in game.hands for c in h] + public_cards(game)
        assert sorted(shown) == sorted(expected)
        assert "Talon" in html and f"Discard {len(game.discard)}" in html
        if game.over:
            assert "Game over" in html
        else:
            assert f"Seat {game.to_act} to act" in html


def test_seat_view_hides_other_hands():
    checked_known = 0
    for game in positions(40, seed=1):
        n = game.rules.num_players
        for seat in range(n):
            html = render_html(game, seat)
            view = decode(game.observe(seat), game.rules)
            known = {format_card(c) for r in range(1, n) for c in cards_of(view.known[r])}
            checked_known += len(known)
            visible = set(game.hands[seat]) | set(public_cards(game)) | known
            assert set(SHOWN.findall(html)) == visible
            for p, hand in enumerate(game.hands):
                if p == seat:
                    continue
                for card in set(hand) - known:
                    assert f'"{card}"' not in html
                    assert pretty_card(parse_card(card)) not in html, (seat, p, card)
    assert checked_known > 0, "no position had known cards; the test checks too little"


def test_seat_view_counts_hidden_cards_as_backs():
    game = Game.new(Rules(num_players=3), seed=4)
    html = render_html(game, 0)
    assert html.count('class="durak-back"') == 3  # the talon and two hidden hands
    assert "6 face-down cards" in html


def test_repr_html_is_the_referee_view():
    game = Game.new(Rules(), seed=2)
    assert game._repr_html_() == render_html(game)


def test_bad_seat():
    game = Game.new(Rules(), seed=2)
    with pytest.raises(ValueError, match="seat"):
        render_html(game, 2)


def test_terminal_text_uses_unicode_suits():
    for game in positions(10, seed=2):
        text = render_terminal(game, color=False)
        assert "\x1b[" not in text
        for hand in game.hands:
            for card in hand:
                assert pretty_card(parse_card(card)) in text
        assert not re.search(r"\b(10|[2-9JQKA])[SCDH]\b", text), "letters instead of suits"
        assert re.search("[♠♣♦♥]", text)


def test_terminal_colour_marks_red_suits_only():
    game = Game.new(Rules(num_players=4), seed=3)
    text = render_terminal(game, color=True)
    for hand in game.hands:
        for card in hand:
            pretty = pretty_card(parse_card(card))
            painted = f"\x1b[31m{pretty}\x1b[0m" in text
            assert painted == (card[-1] in "HD"), card
    assert colorize("10♥ 9♠") == "\x1b[31m10♥\x1b[0m 9♠"
