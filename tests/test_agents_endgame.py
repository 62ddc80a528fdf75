"""The exact two-player end-game search: sound, and built from the observation only."""

from __future__ import annotations

import numpy as np
import pytest

from agents.endgame import EndgameSolver
from agents.view import fast_decode
from durak_env import Game, Rules


@pytest.mark.parametrize("rules", [Rules(), Rules(variant="perevodnoy", transfer_show_trump=True),
                                   Rules(deck_size=24, variant="prostoy")], ids=str)
def test_claimed_wins_are_won_against_any_play(rules):
    """Whenever the search says 'won', following it wins whatever the opponent does.

    (When it gives up later, past its node budget, the game is not checked.)"""
    solver = EndgameSolver(rules, max_nodes=4000, last_card=True)
    claimed = 0
    for seed in range(30):
        game = Game.new(rules, seed)
        rng = np.random.default_rng(seed)
        claim = gave_up = False
        while not game.over:
            legal = game.legal_actions()
            if game.to_act == 0:
                v = fast_decode(game.observe(0), rules)
                if solver.applies(v):
                    a = solver.solve(v, list(legal))
                    if a is not None:
                        claim = claim or solver.value == 1
                        game.step(a)
                        continue
                gave_up = gave_up or claim  # gave up after its claim: not checked
            game.step(int(rng.choice(legal)))
        if claim and not gave_up:
            claimed += 1
            assert game.durak == 1, f"seed {seed}: the search claimed a win and lost"
    assert claimed >= 5


def test_solves_a_hand_checked_end_game():
    # Talon empty, trump spades. Seat 0 attacks with 6C 6D AS against 7C 7D:
    # opening with AS (unbeatable) then 6C, 6D wins; the search must find a winning line.
    rules = Rules()
    deck = Game.new(rules, 0)
    rest = [c for h in deck.hands for c in h] + deck.talon
    mine, theirs = ["6C", "6D", "AS"], ["7C", "7D"]
    discard = [c for c in rest if c not in mine + theirs]
    game = Game.from_deal(rules, hands=[mine, theirs], discard=discard, trump="S",
                          first_attacker=0)
    solver = EndgameSolver(rules)
    v = fast_decode(game.observe(0), rules)
    assert solver.applies(v)
    a = solver.solve(v, game.legal_actions().tolist())
    assert a is not None and solver.value == 1
    assert game.layout.decode(a) == "play AS"
