"""Every agent plays whole games in every variant without an illegal action."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents import AGENT_NAMES, make_agent
from agents.tournament import Match, play_game
from agents.view import MoveCodec, fast_decode
from durak_env import Game, Rules, decode

HEURISTICS = ["random", "greedy", "card_counting", "pair_holding", "trump_saving", "expert",
              "expert_rules"]

RULE_SETS = [
    Rules(),
    Rules(variant="prostoy"),
    Rules(variant="perevodnoy"),
    Rules(variant="perevodnoy", transfer_show_trump=True),
    Rules(num_players=3, throw_in="neighbors"),
    Rules(num_players=4, variant="perevodnoy", transfer_show_trump=True, throw_in="neighbors"),
    Rules(num_players=5, variant="prostoy"),
    Rules(num_players=6),
    Rules(num_players=6, variant="perevodnoy"),
    Rules(deck_size=24, num_players=2),
    Rules(deck_size=24, num_players=4, variant="perevodnoy", transfer_show_trump=True),
    Rules(deck_size=52, num_players=2, variant="perevodnoy"),
    Rules(deck_size=52, num_players=8, throw_in="neighbors", first_round_max_attack=5),
    Rules(deck_size=52, num_players=3, hand_size=8, max_attack=4),
]


def _play_many(rules: Rules, games: int, seed: int = 0) -> int:
    """Games with the agents rotated through the seats; returns decisions made."""
    n = rules.num_players
    agents = [make_agent(HEURISTICS[(s + k) % len(HEURISTICS)], rules)
              for k in range(len(HEURISTICS)) for s in range(n)]
    decisions = 0
    for g in range(games):
        k = g % len(HEURISTICS)
        seats = tuple((s + k) % len(HEURISTICS) for s in range(n))
        r = play_game(rules, agents[k * n : (k + 1) * n], seed, Match(g, g, seats))
        decisions += r.decisions
    return decisions


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.variant}-{r.num_players}p-"
                         f"{r.deck_size}-{r.throw_in}-show{int(r.transfer_show_trump)}")
def test_agents_play_legal_games(rules):
    assert _play_many(rules, 36) > 0


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.variant}-{r.num_players}p-"
                         f"{r.deck_size}-{r.throw_in}-show{int(r.transfer_show_trump)}")
def test_agents_play_thousands_of_games(rules):
    # 14 rule sets x 120 games: every agent plays every variant, 1,680 games in all
    # (expert and card_counting search end games, ~15 ms a decision).
    assert _play_many(rules, 120, seed=1) > 0


def test_every_heuristic_is_registered():
    assert set(HEURISTICS) <= set(AGENT_NAMES)


@pytest.mark.parametrize("rules", RULE_SETS[:6], ids=str)
def test_fast_decode_matches_reference(rules):
    rng = np.random.default_rng(3)
    for seed in range(5):
        game = Game.new(rules, seed)
        while not game.over:
            for seat, _ in itertools.product(range(rules.num_players), [0]):
                obs = game.observe(seat)
                assert fast_decode(obs, rules) == decode(obs, rules)
            game.step(int(rng.choice(game.legal_actions())))


def test_move_codec_round_trips_every_legal_action():
    rules = Rules(variant="perevodnoy", transfer_show_trump=True)
    codec = MoveCodec(rules)
    rng = np.random.default_rng(0)
    for seed in range(10):
        game = Game.new(rules, seed)
        while not game.over:
            mv = codec.moves(game.action_mask())
            back = ([0] * mv.can_pass + [1] * mv.can_take + [codec.play(c) for c in mv.plays]
                    + [codec.beat(a, b) for a, b in mv.beats]
                    + [codec.transfer(c) for c in mv.transfers] + [codec.show(c) for c in mv.shows])
            assert sorted(back) == sorted(game.legal_actions().tolist())
            game.step(int(rng.choice(game.legal_actions())))
