"""The exact two-player end-game search: sound, and built from the observation only."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agents import make_agent
from agents.determinize import view_array
from agents.endgame import EXACT, LOWER, TT_HIGH, UNKNOWN, UPPER, EndgameSolver, _entry
from agents.pimc import pimc_values
from agents.view import fast_decode
from durak_env import Game, Rules
from durak_env.cards import NUM_CARDS
from tests.conftest import ENDGAME_RULE_SETS, rules_id
from tests.helpers import hand_checked_end_game


@pytest.mark.parametrize("rules", ENDGAME_RULE_SETS, ids=rules_id)
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
    # the search must find a winning line (opening with AS)
    rules, game = hand_checked_end_game()
    solver = EndgameSolver(rules)
    v = fast_decode(game.observe(0), rules)
    assert solver.applies(v)
    a = solver.solve(v, game.legal_actions().tolist())
    assert a is not None and solver.value == 1
    assert game.layout.decode(a) == "play AS"


@pytest.mark.parametrize("rules", ENDGAME_RULE_SETS[:2], ids=rules_id)
def test_move_order_and_table_size_change_no_value(rules):
    """Trying cheap cards first, or a larger or smaller transposition table (a 16-entry
    one collides all the time), only changes how fast the search is: every move solved
    by each of them has the same value."""
    solvers = [EndgameSolver(rules, last_card=True),
               EndgameSolver(rules, last_card=True, cheap_first=True),
               EndgameSolver(rules, last_card=True, cheap_first=True, tt_bits=4),
               EndgameSolver(rules, last_card=True, cheap_first=True, tt_bits=20)]
    compared = 0
    for seed in range(40):
        game = Game.new(rules, seed)
        rng = np.random.default_rng(seed)
        while not game.over:
            v = fast_decode(game.observe(game.to_act), rules)
            legal = game.legal_actions().tolist()
            if game.to_act == 0 and len(legal) > 1 and solvers[0].applies(v):
                values = []
                for solver in solvers:
                    solver.reset()
                    solver.load(v)
                    values.append(solver.root_values(legal, 20000))
                for other in values[1:]:
                    known = (values[0] != UNKNOWN) & (other != UNKNOWN)
                    np.testing.assert_array_equal(values[0][known], other[known])
                    compared += known.sum()
                break
            game.step(int(rng.choice(legal)))
    assert compared >= 90


def test_a_table_entry_holds_one_key_and_an_empty_one_none():
    """An entry is one word (the key's high bits, then flag and value): it gives back what
    was stored for its own key, nothing for a key that differs in any bit above the
    index, and an empty entry matches no key, not even one whose high bits are all 0."""
    key = np.uint64(0x9E3779B97F4A7C15)
    for flag in (EXACT, LOWER, UPPER):
        for value in (-1, 0, 1):
            e = (key & TT_HIGH) | np.uint64(4 * flag + value + 2)
            assert _entry(e, key) == (flag, value)
            assert _entry(e, key ^ np.uint64(1 << 40))[0] == -1
            assert _entry(e, key ^ np.uint64(1 << 4))[0] == -1
    for small in (0, 1, 15):
        assert _entry(np.uint64(0), np.uint64(small))[0] == -1
    with pytest.raises(ValueError, match="tt_bits must be at least 4"):
        EndgameSolver(Rules(num_players=2), tt_bits=3)


def test_sampled_search_finds_the_attack_that_wins_every_deal():
    # Trump clubs; the talon is 6C on top of the face-up 10C. Seat 0 holds 7C 10D and
    # attacks; seat 1 holds AD 9H. Seat 0 sees only that AD 9H 6C are split between
    # seat 1's hand (two) and the top of the talon (one).
    rules = Rules()
    deck = Game.new(rules, 0)
    unseen = ["AD", "9H", "6C"]
    everything = [c for h in deck.hands for c in h] + deck.talon
    discard = [c for c in everything if c not in ["7C", "10D", "10C", *unseen]]

    def deal(top):
        theirs = [c for c in unseen if c != top]
        return Game.from_deal(rules, hands=[["7C", "10D"], theirs], talon=[top, "10C"],
                              discard=discard, first_attacker=0)

    game = deal("6C")
    obs, mask = game.observe(0), game.action_mask()
    moves = [game.layout.encode("play 10D"), game.layout.encode("play 7C")]
    # Whichever card lies on the talon, 10D loses and 7C wins (exact search of each deal).
    solver = EndgameSolver(rules, cheap_first=True)
    for top in unseen:
        solver.reset()
        solver.st[0] = deal(top)._st[0]
        assert solver.root_values(moves, 100000).tolist() == [-1, 1], top
    # The heuristic alone keeps its trump and opens with 10D ...
    heuristic = make_agent("expert:pimc_talon=0", rules)
    assert heuristic.act(obs, mask, np.random.default_rng(0)) == moves[0]
    # ... the sampled search opens with 7C, whatever its random deals.
    for seed in range(5):
        assert make_agent("expert", rules).act(obs, mask, np.random.default_rng(seed)) == moves[1]
    # ISMCTS rates the moves the same way first: one move is best, so it searches no more.
    for seed in range(5):
        agent = make_agent("ismcts:iterations=1", rules)
        assert agent.act(obs, mask, np.random.default_rng(seed)) == moves[1]
        assert agent.last_iterations == 0
    # Every deal gives 7C +1 and 10D -1, so the totals count the deals that were solved:
    # all of them without a deadline or before a far one, only the first past one.
    view, cards = view_array(fast_decode(obs, rules)), np.zeros(NUM_CARDS, np.int64)
    for deadline, deals in [(None, 4), (time.perf_counter() + 600, 4), (0.0, 1)]:
        total = pimc_values(solver, view, moves, 4, 1000, np.random.default_rng(1), cards,
                            deadline)
        assert total.tolist() == [-deals, deals], deadline
