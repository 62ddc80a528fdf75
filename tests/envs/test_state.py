"""The card counter's pieces of the observation (``unseen``, ``own_known``) and the global
state for centralised critics (``state()``): what they hold, checked against the core's
own record of every game, and that the docs table is the code's."""

import numpy as np
import pytest

from durak_env import Game, Rules, VectorEnv, aec, decode, raw_env
from durak_env.cards import cards_of, deck_mask, parse_card
from durak_env.observation import observation_size, state_layout_table, state_size
from tests.conftest import LEAK_RULE_SETS, rules_id


def _bits(cards):
    return sum(1 << c for c in cards)


def _table(r):
    return _bits(int(c) for c in r["attack"][: r["n_attack"]]) | _bits(
        int(c) for c in r["cover"][: r["n_attack"]] if c >= 0)


def _talon(r):
    return [int(c) for c in r["talon"][r["talon_top"] : r["talon_end"]]]


def _check_counting_pieces(r, rules, me, obs):
    """``unseen`` and ``own_known`` of seat me's observation against game record r."""
    n, v = rules.num_players, decode(obs, rules)
    talon = _talon(r)
    face_up = int(r["trump_card"]) if talon and r["trump_card"] >= 0 else -1
    hidden = _bits(c for c in talon if c != face_up)
    for p in range(n):
        if p != me:
            hidden |= int(r["hands"][p]) & ~int(r["known"][p])
    assert v.unseen == hidden
    placed = v.hand | v.table | v.discard | (1 << face_up if face_up >= 0 else 0)
    for k in v.known[1:]:
        placed |= k
    assert v.unseen | placed == deck_mask(rules.deck_size) and not v.unseen & placed
    assert v.own_known == int(r["known"][me]) and v.own_known & ~v.hand == 0


@pytest.mark.parametrize("rules", LEAK_RULE_SETS, ids=rules_id)
def test_unseen_and_own_known_from_the_core_record(rules):
    rng = np.random.default_rng(0)
    e = raw_env(rules=rules)
    checked = 0
    for seed in range(3):
        e.reset(seed=seed)
        while not any(e.terminations.values()):
            r = e._b.st[0]
            for me in range(rules.num_players):
                _check_counting_pieces(r, rules, me, e._b.observe(0, me))
                checked += 1
            e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    assert checked > 100


def test_taken_cards_become_own_known():
    rules = Rules(num_players=2)
    talon = "6H 7H 8H 9H 10H JH QH KH AH 6D 7D 8D 9D 10D JD QD KD AD 6S KS AS 6C KC AC"
    game = Game.from_deal(rules, hands=[["7S", "8S", "9S", "10S", "JS", "QS"],
                                        ["7C", "8C", "9C", "10C", "JC", "QC"]],
                          talon=talon.split(), first_attacker=0)
    game.play("play 7S")
    game.play("take")  # seat 1 picks up 7S: seat 0 and seat 1 both know where it is
    v1 = decode(game.observe(1), rules)
    assert parse_card("7S") in cards_of(v1.own_known)
    assert parse_card("7S") not in cards_of(v1.unseen)
    v0 = decode(game.observe(0), rules)
    assert parse_card("7S") in cards_of(v0.known[1]) and v0.own_known == 0


def _check_state(r, rules, me, obs, state):
    n, d, low, o = rules.num_players, rules.deck_size, rules.low_card, observation_size(rules)
    assert state.shape == (state_size(rules),)
    np.testing.assert_array_equal(state[:o], obs)
    for rel in range(n):
        piece = state[o + rel * d : o + (rel + 1) * d]
        assert _bits(low + int(i) for i in np.flatnonzero(piece)) == int(r["hands"][(me + rel) % n])
    order = state[o + n * d :]
    cards = [low + int(i) for i in np.flatnonzero(order)]
    assert sorted(cards, key=lambda c: order[c - low]) == _talon(r)


@pytest.mark.parametrize("rules", LEAK_RULE_SETS, ids=rules_id)
def test_vector_state_is_the_acting_seats_global_view(rules):
    venv = VectorEnv(rules, 16, seed=3, num_threads=1)
    venv.reset()
    for _ in range(30):
        states = venv.state()
        assert venv.single_state_space.contains(states[0])
        to_act = venv._to_act
        for g in range(0, 16, 5):
            me = int(to_act[g])
            r = venv.batch.st[g]
            _check_state(r, rules, me, venv.batch.observe(g, me), states[g])
        venv.step(venv.random_actions())


def test_aec_state_follows_the_agent_to_act():
    e = raw_env(num_players=3)
    e.reset(seed=4)
    for _ in range(20):
        me = e._seat[e.agent_selection]
        s = e.state()
        assert e.state_space.contains(s)
        _check_state(e._b.st[0], e.rules, me, e.observe(e.agent_selection)["observation"], s)
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))


def test_docstring_state_table_matches_layout():
    doc = aec.__doc__
    start = doc.index("<!-- state table")
    start = doc.index("| piece |", start)
    end = doc.index("<!-- end of state table -->")
    assert doc[start:end].strip() == state_layout_table(Rules())
