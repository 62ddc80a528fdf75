"""The solver bench times real end-game positions, and what it counts depends on them only."""

from __future__ import annotations

import json

import numpy as np

from agents.endgame import EndgameSolver
from agents.solver_bench import end_game_positions, main, run
from agents.view import fast_decode
from durak_env import Rules


def test_positions_are_end_games_with_a_choice_in_game_order():
    rules = Rules(num_players=2)
    pos = end_game_positions(rules, 40, seed=2)
    probe = EndgameSolver(rules, last_card=True)
    assert len(pos["obs"]) == 40
    assert all(len(legal) > 1 for legal in pos["legal"])
    assert all(probe.applies(fast_decode(o, rules)) for o in pos["obs"])
    assert np.all(np.diff(pos["game"]) >= 0)
    assert len(set(pos["game"])) > 1


def test_nodes_and_proven_shares_repeat_from_the_seed():
    a, b = run(positions=30, nodes=2000, seed=4), run(positions=30, nodes=2000, seed=4)
    for mode in ("label", "play"):
        assert a[mode]["nodes"] == b[mode]["nodes"] > 0
        assert a[mode]["proven"] == b[mode]["proven"]
        assert 0 < a[mode]["proven"] <= 1
    # every legal move solved costs more than stopping at the first proven win
    assert a["label"]["nodes"] > a["play"]["nodes"]


def test_cli_writes_the_command_and_rejects_bad_counts(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["--positions", "10", "--nodes", "500", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["command"] == ("python -m agents.solver_bench --positions 10 --nodes 500 "
                               f"--json {out}")
    assert data["result"]["label"]["positions"] == 10
    assert "positions/s" in capsys.readouterr().out
    assert main(["--positions", "0"]) == 2
    assert "--positions and --nodes must be >= 1" in capsys.readouterr().err
