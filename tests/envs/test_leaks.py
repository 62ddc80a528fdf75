"""No leaks: an observation depends only on what its seat may know (docs/rules.md section 7).

For random mid-game positions we rebuild the state with the hidden information
reshuffled -- the talon order (except the face-up bottom card) and which unknown
cards sit in which other hand or in the talon -- and the observer's observation must
not change. Scripted games check that picked-up cards, the drawn trump card and
shown trumps are visible as known, and stop being known once played.
"""

import numpy as np
import pytest

from durak_env import Game, Rules, decode, raw_env
from durak_env import core as core_mod
from durak_env.cards import cards_of, parse_card
from durak_env.observation import encode_at
from tests.conftest import LEAK_RULE_SETS, rules_id


def _c(text):
    return text.split()


def _bits(cards):
    return sum(1 << c for c in cards)


def reshuffle_hidden(st, me, n, rng):
    """A copy of game 0 of ``st`` with every card ``me`` cannot locate moved at random."""
    out = st.copy()
    r = out[0]
    top, end = int(r["talon_top"]), int(r["talon_end"])
    face_up = int(r["trump_card"])
    talon_slots = end - top - (1 if end > top and face_up >= 0 else 0)
    pool = [int(c) for c in r["talon"][top : top + talon_slots]]
    sizes = {}
    for p in range(n):
        if p != me:
            unknown = int(r["hands"][p]) & ~int(r["known"][p])
            sizes[p] = len(cards_of(unknown))
            pool += cards_of(unknown)
    rng.shuffle(pool)
    r["talon"][top : top + talon_slots] = pool[:talon_slots]
    rest = pool[talon_slots:]
    for p, k in sizes.items():
        r["hands"][p] = np.uint64(int(r["known"][p]) | _bits(rest[:k]))
        rest = rest[k:]
    return out


@pytest.mark.parametrize("rules", LEAK_RULE_SETS, ids=rules_id)
def test_hidden_information_does_not_change_observations(rules):
    rng = np.random.default_rng(0)
    prm = core_mod.kernel_params(rules)
    e = raw_env(rules=rules)
    off = e._b.off
    checked = 0
    for seed in range(3):
        e.reset(seed=seed)
        while not any(e.terminations.values()):
            st = e._b.st
            for me in range(rules.num_players):
                base = e._b.observe(0, me)
                for _ in range(2):
                    other = reshuffle_hidden(st, me, rules.num_players, rng)
                    obs = np.empty_like(base)
                    encode_at(other, 0, prm, off, me, obs)
                    np.testing.assert_array_equal(obs, base)
                    checked += 1
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 200


def test_reshuffle_really_changes_hidden_cards():
    rules = Rules(num_players=3)
    e = raw_env(rules=rules)
    e.reset(seed=1)
    other = reshuffle_hidden(e._b.st, 0, 3, np.random.default_rng(2))
    assert not np.array_equal(other[0]["hands"][1:3], e._b.st[0]["hands"][1:3])


def _known(game, observer, seat):
    view = decode(game.observe(observer), game.rules)
    return view.known[(seat - observer) % game.rules.num_players]


def test_picked_up_cards_are_known_until_played():
    rules = Rules(num_players=2)
    game = Game.from_deal(
        rules,
        hands=[_c("6S 7S 8S 9S 10S JS"), _c("6C 7C 8C 9C 10C JC")],
        talon=_c("QS KS AS QC KC AC 6D 7D 8D 9D 10D JD QD KD AD 6H 7H 8H 9H 10H JH QH KH AH"),
    )
    # trump hearts; nobody holds a trump: lowest card 6S (seat 0) attacks
    assert game.to_act == 0
    # seat 0 has no other 6 (forced pass), seat 1 cannot beat a spade (forced take),
    # and after a take seat 0 attacks again
    game.play("play 6S")
    assert game.to_act == 0
    assert cards_of(_known(game, 0, 1)) == [parse_card("6S")]
    assert decode(game.observe(0), rules).hand_size[1] == 7
    rng = np.random.default_rng(3)
    while parse_card("6S") in cards_of(int(game._st[0]["hands"][1])):
        assert not game.over
        assert parse_card("6S") in cards_of(_known(game, 0, 1))
        legal = game.legal_moves()
        game.play("play 6S" if "play 6S" in legal else str(rng.choice(legal)))
    assert parse_card("6S") not in cards_of(_known(game, 0, 1))


def test_drawn_trump_card_is_known():
    rules = Rules(num_players=2, hand_size=2, deck_size=24)
    # talon bottom (face up) is 9H; both hands are drawn up after the first round
    game = Game.from_deal(
        rules,
        hands=[["9S", "10S"], ["JC", "QC"]],
        talon=_c("KS AS 9C 10C KC AC 9D 10D JD QD KD AD 10H JH QH KH AH JS QS 9H"),
    )
    rng = np.random.default_rng(0)
    while not game.over and parse_card("9H") not in cards_of(
            int(game._st[0]["hands"][0] | game._st[0]["hands"][1])):
        game.step(int(rng.choice(game.legal_actions())))
    holder = 0 if parse_card("9H") in cards_of(int(game._st[0]["hands"][0])) else 1
    assert parse_card("9H") in cards_of(_known(game, 1 - holder, holder))


def test_shown_trump_is_known():
    rules = Rules(num_players=3, variant="perevodnoy", transfer_show_trump=True)
    game = Game.from_deal(
        rules,
        hands=[_c("6C 10C JC QC KC AC"), _c("6S 6H 7H 8H 9H 10H"),
               _c("7S 8S 9S 10S JS QS")],
        talon=_c("7C 8C 9C 6D 7D 8D 9D 10D JD QD KD AD JH QH KH AH KS AS"),
        first_attacker=0,
    )
    # trump spades (AS face up); seat 0 attacks seat 1 with 6C; seat 1 shows 6S
    game.play("play 6C")  # nobody can add a 6: defence starts
    assert game.to_act == 1 and "show 6S" in game.legal_moves()
    game.play("show 6S")
    for observer in (0, 2):
        assert parse_card("6S") in cards_of(_known(game, observer, 1))
    # the shower's own observation marks it as shown
    assert decode(game.observe(0), rules).shown[1]
