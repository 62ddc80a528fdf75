"""No peeking: change only what the acting seat cannot see, and its decision stays the same.

Two ``Game.from_deal`` positions share the acting seat's hand, the discard, the trump
card and every count, and differ in the talon order and in the unknown cards of the
other hands. The acting seat's observations must be equal, and so must every agent's
action with the same RNG seed.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import make_agent
from durak_env import Game, Rules
from durak_env.cards import DECK_LOW_RANK, RANK_NAMES, SUIT_NAMES
from tests.conftest import AGENT_RULE_SETS, HEURISTICS, rules_id


def _deck(size):
    return [r + s for r in RANK_NAMES[DECK_LOW_RANK[size]:] for s in SUIT_NAMES]


def _twin_deals(rules: Rules, rng: random.Random, discard_n: int):
    """Two deals equal for seat 0 (hand, discard, face-up card), different elsewhere.

    The last seat holds the same card ``x`` in both, so it can open with it in both.
    """
    deck = _deck(rules.deck_size)
    rng.shuffle(deck)
    n, h = rules.num_players, rules.hand_size
    mine, discard, face_up, x = deck[:h], deck[h : h + discard_n], deck[-1], deck[h + discard_n]
    hidden = deck[h + discard_n + 1 : -1]
    deals = []
    for _ in range(2):
        rest = hidden[:]
        rng.shuffle(rest)
        hands = [mine]
        for _ in range(1, n - 1):
            hands.append(rest[:h])
            rest = rest[h:]
        hands.append([x] + rest[: h - 1])
        rest = rest[h - 1 :]
        deals.append(dict(hands=hands, talon=rest + [face_up], discard=discard))
    assert deals[0] != deals[1]
    return deals, x


@pytest.mark.parametrize("rules", AGENT_RULE_SETS, ids=rules_id)
@pytest.mark.parametrize("seat0_role", ["attacker", "defender"])
def test_decision_ignores_hidden_information(rules, seat0_role):
    rng = random.Random(7)
    checked = 0
    for trial in range(20):
        deals, x = _twin_deals(rules, rng, discard_n=rng.choice([0, 4, 8]))
        first = 0 if seat0_role == "attacker" else rules.num_players - 1
        games = [Game.from_deal(rules, **d, first_attacker=first) for d in deals]
        if seat0_role == "defender":
            for g in games:
                g.play(f"play {x}")  # the same public moves in both games
                while not g.over and g.to_act != 0 and "pass" in g.legal_moves():
                    g.play("pass")
        if any(g.over or g.to_act != 0 for g in games):
            continue
        obs = [g.observe(0) for g in games]
        np.testing.assert_array_equal(obs[0], obs[1])
        masks = [g.action_mask() for g in games]
        np.testing.assert_array_equal(masks[0], masks[1])
        for name in HEURISTICS:
            acts = [make_agent(name, rules).act(o, m, np.random.default_rng(trial))
                    for o, m in zip(obs, masks, strict=True)]
            assert acts[0] == acts[1], (name, trial, games[0].legal_moves())
        checked += 1
    assert checked >= 10


def test_peeking_agent_is_caught():
    """The twin-deal check has teeth: an agent reading the opponent's hand is caught."""
    rules = Rules()
    rng = random.Random(1)
    differs = 0
    for _ in range(20):
        deals, _ = _twin_deals(rules, rng, 0)
        games = [Game.from_deal(rules, **d, first_attacker=0) for d in deals]
        # The cheat's choice depends on seat 1's hand, which seat 0 cannot see.
        picks = [g.legal_actions()[sum(map(len, g.hands[1])) % len(g.legal_actions())]
                 for g in games]
        differs += picks[0] != picks[1]
    assert differs > 0


def test_expert_sampled_search_ignores_hidden_information(monkeypatch):
    """With 1-3 cards in the talon ``expert`` solves sampled deals of the unseen cards:
    the samples come from the observation and the RNG only, never from the real deal."""
    import agents.heuristics

    calls = []
    search = agents.heuristics.searched_move

    def counted(solver, v, *args):
        calls.append(v.talon_size > 0)  # a sampled search, not the end-game solver
        return search(solver, v, *args)

    monkeypatch.setattr(agents.heuristics, "searched_move", counted)
    rules = Rules()
    rng = random.Random(11)
    sampled = 0
    for trial in range(30):
        deals, _ = _twin_deals(rules, rng, discard_n=rng.choice([21, 22]))  # talon 3 or 2
        games = [Game.from_deal(rules, **d, first_attacker=0) for d in deals]
        obs = [g.observe(0) for g in games]
        np.testing.assert_array_equal(obs[0], obs[1])
        acts = []
        for g, o in zip(games, obs, strict=True):
            agent = make_agent("expert", rules)
            acts.append(agent.act(o, g.action_mask(), np.random.default_rng(trial)))
        assert acts[0] == acts[1], (trial, games[0].legal_moves())
    sampled = sum(calls)
    assert sampled >= 20  # the sampled search really decided most of these moves
