"""Tournament statistics on hand-checked cases, paired seating, and the command line."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pickle
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pytest

from agents.base import Agent, RandomAgent
from agents.stats import ELO_PER_NAT, bradley_terry, wilson
from agents.tournament import (
    GameResult,
    Match,
    deal_seed,
    format_tables,
    main,
    play_game,
    run,
    schedule,
    split_specs,
    summarize,
    write_records,
)
from durak_env import Game, Rules
from durak_env.records import load_record

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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


def test_tables_keep_long_agent_names_apart():
    long = "ppo:runs/some_long_run_name/checkpoints/final.pt"
    s = summarize([long, "expert"], [_res(0, (0, 1), 1), _res(1, (1, 0), 1)])
    rows = format_tables(s, 2).splitlines()
    assert [ln.split()[:2] for ln in rows if ln.startswith(long)] == [[long, "2"], [long, "expert"]]


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
    one = run(rules, ["greedy", "random"], 8, seed=5, workers=1, progress=False, chunk=3,
              record=5)
    two = run(rules, ["greedy", "random"], 8, seed=5, workers=2, progress=False, chunk=3,
              record=5)
    assert [(r.seats, r.durak, r.decisions) for r in one] == [
        (r.seats, r.durak, r.decisions) for r in two]
    # Records come back from the worker processes whole, and only for the first 5 games.
    assert [r.record for r in one] == [r.record for r in two]
    assert [r.record is not None for r in two] == [True] * 5 + [False] * 3


def test_a_torch_agent_runs_in_worker_processes():
    # Checking the spec loads the network in the parent; forked workers then hung in
    # torch's thread pool. Run in a daemon thread so that a hang fails instead of blocking.
    import threading

    specs = ["ppo:checkpoints/ppo_2p_podkidnoy.pt", "random"]
    out = {}
    t = threading.Thread(daemon=True, target=lambda: out.update(
        two=run(Rules(), specs, 4, seed=2, workers=2, progress=False, chunk=2)))
    t.start()
    t.join(timeout=240)
    assert "two" in out, "the tournament with a ppo agent and two workers did not finish"
    one = run(Rules(), specs, 4, seed=2, workers=1, progress=False, chunk=2)
    assert [(r.seats, r.durak, r.decisions) for r in one] == [
        (r.seats, r.durak, r.decisions) for r in out["two"]]


def test_paired_games_replay_the_same_deal():
    res = run(Rules(), ["greedy", "random"], 4, seed=3, progress=False, record=4)
    assert [r.seats for r in res] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    first = Game.new(Rules(), deal_seed(3, 0)).deal_record
    assert first == Game.new(Rules(), deal_seed(3, 0)).deal_record
    # Both seatings of deal 0 start from the same cards.
    assert res[0].record["deal"] == res[1].record["deal"] == first


class _Sleepy(Agent):
    """Plays the first legal action after sleeping ``pause`` seconds."""

    name = "sleepy"

    def __init__(self, rules, pause):
        super().__init__(rules)
        self.pause = pause

    def act(self, observation, action_mask, rng):
        time.sleep(self.pause)
        return int(np.flatnonzero(action_mask)[0])


def test_thinking_time_is_counted_per_seat_and_per_agent():
    rules = Rules()
    agents = [RandomAgent(rules), _Sleepy(rules, 0.003)]
    first = play_game(rules, agents, 1, Match(0, 0, (0, 1)))
    # an agent's first game (numba loads its kernels then) is left out of the longest move
    assert first.think_max_s == (0.0, 0.0) and first.think_s[1] >= 0.003 * first.moves[1]
    r = play_game(rules, agents, 1, Match(0, 0, (0, 1)))
    assert r.moves == first.moves  # same deal and seeds: the same game
    assert sum(r.moves) == r.decisions and min(r.moves) > 0
    assert r.think_s[1] >= 0.003 * r.moves[1] and r.think_max_s[1] >= 0.003
    assert r.think_s[0] < 0.003 * r.moves[0]  # random does not sleep
    # the same game again with the seats swapped: each agent's two seats add up
    swapped = dataclasses.replace(r, seats=(1, 0), moves=r.moves[::-1],
                                  think_s=r.think_s[::-1], think_max_s=r.think_max_s[::-1])
    s = summarize(["random", "sleepy"], [r, swapped])
    slow, fast = s.timing[1].row(), s.timing[0].row()
    assert s.timing[1].moves == 2 * r.moves[1] and s.timing[0].moves == 2 * r.moves[0]
    assert slow["ms_per_move"] == pytest.approx(1000 * r.think_s[1] / r.moves[1])
    assert slow["ms_per_move"] >= 3.0 > fast["ms_per_move"]
    assert slow["max_ms_per_move"] == pytest.approx(1000 * r.think_max_s[1])


# ---------------------------------------------------------------- game records


def _check_record_files(out, results, specs, seed, recorded):
    """Every written record replays to the tournament's result, with the paired seating."""
    kept = [r for r in results if r.record is not None]
    assert [e["index"] for e in recorded] == [r.index for r in kept]
    for entry, r in zip(recorded, kept, strict=True):
        assert entry["file"] == f"records/game_{r.index:05d}.json"
        record = load_record(out / entry["file"])
        assert record == r.record  # the file is the record of the game played, unchanged
        game = Game.from_record(record)  # replays every move and checks record["result"]
        assert (game.durak if game.durak is not None else -1) == r.durak == entry["durak"]
        assert game.out_order == r.out_order
        meta = record["meta"]
        assert meta["seats"] == list(r.seats) == entry["seats"]
        assert meta["players"] == [specs[i] for i in r.seats]
        assert (meta["tournament_seed"], meta["game"]) == (seed, r.index)
        assert game.deal_record == Game.new(game.rules, meta["deal_seed"]).deal_record
        assert meta["deal_seed"] == deal_seed(seed, meta["deal"])
        assert meta["tournament_result"]["durak"] == (None if r.durak < 0 else r.durak)
        assert meta["tournament_result"]["decisions"] == r.decisions


@pytest.mark.parametrize("players, specs, games, record", [
    (2, ["greedy", "random"], 6, 4),
    (3, ["greedy", "random"], 6, 6),  # two agents, three seats: one agent holds two
    (3, ["random", "greedy", "random"], 3, 2),
])
def test_recorded_games_replay_to_the_tournament_result(tmp_path, players, specs, games, record):
    rules = Rules(num_players=players)
    results = run(rules, specs, games, seed=11, progress=False, record=record, chunk=4)
    assert sum(r.record is not None for r in results) == min(record, len(results))
    for r in results:
        assert pickle.loads(pickle.dumps(r.record)) == r.record
        assert json.loads(json.dumps(r.record)) == r.record  # plain data, as from a worker
    recorded = write_records(str(tmp_path), results)
    assert sorted(p.name for p in (tmp_path / "records").iterdir()) == [
        f"game_{i:05d}.json" for i in range(min(record, len(results)))]
    _check_record_files(tmp_path, results, specs, 11, recorded)
    # Each record carries its scheduled seating, and the seatings of one deal share its cards.
    sched = schedule(len(specs), players, games)
    cards = {}
    for r in results[:record]:
        meta = r.record["meta"]
        assert (meta["deal"], tuple(meta["seats"])) == (sched[r.index].deal, sched[r.index].seats)
        assert cards.setdefault(meta["deal"], r.record["deal"]) == r.record["deal"]


def test_a_game_stopped_at_the_move_limit_is_recorded_unfinished(monkeypatch):
    import agents.tournament.play as play

    monkeypatch.setattr(play, "MAX_DECISIONS", 3)
    with pytest.warns(UserWarning, match="scored as a draw"):
        r = run(Rules(), ["greedy", "random"], 1, seed=4, progress=False, record=1)[0]
    assert r.durak == -1 and r.record["result"]["over"] is False
    assert r.record["meta"]["tournament_result"] == {
        "durak": None, "decisions": 4, "move_limit": True}
    game = Game.from_record(r.record)  # replays up to where the tournament stopped it
    assert not game.over and game.history == [tuple(m) for m in r.record["moves"]]


def test_command_line_writes_replayable_records(tmp_path, capsys):
    from durak_env import replay

    out = tmp_path / "t"
    specs = ["greedy", "random"]
    main(["--agents", ",".join(specs), "--players", "3", "--games", "6", "--seed", "2",
          "--record", "4", "--out", str(out), "--no-progress", "--no-plots"])
    printed = capsys.readouterr().out
    assert f"4 game records written to {os.path.join(str(out), 'records')}" in printed
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["record"] == 4
    # --no-plots skips the pictures only: the tables are written all the same
    assert {r["agent"] for r in data["agents"]} == set(specs)
    assert sum(r["games"] for r in data["pairs"]) > 0
    assert (out / "pairs.csv").is_file() and not list(out.glob("*.png"))
    recorded = data["recorded_games"]
    assert [e["file"] for e in recorded] == [f"records/game_{i:05d}.json" for i in range(4)]
    assert "history" not in json.dumps(data) and "moves" not in json.dumps(data)
    results = run(Rules(num_players=3), specs, 6, seed=2, progress=False, record=4)
    _check_record_files(out, results, specs, 2, recorded)
    assert replay.main([str(out / recorded[0]["file"]), "--color", "never"]) == 0
    assert "durak" in capsys.readouterr().out.lower()


def test_command_line_rejects_negative_record(tmp_path):
    with pytest.raises(SystemExit):
        main(["--agents", "greedy,random", "--record", "-1", "--out", str(tmp_path)])


def test_command_line_smoke(tmp_path):
    out = tmp_path / "t"
    proc = subprocess.run(
        [sys.executable, "-m", "agents.tournament", "--agents", "greedy,random,trump_saving",
         "--players", "2", "--games", "4", "--seed", "1", "--out", str(out), "--no-progress",
         "--variant", "perevodnoy", "--deck-size", "24", "--record", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "win% (decided)" in proc.stdout
    assert "2 game records written to" in proc.stdout
    for name in ("agents.csv", "pairs.csv", "results.json", "heatmap.png", "ratings.png",
                 "records/game_00000.json", "records/game_00001.json"):
        assert (out / name).exists(), name
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["played"] == 12
    assert data["config"]["rules"]["variant"] == "perevodnoy"
    assert [e["file"] for e in data["recorded_games"]] == [
        "records/game_00000.json", "records/game_00001.json"]
    game = Game.from_record(load_record(out / "records/game_00001.json"))
    assert game.rules.variant == "perevodnoy"
    assert (game.durak if game.durak is not None else -1) == data["recorded_games"][1]["durak"]


def test_command_line_rejects_unknown_agent(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "agents.tournament", "--agents", "greedy,nobody", "--games", "2",
         "--out", str(tmp_path), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "valid agents" in proc.stderr


def test_plot_labels_break_long_specs_at_their_commas():
    from agents.tournament.report import _label

    spec = "ppo:path=checkpoints/ppo_2p_podkidnoy.pt,endgame_nodes=50000,pimc_talon=3"
    lines = _label(spec).split("\n")
    assert lines == ["ppo:path=checkpoints/ppo_2p_podkidnoy.pt,",
                     "endgame_nodes=50000,pimc_talon=3"]
    assert _label(spec, width=20).split("\n")[1:] == ["endgame_nodes=50000,", "pimc_talon=3"]
    assert _label("expert") == "expert"


def test_pool_workers_give_torch_one_thread():
    """With ``workers`` processes filling the cores, each worker's torch runs on one thread
    (agents play one position at a time; more threads would spin against the others)."""
    pytest.importorskip("torch")
    code = ("import torch, os; from agents.tournament.play import _init_pool_worker; "
            "torch.set_num_threads(2); "
            "_init_pool_worker({'num_players': 2}, ['random'], 0, 0); "
            "print(torch.get_num_threads(), os.environ['OMP_NUM_THREADS'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                             os.path.abspath(__file__)))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1"]
