"""Scripted rule scenarios (docs/rules.md), run on the engine and on the test reference.

Each scenario sets up a position with ``Game.from_deal``, then plays it move by
move with a comment per step, asserting who is asked, the exact legal moves, the
forced moves that the history records, and the outcome.

Positions called "endgame" have an empty talon and every card not in a hand in the
discard pile (so ``first_round_max_attack`` is never in force there).
"""

from types import SimpleNamespace

import pytest

from durak_env import Game, IllegalMoveError, Rules
from tests import reference
from tests.helpers import (
    WORKED_EXAMPLE_HANDS,
    WORKED_EXAMPLE_TALON,
    cards,
    check_worked_example_end,
    replay_worked_example,
    rest_of_deck,
    sorted_hand,
)

ENGINE = SimpleNamespace(Game=Game, Rules=Rules, IllegalMoveError=IllegalMoveError)
REFERENCE = SimpleNamespace(
    Game=reference.RefGame, Rules=reference.RefRules, IllegalMoveError=reference.IllegalMoveError
)


@pytest.fixture(params=[ENGINE, REFERENCE], ids=["engine", "reference"])
def impl(request):
    return request.param


# ----------------------------------------------------------------- helpers


def endgame(impl, hands, trump, first_attacker=None, **rules):
    """Empty talon; every card not in a hand is in the discard pile."""
    rules = impl.Rules(num_players=len(hands), **rules)
    hands = [cards(h) for h in hands]
    return impl.Game.from_deal(
        rules,
        hands=hands,
        talon=[],
        discard=rest_of_deck(rules.deck_size, *hands),
        trump=trump,
        first_attacker=first_attacker,
    )


def with_talon(impl, hands, talon, first_attacker=None, discard_rest=True, **rules):
    """Given talon (top first). The rest of the deck goes to the discard pile, or,
    with ``discard_rest=False``, into the talon before its last (face-up) card."""
    rules = impl.Rules(num_players=len(hands), **rules)
    hands = [cards(h) for h in hands]
    talon = cards(talon)
    rest = rest_of_deck(rules.deck_size, *hands, talon)
    if not discard_rest:
        talon, rest = talon[:-1] + rest + talon[-1:], []
    return impl.Game.from_deal(
        rules, hands=hands, talon=talon, discard=rest, first_attacker=first_attacker
    )


def worked_example(impl):
    return impl.Game.from_deal(
        impl.Rules(num_players=3),
        hands=WORKED_EXAMPLE_HANDS,
        talon=WORKED_EXAMPLE_TALON,
        discard=[],
        trump=None,
        first_attacker=None,
    )


def expect(game, seat, moves):
    """``seat`` is asked and has exactly ``moves``."""
    assert game.to_act == seat
    assert set(game.legal_moves()) == set(moves)


def hand(game, seat):
    return sorted_hand(game.hands[seat])


def sh(text):
    """Sorted hand from a card string."""
    return sorted_hand(cards(text))


def history(game, start=0):
    return [tuple(h) for h in game.history[start:]]


def plays(text):
    return [f"play {c}" for c in cards(text)]


def state(game):
    return dict(
        hands=[hand(game, s) for s in range(len(game.hands))],
        table=list(game.table),
        talon=list(game.talon),
        discard=sorted_hand(game.discard),
        to_act=game.to_act,
        attacker=game.attacker,
        defender=game.defender,
        history=history(game),
        legal=sorted(game.legal_moves()),
    )


# ----------------------------------------------------------------- worked example


def test_worked_example_row_by_row(impl):
    game = worked_example(impl)
    # Seat 0 holds the lowest trump 7S: attacks seat 1.
    assert game.trump_suit == "S"
    assert (game.attacker, game.defender) == (0, 1)
    replay_worked_example(game)
    # Bito: 0 draws 2, 2 draws 1, 1 draws 3, in that order; 1 attacks 2 next.
    check_worked_example_end(game)


def test_worked_example_accepts_any_spelling(impl):
    game = worked_example(impl)
    game.play("Play 7c")  # 0 opens
    game.play("PASS")  # 0 passes; 2 is forced to pass
    game.play("beat 7c k♣")  # 1 covers
    assert history(game) == [(0, "play 7C"), (0, "pass"), (2, "pass"), (1, "beat 7C KC")]
    assert game.table == [("7C", "KC")]
    game.play("play 7♦")
    game.play("pass")
    game.play("play kh")  # 2 throws KH; forced pass; 0 asked
    game.play("pass")
    game.play("beat 7D TD")  # T means 10
    assert game.table == [("7C", "KC"), ("7D", "10D"), ("KH", None)]


# ----------------------------------------------------------------- opening


def test_opening_main_attacker_must_play(impl):
    # Trump H, nobody holds one: the lowest rank (6C, seat 0) attacks.
    game = endgame(impl, ["6C 7D", "8S 9S"], trump="H")
    expect(game, 0, plays("6C 7D"))  # no pass on an empty table
    assert game.history == []
    with pytest.raises(impl.IllegalMoveError):
        game.play("pass")
    expect(game, 0, plays("6C 7D"))


def test_single_card_opening_is_forced_then_durak(impl):
    game = endgame(impl, ["6C", "8C 9S"], trump="H")
    # Seat 0 has one card: "play 6C" is forced, then its pass is forced too.
    assert history(game) == [(0, "play 6C"), (0, "pass")]
    expect(game, 1, ["beat 6C 8C", "take"])
    game.play("beat 6C 8C")
    # 0 has nothing: forced pass -> bito; talon empty: 0 leaves; 1 alone is the durak.
    assert history(game, 3) == [(0, "pass")]
    assert game.over and game.to_act is None
    assert (game.attacker, game.defender) == (None, None)
    assert game.durak == 1
    assert game.out_order == [0]
    assert list(game.rewards) == [1.0, -1.0]
    assert game.legal_moves() == []


# ----------------------------------------------------------------- throw-in ranks and limits


def test_throw_in_ranks_attack_and_covering(impl):
    game = endgame(impl, ["7C 8H 9D 6S", "8C 10D KD AH", "7H 8D 9C JC"], trump="S")
    # 0 holds 6S (lowest trump): 0 attacks 1, throwers 0, 2.
    expect(game, 0, plays("7C 8H 9D 6S"))
    game.play("play 7C")
    # 0 has no other 7: forced pass; 2 may add 7H.
    expect(game, 2, ["play 7H", "pass"])
    game.play("pass")
    # Volley over: 1 defends; only 8C beats 7C.
    expect(game, 1, ["beat 7C 8C", "take"])
    assert history(game) == [(0, "play 7C"), (0, "pass"), (2, "pass")]
    game.play("beat 7C 8C")
    # Ranks on table now 7 and 8 (covering rank counts): 0 may add 8H.
    expect(game, 0, ["play 8H", "pass"])
    game.play("play 8H")
    # 0 forced pass (9D, 6S); 2 may add 7H or 8D, never 9C.
    expect(game, 2, ["play 7H", "play 8D", "pass"])
    game.play("play 8D")
    expect(game, 2, ["play 7H", "pass"])
    game.play("pass")
    # 0 forced pass ends the volley.
    assert history(game, 3) == [
        (1, "beat 7C 8C"),
        (0, "play 8H"),
        (0, "pass"),
        (2, "play 8D"),
        (2, "pass"),
        (0, "pass"),
    ]
    expect(game, 1, ["beat 8H AH", "beat 8D 10D", "beat 8D KD", "take"])
    game.play("beat 8D 10D")
    expect(game, 1, ["beat 8H AH", "take"])
    game.play("beat 8H AH")
    # All covered; ranks 7 8 10 A. 0 forced pass; 2 may add 7H (1 uncovered <= 1 card).
    expect(game, 2, ["play 7H", "pass"])
    game.play("play 7H")
    # 2 and 0 forced passes; 1 cannot beat 7H with KD: forced take; the extra volley
    # is all forced passes; 1 picks up everything.
    assert history(game, 11) == [
        (0, "pass"),
        (2, "play 7H"),
        (2, "pass"),
        (0, "pass"),
        (1, "take"),
        (0, "pass"),
        (2, "pass"),
    ]
    assert hand(game, 1) == sh("7C 8C 8H AH 8D 10D 7H KD")
    # After a take the player after the defender (2) attacks 0.
    assert (game.attacker, game.defender) == (2, 0)
    expect(game, 2, plays("9C JC"))


def test_max_attack_limit(impl):
    game = endgame(impl, ["6H 7C 7D 7S 9C 9D", "8C 8D 9S 10C 10D JC JD"], trump="H", max_attack=4)
    expect(game, 0, plays("6H 7C 7D 7S 9C 9D"))
    game.play("play 7C")
    expect(game, 0, ["play 7D", "play 7S", "pass"])
    game.play("play 7D")
    game.play("play 7S")
    # No more 7s: forced pass; 1 defends three cards.
    assert history(game)[-1] == (0, "pass")
    game.play("beat 7C 8C")
    game.play("beat 7D 8D")
    game.play("beat 7S 9S")
    # Ranks 7 8 9: 0 may add a 9 (4th card).
    expect(game, 0, ["play 9C", "play 9D", "pass"])
    game.play("play 9C")
    # 4 attack cards = max_attack: 9D can't follow, forced pass.
    assert history(game)[-1] == (0, "pass")
    expect(game, 1, ["beat 9C 10C", "beat 9C JC", "take"])
    assert "9D" in hand(game, 0)
    assert len(game.table) == 4


def test_defender_hand_limit(impl):
    game = endgame(impl, ["6H 7C 7D 7S", "8C AD"], trump="H")
    game.play("play 7C")
    # 2 uncovered allowed (defender holds 2).
    expect(game, 0, ["play 7D", "play 7S", "pass"])
    game.play("play 7D")
    # A third uncovered card would exceed the defender's 2 cards: forced pass.
    assert history(game) == [(0, "play 7C"), (0, "play 7D"), (0, "pass")]
    expect(game, 1, ["beat 7C 8C", "beat 7D AD", "take"])
    game.play("beat 7C 8C")
    expect(game, 1, ["beat 7D AD", "take"])
    game.play("beat 7D AD")
    # Defender has no cards: nothing may be added (forced pass), bito; 1 leaves.
    assert history(game, 5) == [(0, "pass")]
    assert game.over and game.durak == 0
    assert game.out_order == [1]
    assert list(game.rewards) == [-1.0, 1.0]


def test_first_round_max_attack_until_first_bito(impl):
    talon = "6S 7S KH JC JD 9C 9D 9H 6C 6D AS"  # rest inserted before AS
    game = with_talon(
        impl,
        ["7C 7D 7H 8C 8D 8H", "8S 9S 10S JS QS KS"],
        talon,
        first_attacker=0,
        discard_rest=False,
        first_round_max_attack=5,
    )
    assert game.discard == [] and game.trump_suit == "S"
    game.play("play 7C")
    game.play("play 7D")
    game.play("play 7H")  # then forced pass (8s not yet on the table)
    game.play("beat 7C 8S")
    game.play("beat 7D 9S")
    game.play("beat 7H 10S")
    # 3 attack cards; ranks 7 8 9 10.
    expect(game, 0, ["play 8C", "play 8D", "play 8H", "pass"])
    game.play("play 8C")
    expect(game, 0, ["play 8D", "play 8H", "pass"])
    game.play("play 8D")
    # 5 cards = first_round_max_attack: 8H is blocked (the defender could still take
    # one more uncovered card), forced pass.
    assert history(game)[-1] == (0, "pass")
    assert len(game.table) == 5
    game.play("beat 8C JS")
    game.play("beat 8D QS")
    # 0 forced pass -> bito. 0 draws 5 first, then 1 draws 5.
    assert history(game)[-1] == (0, "pass")
    assert hand(game, 0) == sh("8H 6S 7S KH JC JD")
    assert hand(game, 1) == sh("KS 9C 9D 9H 6C 6D")
    assert (game.attacker, game.defender) == (1, 0)
    # Round 2 starts with a non-empty discard: max_attack (6) is in force.
    game.play("play 9C")
    game.play("play 9D")
    game.play("play 9H")  # forced pass follows
    game.play("beat 9C 6S")
    game.play("beat 9D 7S")
    game.play("beat 9H KH")
    expect(game, 1, ["play KS", "play 6C", "play 6D", "pass"])
    game.play("play 6C")
    game.play("play 6D")
    # A 6th card is allowed now (3 uncovered <= 3 cards in 0's hand).
    expect(game, 1, ["play KS", "pass"])
    game.play("play KS")
    assert len(game.table) == 6


# ----------------------------------------------------------------- turn protocol


def test_pass_counting_across_four_players(impl):
    game = endgame(impl, ["6S 7C 8D", "9C 10C JD QD AH", "7D 9H", "7H 10H"], trump="S")
    # 0 attacks 1; throwers in order 0, 2, 3.
    expect(game, 0, plays("6S 7C 8D"))
    game.play("play 7C")
    # 0 has no 7: forced pass; 2 asked.
    expect(game, 2, ["play 7D", "pass"])
    game.play("pass")
    # 2 passes -> 3 asked (only two passes so far).
    expect(game, 3, ["play 7H", "pass"])
    game.play("play 7H")
    # 3 forced pass, 0 forced pass: 2 is asked again after the new card.
    expect(game, 2, ["play 7D", "pass"])
    game.play("play 7D")
    # 2, 3, 0 forced passes: three passes since the last card end the volley.
    assert history(game) == [
        (0, "play 7C"),
        (0, "pass"),
        (2, "pass"),
        (3, "play 7H"),
        (3, "pass"),
        (0, "pass"),
        (2, "play 7D"),
        (2, "pass"),
        (3, "pass"),
        (0, "pass"),
    ]
    expect(
        game,
        1,
        ["beat 7C 9C", "beat 7C 10C", "beat 7H AH", "beat 7D JD", "beat 7D QD", "take"],
    )


def test_defender_chooses_cover_order(impl):
    game = endgame(impl, ["6S 7C 7D", "8C 8D 9D"], trump="S")
    game.play("play 7C")
    game.play("play 7D")  # then 0's forced pass
    expect(game, 1, ["beat 7C 8C", "beat 7D 8D", "beat 7D 9D", "take"])
    # Cover the second card first.
    game.play("beat 7D 9D")
    assert game.table == [("7C", None), ("7D", "9D")]
    expect(game, 1, ["beat 7C 8C", "take"])
    game.play("beat 7C 8C")
    # 0 (6S) forced pass: bito. 1 (final defender) attacks with its only card: forced.
    assert history(game, 3) == [
        (1, "beat 7D 9D"),
        (1, "beat 7C 8C"),
        (0, "pass"),
        (1, "play 8D"),
        (1, "pass"),
    ]
    assert game.table == [("8D", None)]
    expect(game, 0, ["beat 8D 6S", "take"])


def test_take_extra_volley_with_limits(impl):
    game = endgame(impl, ["6S 8C 8D 9H", "10C JD KH", "8H 9C 10H"], trump="S")
    game.play("play 8C")
    game.play("play 8D")  # then 0's forced pass
    # 2 may add 8H (3 uncovered <= 3 cards).
    expect(game, 2, ["play 8H", "pass"])
    game.play("pass")
    expect(game, 1, ["beat 8C 10C", "beat 8D JD", "take"])
    game.play("beat 8C 10C")
    expect(game, 1, ["beat 8D JD", "take"])
    game.play("take")
    # Extra volley: 0 forced pass; 2 may add 8H or 10H (2 uncovered <= 2 cards).
    expect(game, 2, ["play 8H", "play 10H", "pass"])
    game.play("play 10H")
    # 8H would make 3 uncovered > 2 cards: 2 forced pass, 0 forced pass; 1 picks up.
    assert history(game, 5) == [
        (1, "take"),
        (0, "pass"),
        (2, "play 10H"),
        (2, "pass"),
        (0, "pass"),
    ]
    assert game.table == []
    assert hand(game, 1) == sh("8C 10C 8D 10H JD KH")
    assert hand(game, 0) == sh("6S 9H")
    assert hand(game, 2) == sh("8H 9C")
    # After a take the player after the defender attacks.
    assert (game.attacker, game.defender) == (2, 0)
    expect(game, 2, plays("8H 9C"))


def test_take_extra_volley_respects_max_attack(impl):
    game = endgame(impl, ["6H 7C 7D 7S 8D 8S", "8C 9S 10C JC QC KC"], trump="H", max_attack=4)
    game.play("play 7C")
    game.play("play 7D")
    game.play("play 7S")  # no 7 left: forced pass
    expect(
        game,
        1,
        [
            "beat 7C 8C",
            "beat 7C 10C",
            "beat 7C JC",
            "beat 7C QC",
            "beat 7C KC",
            "beat 7S 9S",
            "take",
        ],
    )
    game.play("beat 7C 8C")
    expect(game, 1, ["beat 7S 9S", "take"])  # 7D cannot be beaten
    game.play("take")
    # Extra volley: ranks 7 and 8 on the table; a 4th card is allowed.
    expect(game, 0, ["play 8D", "play 8S", "pass"])
    game.play("play 8D")
    # 4 cards = max_attack: 8S blocked (the 5-card hand would allow it): forced pass.
    assert history(game)[-3:] == [(1, "take"), (0, "play 8D"), (0, "pass")]
    assert hand(game, 1) == sh("7C 8C 7D 7S 8D 9S 10C JC QC KC")
    assert (game.attacker, game.defender) == (0, 1)
    expect(game, 0, plays("6H 8S"))


# ----------------------------------------------------------------- perevodnoy


def test_transfer_chain_four_players(impl):
    game = endgame(
        impl,
        ["6H 7C KS", "7D 9S 10S", "7S 8C 9C JC", "AC AD AS QC QD"],
        trump="H",
        variant="perevodnoy",
    )
    game.play("play 7C")
    # 0 forced pass; 2 may add 7S.
    expect(game, 2, ["play 7S", "pass"])
    game.play("pass")
    # 3 forced pass. 1 cannot beat 7C; transfers to 2 (4 cards >= 2).
    expect(game, 1, ["transfer 7D", "take"])
    game.play("transfer 7D")
    assert (game.attacker, game.defender) == (1, 2)
    assert game.table == [("7C", None), ("7D", None)]
    # New volley: throwers 1, 3, 0, all forced passes; 2 defends.
    expect(
        game,
        2,
        ["beat 7C 8C", "beat 7C 9C", "beat 7C JC", "transfer 7S", "take"],
    )
    game.play("transfer 7S")
    assert (game.attacker, game.defender) == (2, 3)
    # Throwers 2, 0, 1: forced passes. 3 has no 7: cannot transfer.
    assert history(game) == [
        (0, "play 7C"),
        (0, "pass"),
        (2, "pass"),
        (3, "pass"),
        (1, "transfer 7D"),
        (1, "pass"),
        (3, "pass"),
        (0, "pass"),
        (2, "transfer 7S"),
        (2, "pass"),
        (0, "pass"),
        (1, "pass"),
    ]
    expect(
        game,
        3,
        ["beat 7C AC", "beat 7C QC", "beat 7D AD", "beat 7D QD", "beat 7S AS", "take"],
    )
    game.play("beat 7C QC")
    game.play("beat 7D QD")
    game.play("beat 7S AS")
    # Volley 2, 0, 1 all forced passes: bito. The final defender (3) attacks 0.
    assert history(game, 15) == [(2, "pass"), (0, "pass"), (1, "pass")]
    assert (game.attacker, game.defender) == (3, 0)
    expect(game, 3, plays("AC AD"))


def perevodnoy_three(impl, third_hand, **rules):
    return endgame(
        impl,
        ["6H 7C 7D", "7S 8C 9D AS", third_hand],
        trump="H",
        variant="perevodnoy",
        **rules,
    )


def test_transfer_blocked_once_a_card_is_covered(impl):
    game = perevodnoy_three(impl, "JC QC KC")
    game.play("play 7C")
    game.play("play 7D")  # 0 and 2 forced passes
    expect(game, 1, ["beat 7C 8C", "beat 7D 9D", "transfer 7S", "take"])
    # Wrong rank: 8C cannot transfer a 7.
    with pytest.raises(impl.IllegalMoveError):
        game.play("transfer 8C")
    game.play("beat 7C 8C")
    # A card is covered: no transfer any more.
    expect(game, 1, ["beat 7D 9D", "take"])
    with pytest.raises(impl.IllegalMoveError):
        game.play("transfer 7S")


def test_transfer_blocked_target_hand_too_small(impl):
    # Target 2 holds 2 cards: a third attack card is not allowed.
    game = perevodnoy_three(impl, "JC QC")
    game.play("play 7C")
    game.play("play 7D")
    expect(game, 1, ["beat 7C 8C", "beat 7D 9D", "take"])
    # With a single attack card the same target (2 >= 2) may be transferred to.
    game = perevodnoy_three(impl, "JC QC")
    game.play("play 7C")
    game.play("pass")  # 2 forced pass
    expect(game, 1, ["beat 7C 8C", "transfer 7S", "take"])


def test_transfer_blocked_by_attack_limit(impl):
    game = endgame(
        impl,
        ["6H 7C 7D 8D 9D 10D JD", "7S 8C AS", "7H JC QC KC AD"],
        trump="H",
        variant="perevodnoy",
        max_attack=3,
    )
    game.play("play 7C")
    game.play("play 7D")  # 0 forced pass
    expect(game, 2, ["play 7H", "pass"])
    game.play("pass")
    # 3rd card allowed by max_attack=3: transfer to 2.
    expect(game, 1, ["beat 7C 8C", "transfer 7S", "take"])
    game.play("transfer 7S")
    # 1, 0 forced passes. A 4th card is over the limit: 2 may not transfer 7H to 0
    # although 0 holds 5 cards.
    assert (game.attacker, game.defender) == (1, 2)
    expect(
        game,
        2,
        [
            "beat 7C 7H",
            "beat 7C JC",
            "beat 7C QC",
            "beat 7C KC",
            "beat 7D 7H",
            "beat 7D AD",
            "beat 7S 7H",
            "take",
        ],
    )


def test_transfer_target_skips_player_without_cards(impl):
    game = endgame(impl, ["6H 7C 9S 10S JS", "7D 8C", "7S"], trump="H", variant="perevodnoy")
    game.play("play 7C")
    expect(game, 2, ["play 7S", "pass"])
    game.play("play 7S")
    # 2 has no cards left but stays in the game: forced pass; 0 forced pass.
    assert hand(game, 2) == []
    # Transfer goes past 2 (no cards) to 0 (4 cards >= 3).
    expect(game, 1, ["beat 7C 8C", "transfer 7D", "take"])
    game.play("transfer 7D")
    assert (game.attacker, game.defender) == (1, 0)
    # Throwers 1, 2: forced passes.
    assert history(game, 5) == [(1, "transfer 7D"), (1, "pass"), (2, "pass")]
    expect(
        game,
        0,
        [
            "beat 7C 6H",
            "beat 7S 6H",
            "beat 7S 9S",
            "beat 7S 10S",
            "beat 7S JS",
            "beat 7D 6H",
            "take",
        ],
    )
    game.play("take")
    # Extra volley: 1 and 2 forced passes; 0 picks up; 2 leaves.
    assert game.out_order == [2]
    # After take: the player after 0 is 1; 1 attacks 0 (2 has left).
    # 1's single card 8C is forced, then its pass.
    assert history(game, 8) == [(0, "take"), (1, "pass"), (2, "pass"), (1, "play 8C"), (1, "pass")]
    assert (game.attacker, game.defender) == (1, 0)
    expect(game, 0, ["beat 8C 6H", "take"])


def test_transfer_two_players_goes_back(impl):
    game = endgame(impl, ["6H 7C 7D 9S", "7S 8S 10C JC"], trump="H", variant="perevodnoy")
    game.play("play 7C")
    game.play("pass")
    expect(game, 1, ["beat 7C 10C", "beat 7C JC", "transfer 7S", "take"])
    game.play("transfer 7S")
    # Back to 0; 1's volley is a forced pass.
    assert (game.attacker, game.defender) == (1, 0)
    expect(game, 0, ["beat 7C 6H", "beat 7S 6H", "beat 7S 9S", "transfer 7D", "take"])
    game.play("transfer 7D")
    assert (game.attacker, game.defender) == (0, 1)
    # 0 forced pass; 1 cannot beat 7D, has no 7 to transfer.
    expect(game, 1, ["beat 7C 10C", "beat 7C JC", "beat 7S 8S", "take"])
    game.play("take")
    # 0's extra volley: forced pass; 1 picks up; after take 0 attacks again.
    assert history(game) == [
        (0, "play 7C"),
        (0, "pass"),
        (1, "transfer 7S"),
        (1, "pass"),
        (0, "transfer 7D"),
        (0, "pass"),
        (1, "take"),
        (0, "pass"),
    ]
    assert hand(game, 1) == sh("7C 7S 7D 8S 10C JC")
    assert (game.attacker, game.defender) == (0, 1)
    expect(game, 0, plays("6H 9S"))


def test_show_trump_once_per_round(impl):
    game = endgame(
        impl,
        ["7C 7D 8D 9S 10S", "7H 8S 10D JD"],
        trump="H",
        first_attacker=0,
        variant="perevodnoy",
        transfer_show_trump=True,
    )
    game.play("play 7C")
    game.play("pass")
    expect(game, 1, ["beat 7C 7H", "transfer 7H", "show 7H", "take"])
    game.play("show 7H")
    # Shown card stays in hand, nothing is added; the defence moves on to 0.
    assert hand(game, 1) == sh("7H 8S 10D JD")
    assert game.table == [("7C", None)]
    assert (game.attacker, game.defender) == (1, 0)
    # New volley with the new main attacker: it could even throw the shown 7H.
    expect(game, 1, ["play 7H", "pass"])
    game.play("pass")
    expect(game, 0, ["transfer 7D", "take"])
    game.play("transfer 7D")
    # 0 forced pass. 1 already showed this round: transfer yes, show no.
    assert history(game) == [
        (0, "play 7C"),
        (0, "pass"),
        (1, "show 7H"),
        (1, "pass"),
        (0, "transfer 7D"),
        (0, "pass"),
    ]
    expect(
        game,
        1,
        ["beat 7C 7H", "beat 7D 7H", "beat 7D 10D", "beat 7D JD", "transfer 7H", "take"],
    )


def test_show_needs_target_hand_equal_to_attack(impl):
    game = endgame(
        impl,
        ["6C 7C 8S", "7H 9D 10D", "JC"],
        trump="H",
        first_attacker=0,
        variant="perevodnoy",
        transfer_show_trump=True,
    )
    game.play("play 7C")
    # 0 and 2 forced passes. Target 2 holds 1 card: show (1 >= 1) yes, transfer no.
    expect(game, 1, ["beat 7C 7H", "show 7H", "take"])
    game.play("show 7H")
    # 1 cannot add 7H (2 uncovered > 1 card), 0 has no 7: forced passes.
    assert (game.attacker, game.defender) == (1, 2)
    expect(game, 2, ["beat 7C JC", "take"])
    game.play("beat 7C JC")
    # Forced passes by 1 and 0: bito. 2 leaves; the final defender has left, so the
    # next player after him (0) attacks 1.
    assert history(game, 2) == [
        (2, "pass"),
        (1, "show 7H"),
        (1, "pass"),
        (0, "pass"),
        (2, "beat 7C JC"),
        (1, "pass"),
        (0, "pass"),
    ]
    assert game.out_order == [2]
    assert (game.attacker, game.defender) == (0, 1)
    assert hand(game, 1) == sh("7H 9D 10D")
    expect(game, 0, plays("6C 8S"))


def test_no_show_without_option_and_no_transfer_in_podkidnoy(impl):
    hands = ["7C 7D 8D 9S 10S", "7H 8S 10D JD"]
    game = endgame(impl, hands, trump="H", first_attacker=0, variant="perevodnoy")
    game.play("play 7C")
    game.play("pass")
    expect(game, 1, ["beat 7C 7H", "transfer 7H", "take"])
    game = endgame(impl, hands, trump="H", first_attacker=0)
    game.play("play 7C")
    game.play("pass")
    expect(game, 1, ["beat 7C 7H", "take"])


# ----------------------------------------------------------------- prostoy and neighbors


def prostoy_game(impl):
    return endgame(impl, ["6S 7C 7D 8C", "9C 9D 10C KH 8D", "7H 8H"], trump="S", variant="prostoy")


def test_prostoy_opening_rank_and_round_ends_after_cover(impl):
    game = prostoy_game(impl)
    expect(game, 0, plays("6S 7C 7D 8C"))
    game.play("play 7C")
    # Only the opening rank; 2's 7H is never offered (only the main attacker throws).
    expect(game, 0, ["play 7D", "pass"])
    game.play("play 7D")
    # No 7 left: forced pass; defence at once.
    expect(game, 1, ["beat 7C 9C", "beat 7C 10C", "beat 7D 8D", "beat 7D 9D", "take"])
    game.play("beat 7C 9C")
    game.play("beat 7D 8D")
    # Round over right after the cover: no throw-in (0's 8C, 2's 8H) and no passes.
    assert history(game) == [
        (0, "play 7C"),
        (0, "play 7D"),
        (0, "pass"),
        (1, "beat 7C 9C"),
        (1, "beat 7D 8D"),
    ]
    assert {"7C", "9C", "7D", "8D"} <= set(game.discard)
    assert (game.attacker, game.defender) == (1, 2)
    expect(game, 1, plays("9D 10C KH"))


def test_prostoy_take_ends_round_at_once(impl):
    game = prostoy_game(impl)
    game.play("play 7C")
    game.play("play 7D")
    game.play("beat 7C 9C")
    expect(game, 1, ["beat 7D 8D", "beat 7D 9D", "take"])
    game.play("take")
    # No extra volley: 1 picks up at once; 2 (after the defender) attacks 0.
    assert history(game)[-1] == (1, "take")
    assert hand(game, 1) == sh("7C 9C 7D 9D 10C KH 8D")
    assert (game.attacker, game.defender) == (2, 0)
    expect(game, 2, plays("7H 8H"))


def test_throw_in_neighbors(impl):
    game = endgame(
        impl,
        ["6S 7C 10D", "8C 9C JD QD", "7D 9H", "7H 10H"],
        trump="S",
        throw_in="neighbors",
    )
    # Throwers: 0 and 2 only; 3 (holding 7H) is never asked.
    game.play("play 7C")
    expect(game, 2, ["play 7D", "pass"])
    game.play("pass")
    expect(game, 1, ["beat 7C 8C", "beat 7C 9C", "take"])
    assert history(game) == [(0, "play 7C"), (0, "pass"), (2, "pass")]
    game.play("take")
    # Extra volley: 0 forced pass, 2 may add 7D.
    expect(game, 2, ["play 7D", "pass"])
    game.play("play 7D")
    # 2, 0 forced passes; 1 picks up. 2 attacks 3; throwers 2 and 0 (not 1).
    # 2's single card 9H is forced; 1 holds 9C but is not a thrower.
    assert history(game, 3) == [
        (1, "take"),
        (0, "pass"),
        (2, "play 7D"),
        (2, "pass"),
        (0, "pass"),
        (2, "play 9H"),
        (2, "pass"),
        (0, "pass"),
    ]
    assert hand(game, 1) == sh("7C 7D 8C 9C JD QD")
    assert (game.attacker, game.defender) == (2, 3)
    expect(game, 3, ["beat 9H 10H", "take"])


def test_neighbors_player_after_defender_is_the_attacker(impl):
    # Three players, 0 holds a single card. After 2 transfers past the empty-handed 0
    # back to 1, the player after the defender (1) is the main attacker (2) himself:
    # 2 is the only thrower, 0 is not asked (not even for a forced pass).
    game = endgame(
        impl,
        ["7C", "7D 8S 9S 10S", "7H JC QC"],
        trump="S",
        first_attacker=0,
        variant="perevodnoy",
        throw_in="neighbors",
    )
    # 0's play and pass are forced; 2 may add 7H.
    assert history(game) == [(0, "play 7C"), (0, "pass")]
    expect(game, 2, ["play 7H", "pass"])
    game.play("pass")
    expect(game, 1, ["beat 7C 8S", "beat 7C 9S", "beat 7C 10S", "transfer 7D", "take"])
    game.play("transfer 7D")
    # Throwers 1 and 0 (the player after defender 2): forced passes.
    assert (game.attacker, game.defender) == (1, 2)
    expect(game, 2, ["beat 7C JC", "beat 7C QC", "transfer 7H", "take"])
    # The target skips 0 (no cards): 1 defends again (3 cards >= 3).
    game.play("transfer 7H")
    assert (game.attacker, game.defender) == (2, 1)
    assert history(game, 3) == [
        (1, "transfer 7D"),
        (1, "pass"),
        (0, "pass"),
        (2, "transfer 7H"),
        (2, "pass"),
    ]
    assert game.to_act == 1


# ----------------------------------------------------------------- drawing


def test_drawing_order_after_transfer(impl):
    game = with_talon(
        impl,
        ["6S 7C 8C", "7D 9H 10H", "JC QC KC"],
        "QS",
        hand_size=3,
        variant="perevodnoy",
    )
    game.play("play 7C")
    expect(game, 1, ["transfer 7D", "take"])
    game.play("transfer 7D")
    expect(game, 2, ["beat 7C JC", "beat 7C QC", "beat 7C KC", "take"])
    game.play("take")
    # Extra volley: 1, 0 forced passes. Drawing: the opener (0) first gets the only
    # talon card, not the final main attacker (1).
    assert history(game, 4) == [
        (1, "pass"),
        (0, "pass"),
        (2, "take"),
        (1, "pass"),
        (0, "pass"),
    ]
    assert game.talon == []
    assert hand(game, 0) == sh("6S 8C QS")
    assert hand(game, 1) == sh("9H 10H")
    assert hand(game, 2) == sh("7C 7D JC QC KC")
    assert (game.attacker, game.defender) == (0, 1)
    expect(game, 0, plays("6S 8C QS"))


def test_drawing_order_when_opener_became_final_defender(impl):
    game = with_talon(
        impl,
        ["7C 8C 8D 8S", "7D 9H 10H", "7S JC QC"],
        "KD AD AS",
        first_attacker=0,
        hand_size=3,
        variant="perevodnoy",
    )
    game.play("play 7C")
    # 0 forced pass; 2 could add 7S.
    expect(game, 2, ["play 7S", "pass"])
    game.play("pass")
    game.play("transfer 7D")  # 1 -> 2; 1 and 0 forced passes
    expect(
        game,
        2,
        ["beat 7C 7S", "beat 7C JC", "beat 7C QC", "beat 7D 7S", "transfer 7S", "take"],
    )
    game.play("transfer 7S")  # 2 -> 0 (3 cards >= 3); 2 and 1 forced passes
    assert (game.attacker, game.defender) == (2, 0)
    expect(
        game,
        0,
        ["beat 7C 8C", "beat 7C 8S", "beat 7D 8D", "beat 7D 8S", "beat 7S 8S", "take"],
    )
    game.play("beat 7S 8S")
    game.play("beat 7C 8C")
    game.play("beat 7D 8D")
    # 2, 1 forced passes: bito. The opener 0 is the final defender: 1 draws first
    # (KD), then 2 (AD), then 0 last (AS).
    assert game.talon == []
    assert hand(game, 1) == sh("9H 10H KD")
    assert hand(game, 2) == sh("JC QC AD")
    # 0 (final defender) attacks 1 with its single card AS (forced), then passes;
    # 2 may throw AD.
    assert hand(game, 0) == []
    assert history(game, 12) == [
        (2, "pass"),
        (1, "pass"),
        (0, "play AS"),
        (0, "pass"),
    ]
    assert (game.attacker, game.defender) == (0, 1)
    expect(game, 2, ["play AD", "pass"])


def test_drawing_order_show_counts_as_transfer(impl):
    game = with_talon(
        impl,
        ["7C 8D 9S", "7H 10S JD"],
        "AH",
        first_attacker=0,
        hand_size=4,
        variant="perevodnoy",
        transfer_show_trump=True,
    )
    game.play("play 7C")  # then 0's forced pass
    expect(game, 1, ["beat 7C 7H", "transfer 7H", "show 7H", "take"])
    game.play("show 7H")
    # 1 is main attacker now and may throw the shown 7H (2 uncovered <= 2 cards).
    expect(game, 1, ["play 7H", "pass"])
    game.play("pass")
    # 0 can neither beat nor transfer: forced take; 1 gets the extra volley.
    expect(game, 1, ["play 7H", "pass"])
    game.play("pass")
    # 0 picks up. The opener (0) became the final defender through a show: the
    # player after him (1) draws first and gets the only card.
    assert history(game) == [
        (0, "play 7C"),
        (0, "pass"),
        (1, "show 7H"),
        (1, "pass"),
        (0, "take"),
        (1, "pass"),
    ]
    assert hand(game, 0) == sh("7C 8D 9S")
    assert hand(game, 1) == sh("7H 10S JD AH")
    assert game.talon == []
    assert (game.attacker, game.defender) == (1, 0)
    expect(game, 1, plays("7H 10S JD AH"))


def test_drawing_on_24_card_deck(impl):
    game = with_talon(
        impl,
        ["9C 10C JC QS KS AH", "10D 9H 10H JH QH KC"],
        "9S 10S JS AS QC AC JD QD KD AD KH 9D",
        deck_size=24,
    )
    # Trump D (face-up 9D); seat 1 holds the lowest trump in a hand (10D).
    assert game.trump_suit == "D"
    assert (game.attacker, game.defender) == (1, 0)
    expect(game, 1, plays("10D 9H 10H JH QH KC"))
    game.play("play 9H")
    expect(game, 0, ["beat 9H AH", "take"])
    game.play("beat 9H AH")
    # Bito; opener 1 draws first (9S), defender 0 last (10S).
    assert hand(game, 1) == sh("10D 10H JH QH KC 9S")
    assert hand(game, 0) == sh("9C 10C JC QS KS 10S")
    assert game.talon == cards("JS AS QC AC JD QD KD AD KH 9D")
    assert sorted_hand(game.discard) == sh("9H AH")
    assert (game.attacker, game.defender) == (0, 1)


def test_52_card_deck_from_deal(impl):
    rules = impl.Rules(deck_size=52)
    hands = [cards("2C 3D 4H 5S 6S 7S"), cards("2D 3C 8H 9H 10H JH")]
    rest = [c for c in rest_of_deck(52, *hands) if c != "AC"]
    game = impl.Game.from_deal(rules, hands=hands, talon=rest + ["AC"], discard=[])
    # Lowest trump 2C: seat 0 attacks.
    assert game.trump_suit == "C"
    assert (game.attacker, game.defender) == (0, 1)
    game.play("play 3D")
    expect(game, 1, ["beat 3D 3C", "take"])
    game.play("beat 3D 3C")
    # Bito; 0 draws 2S, 1 draws 2H (talon low to high).
    assert hand(game, 0) == sh("2C 4H 5S 6S 7S 2S")
    assert hand(game, 1) == sh("2D 8H 9H 10H JH 2H")
    assert len(game.talon) == 52 - 12 - 2


# ----------------------------------------------------------------- leaving, durak, draw


def three_player_end(impl):
    return endgame(impl, ["6S 7C", "8C 9C 10D JD", "7D"], trump="S")


def test_leaving_only_at_round_end(impl):
    game = three_player_end(impl)
    expect(game, 0, plays("6S 7C"))
    game.play("play 7C")
    expect(game, 2, ["play 7D", "pass"])
    game.play("play 7D")
    # 2 emptied its hand but is still in the game: its pass is forced (and recorded).
    assert hand(game, 2) == []
    expect(game, 1, ["beat 7C 8C", "beat 7C 9C", "beat 7D 10D", "beat 7D JD", "take"])
    game.play("beat 7C 8C")
    game.play("beat 7D 10D")
    # Volley: 0 forced pass, 2 (empty) forced pass; bito; 2 leaves now.
    assert history(game) == [
        (0, "play 7C"),
        (0, "pass"),
        (2, "play 7D"),
        (2, "pass"),
        (0, "pass"),
        (1, "beat 7C 8C"),
        (1, "beat 7D 10D"),
        (0, "pass"),
        (2, "pass"),
    ]
    assert game.out_order == [2]
    # 1 attacks; its defender is 0 (2 has left).
    assert (game.attacker, game.defender) == (1, 0)
    expect(game, 1, plays("9C JD"))


def test_durak_and_rewards_three_players(impl):
    game = three_player_end(impl)
    for move in ("play 7C", "play 7D", "beat 7C 8C", "beat 7D 10D"):
        game.play(move)
    game.play("play 9C")
    # 1 forced pass (no other 9); 0 beats with its trump.
    expect(game, 0, ["beat 9C 6S", "take"])
    game.play("beat 9C 6S")
    # 1 forced pass: bito; 0 leaves; 1 is left with JD: durak.
    assert game.over
    assert game.durak == 1
    assert game.out_order == [2, 0]
    assert list(game.rewards) == [0.5, -1.0, 0.5]
    assert game.to_act is None
    assert game.legal_moves() == []
    with pytest.raises(impl.IllegalMoveError):
        game.play("pass")


def test_draw_when_last_cards_go_together(impl):
    game = endgame(impl, ["7C", "8C"], trump="S")
    # No trumps: lowest rank 7C, seat 0; its play and pass are forced.
    assert history(game) == [(0, "play 7C"), (0, "pass")]
    expect(game, 1, ["beat 7C 8C", "take"])
    game.play("beat 7C 8C")
    # Forced pass, bito, both hands empty: both leave (ascending seats): draw.
    assert game.over
    assert game.durak is None
    assert game.out_order == [0, 1]
    assert list(game.rewards) == [0.0, 0.0]


def test_next_attacker_after_take_when_that_player_left(impl):
    game = endgame(impl, ["6S 7C 9D", "8D 10H", "7D"], trump="S")
    game.play("play 7C")
    game.play("play 7D")  # 2 plays its last card, forced passes by 2 and 0
    expect(game, 1, ["beat 7D 8D", "take"])
    game.play("take")
    # Extra volley: forced passes; 1 picks up; 2 leaves; the player after the
    # defender (2) has left: the next one, 0, attacks 1.
    assert game.out_order == [2]
    assert hand(game, 1) == sh("7C 7D 8D 10H")
    assert (game.attacker, game.defender) == (0, 1)
    expect(game, 0, plays("6S 9D"))


def test_endgame_with_players_already_out(impl):
    game = endgame(impl, ["", "6S 7C", "8C 9D", "10C JD"], trump="S")
    # Seat 0 is out. 1 (6S) attacks 2; throwers 1, 3.
    assert (game.attacker, game.defender) == (1, 2)
    game.play("play 7C")
    # 1 and 3 forced passes.
    expect(game, 2, ["beat 7C 8C", "take"])
    game.play("beat 7C 8C")
    # Bito. 2 attacks 3 with its single card 9D (forced) and passes; 1 forced pass.
    assert history(game) == [
        (1, "play 7C"),
        (1, "pass"),
        (3, "pass"),
        (2, "beat 7C 8C"),
        (1, "pass"),
        (3, "pass"),
        (2, "play 9D"),
        (2, "pass"),
        (1, "pass"),
    ]
    expect(game, 3, ["beat 9D JD", "take"])
    game.play("beat 9D JD")
    # Bito; 2 leaves. 3 attacks 1 (skipping seat 0): single card 10C forced.
    assert game.out_order == [2]  # seat 0 left before this game's record began
    assert (game.attacker, game.defender) == (3, 1)
    expect(game, 1, ["beat 10C 6S", "take"])
    game.play("take")
    # 3's extra-volley pass is forced; 1 picks up; 3 leaves; 1 is the durak.
    assert game.over and game.durak == 1
    assert game.out_order == [2, 3]
    assert list(game.rewards) == pytest.approx([1 / 3, -1.0, 1 / 3, 1 / 3])


# ----------------------------------------------------------------- first attacker


def test_first_attacker_without_trumps_lowest_rank_lowest_seat(impl):
    game = endgame(impl, ["8C 9D", "7S 10C", "7D JC"], trump="H")
    # Nobody holds a heart; rank 7 held by seats 1 and 2: the lower seat attacks.
    assert (game.attacker, game.defender) == (1, 2)
    expect(game, 1, plays("7S 10C"))


def test_first_attacker_lowest_trump_not_lowest_card(impl):
    game = endgame(impl, ["6C 8H", "6D 7H", "6S 9H"], trump="H")
    assert (game.attacker, game.defender) == (1, 2)
    expect(game, 1, plays("6D 7H"))


def test_first_attacker_given(impl):
    game = endgame(impl, ["6C 8H", "6D 7H", "6S 9H"], trump="H", first_attacker=2)
    assert (game.attacker, game.defender) == (2, 0)
    expect(game, 2, plays("6S 9H"))


# ----------------------------------------------------------------- bad input


def defence_position(impl):
    # Worked example up to row 10: seat 1 defends 7D and KH (7C is covered).
    game = worked_example(impl)
    for move in ("play 7C", "pass", "beat 7C KC", "play 7D", "pass", "play KH", "pass"):
        game.play(move)
    assert game.to_act == 1
    return game


@pytest.mark.parametrize(
    "move",
    ["fly 7D", "beat 7D", "beat 7D 10D 9S", "beat 7X 10D", "", "   ", "play", "beat 7D  1S"],
)
def test_malformed_move_changes_nothing(impl, move):
    game = defence_position(impl)
    before = state(game)
    with pytest.raises(impl.IllegalMoveError) as excinfo:
        game.play(move)
    assert isinstance(excinfo.value, ValueError)
    assert str(excinfo.value).strip()
    assert state(game) == before


@pytest.mark.parametrize(
    "move", ["beat 7D 8C", "beat 7D KC", "play 7S", "pass", "beat KH 10D", "transfer 7D"]
)
def test_illegal_move_changes_nothing(impl, move):
    game = defence_position(impl)
    before = state(game)
    with pytest.raises(impl.IllegalMoveError) as excinfo:
        game.play(move)
    assert isinstance(excinfo.value, ValueError)
    assert str(excinfo.value).strip()
    assert state(game) == before


@pytest.mark.parametrize("move", [3, None, 7.5, ["beat", "7D", "10D"], b"take"])
def test_wrong_type_move_changes_nothing(impl, move):
    game = defence_position(impl)
    before = state(game)
    with pytest.raises(impl.IllegalMoveError) as excinfo:
        game.play(move)
    assert isinstance(excinfo.value, ValueError)
    assert str(excinfo.value).strip()
    assert state(game) == before


@pytest.mark.parametrize("move,token", [("fly 7D", "fly"), ("beat 7D 1S", "1S"), ("play 7X", "7X")])
def test_malformed_message_names_the_problem(impl, move, token):
    game = defence_position(impl)
    with pytest.raises(impl.IllegalMoveError) as excinfo:
        game.play(move)
    assert token.lower() in str(excinfo.value).lower()


def test_illegal_message_names_the_move(impl):
    game = defence_position(impl)
    with pytest.raises(impl.IllegalMoveError) as excinfo:
        game.play("beat 7D 8C")
    message = str(excinfo.value)
    assert "7D" in message and "8C" in message


def test_illegal_move_error_is_value_error():
    assert issubclass(IllegalMoveError, ValueError)


# ----------------------------------------------------------------- bad Rules (engine)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        (dict(num_players=7), "num_players"),
        (dict(num_players=1), "num_players"),
        (dict(num_players=5, deck_size=24), "num_players"),
        (dict(num_players=9, deck_size=52), "num_players"),
        (dict(variant="durak"), "variant"),
        (dict(transfer_show_trump=True), "transfer_show_trump"),
        (dict(variant="prostoy", transfer_show_trump=True), "transfer_show_trump"),
        (dict(deck_size=40), "deck_size"),
        (dict(hand_size=0), "hand_size"),
        (dict(throw_in="left"), "throw_in"),
        (dict(max_attack=0), "max_attack"),
        (dict(first_round_max_attack=0), "first_round_max_attack"),
    ],
)
def test_bad_rules(kwargs, field):
    with pytest.raises(ValueError) as excinfo:
        Rules(**kwargs)
    assert field in str(excinfo.value)


def test_bad_rules_hand_size_does_not_fit():
    with pytest.raises(ValueError) as excinfo:
        Rules(num_players=6, hand_size=7)
    message = str(excinfo.value)
    assert "hand_size" in message or "num_players" in message


def test_good_rules_edge_values():
    for rules in [
        Rules(num_players=6),
        Rules(num_players=4, deck_size=24),
        Rules(num_players=8, deck_size=52),
        Rules(num_players=2, hand_size=18),
        Rules(variant="perevodnoy", transfer_show_trump=True),
        Rules(throw_in="neighbors", variant="prostoy", max_attack=4, first_round_max_attack=5),
    ]:
        # Accepted, and a game deals every seat a full hand, the rest to the talon.
        game = Game.new(rules, seed=0)
        assert [len(h) for h in game.hands] == [rules.hand_size] * rules.num_players
        assert len(game.talon) == rules.deck_size - rules.hand_size * rules.num_players


# ----------------------------------------------------------------- bad from_deal


def _deal_variants():
    hands = [list(h) for h in WORKED_EXAMPLE_HANDS]
    talon = list(WORKED_EXAMPLE_TALON)
    dup = [h[:] for h in hands]
    dup[1][0] = "7C"  # 7C twice, KC missing
    missing = talon[1:]
    outside = [hands[0] + ["2C"], hands[1], hands[2]]
    empty_with_talon = [hands[0], hands[1], []]
    return [
        ("duplicate", dict(hands=dup, talon=talon)),
        ("missing card", dict(hands=hands, talon=missing)),
        ("card outside deck", dict(hands=outside, talon=talon)),
        ("malformed card", dict(hands=[hands[0][:-1] + ["XJ"], hands[1], hands[2]], talon=talon)),
        ("wrong number of hands", dict(hands=hands[:2], talon=talon + hands[2])),
        ("trump contradicts face-up", dict(hands=hands, talon=talon, trump="H")),
        ("first attacker out of range", dict(hands=hands, talon=talon, first_attacker=3)),
        (
            "empty hand with talon",
            dict(hands=empty_with_talon, talon=talon[:-1] + hands[2] + talon[-1:]),
        ),
    ]


@pytest.mark.parametrize("case", _deal_variants(), ids=lambda c: c[0])
def test_bad_from_deal(impl, case):
    _, kwargs = case
    with pytest.raises(ValueError):
        impl.Game.from_deal(impl.Rules(num_players=3), discard=[], **kwargs)


def test_from_deal_trump_needed_with_empty_talon(impl):
    rules = impl.Rules(num_players=2)
    hands = [cards("6C 7C"), cards("8C 9C")]
    rest = rest_of_deck(36, *hands)
    with pytest.raises(ValueError):
        impl.Game.from_deal(rules, hands=hands, talon=[], discard=rest)
    game = impl.Game.from_deal(rules, hands=hands, talon=[], discard=rest, trump="C")
    assert game.trump_suit == "C"


def test_from_deal_first_attacker_must_be_in_game(impl):
    rules = impl.Rules(num_players=3)
    hands = [[], cards("6C 7C"), cards("8C 9C")]
    rest = rest_of_deck(36, *hands)
    with pytest.raises(ValueError):
        impl.Game.from_deal(rules, hands=hands, talon=[], discard=rest, trump="S", first_attacker=0)


def test_from_deal_needs_two_players_with_cards(impl):
    rules = impl.Rules(num_players=3)
    hands = [[], cards("6C 7C"), []]
    rest = rest_of_deck(36, *hands)
    with pytest.raises(ValueError):
        impl.Game.from_deal(rules, hands=hands, talon=[], discard=rest, trump="S")


def test_from_deal_trump_matching_face_up_is_fine(impl):
    game = impl.Game.from_deal(
        impl.Rules(num_players=3),
        hands=WORKED_EXAMPLE_HANDS,
        talon=WORKED_EXAMPLE_TALON,
        discard=[],
        trump="S",
    )
    assert game.trump_suit == "S"


# ----------------------------------------------------------------- Game.new (engine)


def assert_partition(game, deck_size):
    everything = [c for h in game.hands for c in h] + list(game.talon) + list(game.discard)
    everything += [c for pair in game.table for c in pair if c is not None]
    assert sorted_hand(everything) == rest_of_deck(deck_size)


def first_attacker_by_rule(hands, trump):
    from tests.reference import rank_of, suit_of

    trumps = [(rank_of(c), s) for s, h in enumerate(hands) for c in h if suit_of(c) == trump]
    if trumps:
        return min(trumps)[1]
    return min((rank_of(c), s) for s, h in enumerate(hands) for c in h)[1]


@pytest.mark.parametrize("seed", range(5))
def test_new_six_players_every_card_dealt(seed):
    game = Game.new(Rules(num_players=6), seed=seed)
    # No talon; the last card dealt (seat 5) fixes the trump and stays in that hand.
    assert game.talon == []
    assert game.discard == []
    assert game.table == []
    assert [len(h) for h in game.hands] == [6] * 6
    assert_partition(game, 36)
    assert game.trump_suit in {c[-1] for c in game.hands[5]}
    assert game.attacker == first_attacker_by_rule(game.hands, game.trump_suit)


@pytest.mark.parametrize("seed", range(3))
def test_new_eight_players_52_cards(seed):
    game = Game.new(Rules(num_players=8, deck_size=52), seed=seed)
    assert len(game.talon) == 4
    assert game.trump_suit == game.talon[-1][-1]
    assert all(len(h) == 6 for h in game.hands)
    assert_partition(game, 52)
    assert game.attacker == first_attacker_by_rule(game.hands, game.trump_suit)
    assert game.defender == (game.attacker + 1) % 8
    assert len(set(game.legal_moves())) == 6


@pytest.mark.parametrize("num_players,deck_size", [(2, 24), (4, 24), (2, 36), (3, 52)])
def test_new_decks(num_players, deck_size):
    game = Game.new(Rules(num_players=num_players, deck_size=deck_size), seed=11)
    assert_partition(game, deck_size)
    assert len(game.talon) == deck_size - 6 * num_players
    if game.talon:
        assert game.trump_suit == game.talon[-1][-1]
    assert game.to_act is not None and len(game.legal_moves()) >= 2


def test_new_same_seed_same_deal():
    a = Game.new(Rules(num_players=4), seed=123)
    b = Game.new(Rules(num_players=4), seed=123)
    assert a.hands == b.hands and a.talon == b.talon and a.trump_suit == b.trump_suit
