"""Text rendering: the referee's view, a seat's view, and the envs' render modes."""

import pytest

import durak_env
from durak_env import Game, Rules, VectorEnv, render_text

HANDS = [["7S", "7C", "7D", "8H", "9C", "JD"], ["KC", "10D", "9S", "6H", "8C", "QD"],
         ["KH", "6C", "6D", "10H", "JC", "QH"]]
TALON = str.split("10C QC AC 8D 9D KD AD 7H 9H JH AH 6S 8S 10S JS QS KS AS")


def example():
    game = Game.from_deal(Rules(num_players=3), hands=HANDS, talon=TALON)
    game.play("play 7C")
    game.play("pass")
    return game  # seat 1 to defend against 7C


def test_referee_view():
    text = render_text(example())
    assert "Trump ♠ (face up: A♠)" in text
    assert "talon 18" in text
    assert "Table: 7♣/?" in text
    assert "> seat 1 (defender)" in text and "Seat 1 to act (defence)" in text
    assert "K♣" in text and "K♥" in text  # every hand is shown
    assert "seat 0 (attacker)" in text


def test_seat_view_hides_other_hands():
    text = render_text(example(), seat=0)
    assert "seat 0 (you)" in text and "7♠" in text
    assert "K♣" not in text and "K♥" not in text
    assert "seat 1 (defender): 6 cards" in text and "[5]" in text
    with pytest.raises(ValueError):
        render_text(example(), seat=3)


def test_known_cards_and_game_over():
    game = Game.from_deal(Rules(num_players=2, hand_size=1),
                          hands=[["6S"], ["7H"]], discard=[c for c in durak_env.cards.format_mask(
                              durak_env.cards.deck_mask(36)) if c not in ("6S", "7H")],
                          trump="C")
    text = render_text(game, seat=0)
    assert game.over and "Game over: seat 1 is the durak" in text
    assert "seat 0 (you): out (#1 to leave)" in text
    assert "known: 6♠" in text  # seat 1 picked 6S up


def test_aec_render_modes(capsys):
    e = durak_env.env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and "Trump" in text and "to act" in text
    assert any(s in text for s in "♠♣♦♥")
    h = durak_env.raw_env(render_mode="human")
    h.reset(seed=0)
    assert h.render() is None
    assert "Trump" in capsys.readouterr().out
    h.step(int(h.observe(h.agent_selection)["action_mask"].nonzero()[0][0]))
    assert "Trump" in capsys.readouterr().out  # human mode prints after every step
    with pytest.warns(UserWarning):
        assert durak_env.raw_env().render() is None


def test_vector_render():
    v = VectorEnv(Rules(), 2, seed=0, num_threads=1)
    v.reset()
    assert "to act" in v.render(1)
