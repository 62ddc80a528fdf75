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
from durak_env.symmetry import CARD_PIECES, PLAIN_PIECES, SUIT_PIECES, SuitSymmetry
from tests.helpers import fresh_deal, random_rules_kwargs

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
