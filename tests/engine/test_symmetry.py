"""The suit symmetry's maps (``durak_env.symmetry``) against the engine itself.

A game dealt with the suits renamed and played with the renamed moves must show, at every
step and to every seat, the renamed observation, global state and legal mask; the
game ends the same way. Rules are drawn at random, so every option and deck size is met.
"""

import random

import numpy as np
import pytest

from durak_env import Game, Rules
from durak_env.cards import SUIT_NAMES
from durak_env.observation import encode_state_at, observation_layout, state_size
from durak_env.symmetry import CARD_PIECES, PLAIN_PIECES, SUIT_PIECES, RankPacking, SuitSymmetry
from tests.helpers import fresh_deal, random_rules_kwargs
from tests.reference import SUITS, make_deck

GAMES = 60


def rename(card: str, perm) -> str:
    return card[:-1] + SUIT_NAMES[perm[SUIT_NAMES.index(card[-1])]]


def renamed_deal(deal: dict, perm) -> dict:
    out = dict(deal)
    out["hands"] = [[rename(c, perm) for c in h] for h in deal["hands"]]
    out["talon"] = [rename(c, perm) for c in deal["talon"]]
    out["discard"] = [rename(c, perm) for c in deal["discard"]]
    if deal["trump"] is not None:
        out["trump"] = SUIT_NAMES[perm[SUIT_NAMES.index(deal["trump"])]]
    return out


def global_state(game: Game, seat: int) -> np.ndarray:
    out = np.zeros(state_size(game.rules), np.float32)
    encode_state_at(game._st, 0, game._prm, game._obs_off, seat, out)
    return out


@pytest.mark.parametrize("seed", range(GAMES))
def test_renamed_game_is_the_renamed_image(seed):
    rng = random.Random(seed)
    rules = Rules(**random_rules_kwargs(rng))
    sym = SuitSymmetry(rules)
    k = rng.randrange(1, len(sym))  # not the identity
    deal = fresh_deal(rng, rules)
    a, b = Game.from_deal(rules, **deal), Game.from_deal(rules, **renamed_deal(deal, sym.perms[k]))
    kk = np.array([k])
    for _ in range(2000):
        for seat in range(rules.num_players):
            assert np.array_equal(sym.observations(a.observe(seat)[None], kk)[0], b.observe(seat))
            assert np.array_equal(sym.states(global_state(a, seat)[None], kk)[0],
                                  global_state(b, seat))
        mask_a, mask_b = a.action_mask(), b.action_mask()
        image = np.zeros_like(mask_b)
        image[sym.action_map[k]] = mask_a
        assert np.array_equal(image, mask_b)
        if a.over:
            break
        action = int(rng.choice(a.legal_actions()))
        a.step(action)
        b.step(int(sym.actions(np.array([[action]]), kk)[0, 0]))
    assert a.over and b.over
    assert a.durak == b.durak


def test_every_observation_piece_is_classified():
    names = {p.name for p in observation_layout(Rules(num_players=3))}
    assert names == CARD_PIECES | SUIT_PIECES | PLAIN_PIECES
    assert not (CARD_PIECES & SUIT_PIECES or CARD_PIECES & PLAIN_PIECES
                or SUIT_PIECES & PLAIN_PIECES)


def test_identity_and_bijections():
    rules = Rules(num_players=2, variant="perevodnoy", transfer_show_trump=True)
    sym = SuitSymmetry(rules)
    assert len(sym) == 24 and (sym.perms[0] == np.arange(4)).all()
    n_obs = sym.obs_index.shape[1]
    assert (sym.obs_index[0] == np.arange(n_obs)).all()
    for k in range(len(sym)):  # each map is a permutation of its range
        for m in (sym.obs_index[k], sym.state_index[k], sym.action_map[k]):
            assert (np.sort(m) == np.arange(len(m))).all()
    assert (sym.action_map[:, :2] == [0, 1]).all()  # pass and take are no cards


# ---------------------------------------------------------------- dead ranks


def dead_rank_deal(rng: random.Random, rules: Rules) -> dict:
    """A start-of-round position in which one to three whole ranks are discarded."""
    deck = make_deck(rules.deck_size)  # index i is card index i: rank i // 4, suit i % 4
    ranks = len(deck) // 4
    dead = set(rng.sample(range(ranks), rng.randint(1, min(3, ranks - 2))))
    discard = [c for i, c in enumerate(deck) if i // 4 in dead]
    rest = [c for i, c in enumerate(deck) if i // 4 not in dead]
    rng.shuffle(rest)
    n = rules.num_players
    per = min(rules.hand_size, len(rest) // n)
    hands = []
    for _ in range(n):
        size = rng.randint(1, per)
        hands.append(rest[:size])
        rest = rest[size:]
    talon_size = rng.randint(0, len(rest))
    talon, discard = rest[:talon_size], discard + rest[talon_size:]
    trump = talon[-1][-1] if talon else rng.choice(SUITS)
    return dict(hands=hands, talon=talon, discard=discard, trump=trump,
                first_attacker=rng.randrange(n))


def relabelled(deal: dict, rank_map) -> dict:
    """``deal`` with every card of rank ``r`` moved to rank ``rank_map[r]`` (same suit)."""
    deck = make_deck(sum(len(deal[k]) for k in ("talon", "discard"))
                     + sum(len(h) for h in deal["hands"]))
    index = {c: i for i, c in enumerate(deck)}

    def move(c):
        i = index[c]
        return deck[rank_map[i // 4] * 4 + i % 4]

    return dict(deal, hands=[[move(c) for c in h] for h in deal["hands"]],
                talon=[move(c) for c in deal["talon"]], discard=[move(c) for c in deal["discard"]])


@pytest.mark.parametrize("seed", range(GAMES))
def test_gaps_of_dead_ranks_do_not_matter(seed):
    """Two games that differ only in where the discarded ranks lie among the live ones
    (a random order-keeping placement of the live ranks) are the same game: the engine
    gives the relabelled masks at every step and the same loser, and ``RankPacking``
    shows both the same packed observations and packed legal moves."""
    rng = random.Random(seed)
    rules = Rules(**random_rules_kwargs(rng))
    pack = RankPacking(rules)
    deal = dead_rank_deal(rng, rules)
    deck = make_deck(rules.deck_size)
    ranks = len(deck) // 4
    dead = [r for r in range(ranks) if all(c in deal["discard"] for c in deck[4 * r:4 * r + 4])]
    live = [r for r in range(ranks) if r not in dead]
    slots = sorted(rng.sample(range(ranks), len(live)))
    rank_map = dict(zip(live, slots, strict=True)) | dict(
        zip(dead, [r for r in range(ranks) if r not in slots], strict=True))
    a, b = Game.from_deal(rules, **deal), Game.from_deal(rules, **relabelled(deal, rank_map))
    moved = np.array([[rank_map[i // 4] * 4 + i % 4 for i in range(len(deck))]])
    every = np.arange(pack.layout.n)[None, :]
    image_of = pack.actions(every, moved)[0]  # action id under the relabelling
    assert (np.sort(image_of) == np.arange(pack.layout.n)).all()
    for _ in range(2000):
        for seat in range(rules.num_players):
            oa, ob = a.observe(seat)[None], b.observe(seat)[None]
            assert np.array_equal(pack.observations(oa, pack.card_maps(oa)),
                                  pack.observations(ob, pack.card_maps(ob)))
        mask_a, mask_b = a.action_mask(), b.action_mask()
        image = np.zeros_like(mask_b)
        image[image_of] = mask_a
        assert np.array_equal(image, mask_b)
        if a.over:
            break
        legal = np.array([a.legal_actions()])
        oa, ob = a.observe(a.to_act)[None], b.observe(b.to_act)[None]
        assert np.array_equal(pack.pack(oa, legal)[1], pack.pack(ob, image_of[legal])[1])
        action = int(rng.choice(legal[0]))
        a.step(action)
        b.step(int(image_of[action]))
    assert a.over and b.over
    assert a.durak == b.durak


def test_packing_keeps_a_position_without_dead_ranks_and_is_idempotent():
    rng = random.Random(3)
    rules = Rules(num_players=2, variant="perevodnoy", transfer_show_trump=True)
    pack = RankPacking(rules)
    game = Game.from_deal(rules, **fresh_deal(rng, rules))
    obs, legal = game.observe(game.to_act)[None], np.array([game.legal_actions()])
    assert np.array_equal(pack.card_maps(obs)[0], np.arange(rules.deck_size))
    assert np.array_equal(pack.pack(obs, legal)[0], obs)
    game = Game.from_deal(rules, **dead_rank_deal(rng, rules))
    obs, legal = game.observe(game.to_act)[None], np.array([game.legal_actions()])
    maps = pack.card_maps(obs)
    assert (np.sort(maps[0]) == np.arange(rules.deck_size)).all()
    assert not np.array_equal(maps[0], np.arange(rules.deck_size))  # the gaps moved
    once = pack.pack(obs, legal)
    twice = pack.pack(*once)
    assert np.array_equal(once[0], twice[0]) and np.array_equal(once[1], twice[1])
