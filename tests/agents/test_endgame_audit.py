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
