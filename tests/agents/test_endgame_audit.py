"""The end-game audit counts a move that throws away a proven win, and only such moves."""

from __future__ import annotations

import numpy as np

from agents.endgame import EndgameSolver
from agents.endgame_audit import _audit_one, audit, main
from tests.helpers import hand_checked_end_game


def _counts():
    return {"decisions": 0, "choices": 0, "unsolved": 0, "blunders": 0, "win_to_loss": 0}


def test_a_losing_move_in_a_won_position_is_a_blunder():
    rules, game = hand_checked_end_game()
    legal = game.legal_actions()
    by_name = {game.layout.decode(int(a)): int(a) for a in legal}
    solver = EndgameSolver(rules, 50_000, last_card=True, cheap_first=True)
    for move, blunder in (("play AS", 0), ("play 6C", 1)):
        c, entered = _counts(), np.full(1, -2)
        _audit_one(solver, rules, game.observe(0), legal, by_name[move], c, entered, 0)
        assert c["decisions"] == c["choices"] == 1
        assert c["blunders"] == c["win_to_loss"] == blunder, move
        assert entered[0] == 1  # the position is a proven win, whatever was played


def test_audit_of_the_shipped_policy_adds_up(capsys):
    r = audit("checkpoints/ppo_2p_podkidnoy.pt", games=6, seed=3, nodes=2000,
              progress=False)
    assert 0 <= r["blunders"] <= r["choices"] <= r["decisions"]
    assert r["entered_won_lost"] <= r["entered_won"] <= r["games"]
    assert r["decisions"] > 0  # six games reach their end games


def test_cli_rejects_bad_input(capsys):
    assert main(["checkpoints/ppo_2p_podkidnoy.pt", "--games", "0"]) == 2
    assert main(["no/such.pt", "--games", "2"]) == 2
    assert "does not exist" in capsys.readouterr().err


def _study():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "endgame_study.py"
    spec = importlib.util.spec_from_file_location("endgame_study", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_endgame_study_labels_the_best_moves_and_fine_tuning_fits_them():
    import torch

    from agents.endgame import UNKNOWN
    from agents.ppo import load_checkpoint
    from agents.view import fast_decode

    study = _study()
    torch.manual_seed(0)
    net, _ = load_checkpoint("checkpoints/ppo_2p_podkidnoy.pt")
    net.endgame = None  # the main head alone, which still blunders: the study predates the expert
    data = study.solved_positions(net, games=24, seed=5, nodes=5000, progress=False)
    assert len(data["obs"]) > 20
    solver = EndgameSolver(net.rules, 5000, last_card=True, cheap_first=True)
    checked = 0
    for i in range(0, len(data["obs"]), 3):  # the best moves, checked by a fresh solver
        legal = data["ids"][i, : data["counts"][i]].tolist()
        solver.reset()  # without the study's table, a hard position may stay unsolved
        solver.load(fast_decode(data["obs"][i], net.rules))
        values = solver.root_values(legal, 5000)
        if (values == UNKNOWN).any():
            continue
        assert (data["good"][i, : len(legal)] == (values == values.max())).all()
        checked += 1
    assert checked >= 5
    rows = np.flatnonzero(data["good"].sum(1) < data["counts"])
    before = study.blunder_rate(net, data, rows)
    tuned, curve = study.fine_tune(net, data, rows, rows, epochs=30, lr=3e-3, augment=False,
                                   seed=0)
    assert before > 0 and curve[-1] < before / 2  # it fits the positions it saw
    assert study.blunder_rate(net, data, rows) == before  # the original is untouched
