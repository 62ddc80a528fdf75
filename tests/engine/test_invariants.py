"""Random-rollout invariants of ``Game.new`` games (and of the test reference).

After every move: every card is in exactly one place, the attack never exceeds the
limit in force, uncovered cards never exceed the defender's hand, and the player
asked has at least two legal moves. Every game ends within a bound, the same seed
gives the same game, and the rewards are zero-sum.
"""

import random

import pytest

from durak_env import Game, Rules
from tests.helpers import MOVE_BOUND, fresh_deal, random_move, random_rules_kwargs, sorted_hand
from tests.reference import RefGame, make_deck

FAST_GAMES = 100
SLOW_GAMES = 3_000


def attack_limit(rules, game) -> int:
    # The discard pile only grows at a bito, i.e. at a round end, so "empty now"
    # during a round means "empty when the round started".
    if rules.first_round_max_attack is not None and not game.discard:
        return rules.first_round_max_attack
    return rules.max_attack


def check_position(rules, game) -> None:
    table_cards = [c for pair in game.table for c in pair if c is not None]
    everything = [c for h in game.hands for c in h] + table_cards
    everything += list(game.talon) + list(game.discard)
    assert len(everything) == len(set(everything)), "a card is in two places"
    assert sorted_hand(everything) == make_deck(rules.deck_size), "cards lost or invented"
    if game.over:
        assert game.to_act is None and game.attacker is None and game.defender is None
        assert game.legal_moves() == []
        return
    assert game.attacker != game.defender
    assert len(game.table) <= attack_limit(rules, game)
    uncovered = sum(1 for _, cover in game.table if cover is None)
    assert uncovered <= len(game.hands[game.defender])
    assert len(set(game.legal_moves())) >= 2, "a forced move was asked"
    assert len(set(game.legal_moves())) == len(game.legal_moves())
    assert all(not cover or attack for attack, cover in game.table)


def check_outcome(rules, game) -> None:
    n = rules.num_players
    rewards = list(game.rewards)
    assert len(rewards) == n
    assert abs(sum(rewards)) < 1e-9
    assert len(set(game.out_order)) == len(game.out_order)
    if game.durak is None:
        assert rewards == [0.0] * n
        assert sorted(game.out_order) == list(range(n))
    else:
        assert rewards[game.durak] == -1.0
        assert all(abs(r - 1 / (n - 1)) < 1e-9 for s, r in enumerate(rewards) if s != game.durak)
        assert sorted(game.out_order + [game.durak]) == list(range(n))
        assert game.hands[game.durak], "the durak holds cards"


def play_checked(rules, game, rng) -> list:
    check_position(rules, game)
    moves = 0
    while not game.over:
        assert moves < MOVE_BOUND, "game did not terminate"
        before = len(game.history)
        game.play(random_move(game, rng))
        assert len(game.history) > before
        check_position(rules, game)
        moves += 1
    check_outcome(rules, game)
    return [tuple(h) for h in game.history]


def engine_game(seed: int):
    rng = random.Random(seed)
    rules = Rules(**random_rules_kwargs(rng))
    return rules, Game.new(rules, seed=seed), rng


def test_engine_invariants():
    for seed in range(FAST_GAMES):
        rules, game, rng = engine_game(seed)
        play_checked(rules, game, rng)


def test_reference_invariants():
    # The differential test covers the reference much more; this is a sanity pass.
    for seed in range(FAST_GAMES // 2):
        rng = random.Random(seed)
        rules = Rules(**random_rules_kwargs(rng))
        game = RefGame.from_deal(rules, **fresh_deal(rng, rules))
        play_checked(rules, game, rng)


@pytest.mark.parametrize("seed", range(10))
def test_same_seed_same_game(seed):
    rules, first, rng = engine_game(seed)
    history_a = play_checked(rules, first, rng)
    rules, second, rng = engine_game(seed)
    assert second.hands == Game.new(rules, seed=seed).hands
    history_b = play_checked(rules, second, rng)
    assert history_a == history_b
    assert first.rewards == second.rewards and first.out_order == second.out_order


def test_different_seeds_differ():
    rules = Rules(num_players=3)
    deals = {tuple(map(tuple, Game.new(rules, seed=s).hands)) for s in range(10)}
    assert len(deals) == 10


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_engine_invariants_slow(chunk):
    per_chunk = SLOW_GAMES // 6
    for seed in range(10_000 + chunk * per_chunk, 10_000 + (chunk + 1) * per_chunk):
        rules, game, rng = engine_game(seed)
        play_checked(rules, game, rng)
