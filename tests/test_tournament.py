"""Tournament statistics on hand-checked cases, paired seating, and the command line."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from agents.stats import ELO_PER_NAT, bradley_terry, wilson
from agents.tournament import GameResult, run, schedule, split_specs, summarize
from durak_env import Rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- Wilson intervals


# Reference values from the other closed form, (2np + z^2 -+ z sqrt(z^2 + 4np(1-p))) / (2(n + z^2)).
@pytest.mark.parametrize("k, n, lo, hi", [
    (7, 10, 0.396778, 0.892209),
    (0, 10, 0.0, 0.277533),
    (10, 10, 0.722467, 1.0),
    (50, 100, 0.403832, 0.596168),
    (1, 1, 0.206549, 1.0),
])
def test_wilson_known_values(k, n, lo, hi):
    got = wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=2e-6)


def test_wilson_of_nothing_is_everything():
    assert wilson(0, 0) == (0.0, 1.0)


# ---------------------------------------------------------------- Bradley-Terry


def test_bradley_terry_two_players_closed_form():
    # 750 : 250 -> strength difference ln 3 (190.8 Elo); var(diff) = 1 / (N p (1 - p)).
    theta, se = bradley_terry(np.array([[0, 750], [250, 0]]))
    assert theta[0] - theta[1] == pytest.approx(math.log(3), abs=1e-4)
    assert (theta[0] - theta[1]) * ELO_PER_NAT == pytest.approx(190.85, abs=0.05)
    assert se[0] == pytest.approx(0.5 / math.sqrt(1000 * 0.75 * 0.25), rel=1e-3)


def test_bradley_terry_recovers_synthetic_strengths():
    true = np.array([1.0, 0.3, -0.2, -1.1])
    n = 10_000
    p = 1 / (1 + np.exp(true[None, :] - true[:, None]))
    wins = n * p
    np.fill_diagonal(wins, 0)
    theta, se = bradley_terry(wins)
    assert theta == pytest.approx(true - true.mean(), abs=1e-3)
    assert np.all(se > 0) and np.all(se < 0.02)


def test_bradley_terry_sampled_result_within_error_bars():
    rng = np.random.default_rng(0)
    true = np.array([0.8, 0.0, -0.8])
    wins = np.zeros((3, 3))
    for i in range(3):
        for j in range(i + 1, 3):
            pij = 1 / (1 + math.exp(true[j] - true[i]))
            w = rng.binomial(4000, pij)
            wins[i, j], wins[j, i] = w, 4000 - w
    theta, se = bradley_terry(wins)
    assert np.all(np.abs(theta - (true - true.mean())) < 4 * se)


def test_bradley_terry_survives_a_perfect_record():
    theta, se = bradley_terry(np.array([[0, 100], [0, 0]]))
    assert np.all(np.isfinite(theta)) and theta[0] > theta[1]


# ---------------------------------------------------------------- schedule


def test_two_player_schedule_plays_each_deal_in_both_seatings():
    sched = schedule(3, 2, 6)
    assert len(sched) == 3 * 6  # 3 pairs x 3 deals x 2 seatings
    by_pair = Counter()
    for m in sched:
        by_pair[frozenset(m.seats), m.deal, m.seats] += 1
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        for deal in range(3):
            assert by_pair[frozenset((i, j)), deal, (i, j)] == 1
            assert by_pair[frozenset((i, j)), deal, (j, i)] == 1
    assert [m.index for m in sched] == list(range(len(sched)))


def test_multi_player_schedule_rotates_the_lineup_through_every_seat():
    sched = schedule(3, 4, 8)  # 2 deals x 4 rotations
    assert len(sched) == 8
    for deal in range(2):
        games = [m.seats for m in sched if m.deal == deal]
        assert len(games) == 4
        lineup = games[0]
        for rot, seats in enumerate(games):
            assert seats == tuple(lineup[(s + rot) % 4] for s in range(4))
    # More agents than seats: lineups cycle through the 4-subsets of 5 agents.
    sched = schedule(5, 4, 4 * 5)
    subsets = [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 2, 3, 4), (1, 2, 3, 4)]
    assert {frozenset(m.seats) for m in sched} == {frozenset(c) for c in subsets}


# ---------------------------------------------------------------- summary counts


def _res(i, seats, durak):
    return GameResult(i, seats, durak, [], 10)


def test_summary_counts_two_players():
    # Agents A=0, B=1. Deal 0: A wins in both seatings. Deal 1: B wins as seat 0, then a draw.
    results = [_res(0, (0, 1), 1), _res(1, (1, 0), 0), _res(2, (0, 1), 0), _res(3, (1, 0), -1)]
    s = summarize(["A", "B"], results)
    a, b = s.agents[0].row(), s.agents[1].row()
    assert (a["games"], a["wins"], a["losses"], a["draws"]) == (4, 2, 1, 1)
    assert (b["games"], b["wins"], b["losses"], b["draws"]) == (4, 1, 2, 1)
    assert a["win_rate"] == pytest.approx(2 / 3)
    assert (a["win_rate_lo"], a["win_rate_hi"]) == pytest.approx(wilson(2, 3))
    assert a["durak_rate"] == pytest.approx(1 / 4)
    ab = s.pairs[0, 1]
    assert (ab.games, ab.wins, ab.losses, ab.draws) == (4, 2, 1, 1)
    assert s.elo[0] > s.elo[1]


def test_summary_counts_three_players():
    # One game, seats (A, B, C), B is the durak: A and C beat B; A-C undecided.
    s = summarize(["A", "B", "C"], [_res(0, (0, 1, 2), 1)])
    assert [t.losses for t in s.agents] == [0, 1, 0]
    assert [t.wins for t in s.agents] == [1, 0, 1]
    assert (s.pairs[0, 1].wins, s.pairs[1, 0].losses) == (1, 1)
    assert (s.pairs[0, 2].wins, s.pairs[0, 2].losses, s.pairs[0, 2].draws) == (0, 0, 1)


def test_split_specs_keeps_parameters_together():
    assert split_specs("expert:w_pairs=1.5,w_trump=2,greedy,ismcts:iterations=400") == [
        "expert:w_pairs=1.5,w_trump=2", "greedy", "ismcts:iterations=400"]


# ---------------------------------------------------------------- running


def test_results_do_not_depend_on_the_number_of_workers():
    rules = Rules()
    one = run(rules, ["greedy", "random"], 8, seed=5, workers=1, progress=False, chunk=3)
    two = run(rules, ["greedy", "random"], 8, seed=5, workers=2, progress=False, chunk=3)
    assert [(r.seats, r.durak, r.decisions) for r in one] == [
        (r.seats, r.durak, r.decisions) for r in two]


def test_paired_games_replay_the_same_deal():
    from agents.tournament import deal_seed
    from durak_env import Game

    res = run(Rules(), ["greedy", "random"], 4, seed=3, progress=False, record=4)
    assert [r.seats for r in res] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    first = Game.new(Rules(), deal_seed(3, 0)).deal_record
    assert first == Game.new(Rules(), deal_seed(3, 0)).deal_record
    assert res[0].history is not None and res[0].history[0][0] == first["first_attacker"]


def test_command_line_smoke(tmp_path):
    out = tmp_path / "t"
    proc = subprocess.run(
        [sys.executable, "-m", "agents.tournament", "--agents", "greedy,random,trump_saving",
         "--players", "2", "--games", "4", "--seed", "1", "--out", str(out), "--no-progress",
         "--variant", "perevodnoy", "--deck-size", "24"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "win% (decided)" in proc.stdout
    for name in ("agents.csv", "pairs.csv", "results.json", "heatmap.png", "ratings.png"):
        assert (out / name).exists(), name
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["played"] == 12
    assert data["config"]["rules"]["variant"] == "perevodnoy"


def test_command_line_rejects_unknown_agent(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "agents.tournament", "--agents", "greedy,nobody", "--games", "2",
         "--out", str(tmp_path), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "valid agents" in proc.stderr
