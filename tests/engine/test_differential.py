"""Random games played move by move on the engine and on the plain-Python reference.

After every move both sides must agree on the legal moves, hands, table, talon,
discard, who acts and the roles; at the end on the durak, the leaving order, the
rewards and the whole history. Rule sets, deals and start-of-round positions are
random; a failure message carries everything needed to replay the game.
"""

import random

import pytest

from durak_env import Game, Rules
from tests.helpers import (
    final_state,
    fresh_deal,
    random_move,
    random_position,
    random_rules_kwargs,
    snapshot,
    tight_endgame,
)
from tests.reference import RefGame

FAST_GAMES = 500
SLOW_GAMES = 20_000
SLOW_CHUNKS = 20


def game_setup(seed: int):
    """Rules kwargs and from_deal kwargs of game ``seed``: a fresh deal, a random
    start-of-round position or a tight endgame."""
    rng = random.Random(seed)
    rules_kwargs = random_rules_kwargs(rng)
    rules = Rules(**rules_kwargs)
    kind = rng.random()
    if kind < 0.4:
        deal = fresh_deal(rng, rules)
    elif kind < 0.8:
        deal = random_position(rng, rules)
    else:
        deal = tight_endgame(rng, rules)
    return rng, rules_kwargs, rules, deal


def _repro(seed, rules_kwargs, deal, moves, what, engine_value, ref_value):
    return (
        f"seed={seed} differs in {what} after {len(moves)} chosen moves\n"
        f"rules=Rules(**{rules_kwargs!r})\n"
        f"deal={deal!r}\n"
        f"moves={moves!r}\n"
        f"engine: {engine_value!r}\nreference: {ref_value!r}"
    )


def _compare(seed, rules_kwargs, deal, moves, engine_state, ref_state):
    for key in ref_state:
        if engine_state[key] != ref_state[key]:
            raise AssertionError(
                _repro(seed, rules_kwargs, deal, moves, key, engine_state[key], ref_state[key])
            )


def play_pair(seed: int) -> int:
    """Play game ``seed`` on both sides; returns the number of chosen moves."""
    rng, rules_kwargs, rules, deal = game_setup(seed)
    engine = Game.from_deal(rules, **deal)
    ref = RefGame.from_deal(rules, **deal)
    moves: list[str] = []
    eager = rng.random() < 0.5
    _compare(seed, rules_kwargs, deal, moves, snapshot(engine), snapshot(ref))
    while not ref.over:
        move = random_move(ref, rng, eager)
        moves.append(move)
        engine.play(move)
        ref.play(move)
        _compare(seed, rules_kwargs, deal, moves, snapshot(engine), snapshot(ref))
        assert len(engine.history) == len(ref.history), _repro(
            seed, rules_kwargs, deal, moves, "history", engine.history, ref.history
        )
    _compare(seed, rules_kwargs, deal, moves, final_state(engine), final_state(ref))
    return len(moves)


def test_differential_fast():
    for seed in range(FAST_GAMES):
        play_pair(seed)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(SLOW_CHUNKS))
def test_differential_slow(chunk):
    per_chunk = SLOW_GAMES // SLOW_CHUNKS
    start = 1_000_000 + chunk * per_chunk
    for seed in range(start, start + per_chunk):
        play_pair(seed)
