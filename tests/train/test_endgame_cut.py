"""``ppo.endgame_cut_nodes``: games end at their first position with every card placed,
scored by the exact solver's value."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.endgame import EndgameSolver  # noqa: E402
from agents.ppo_config import ConfigError, load_config  # noqa: E402
from agents.ppo_train import Trainer  # noqa: E402
from agents.rollout import EndgameCut  # noqa: E402
from agents.view import fast_decode  # noqa: E402
from durak_env import Rules, VectorEnv  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = Rules(num_players=2, deck_size=24)  # small end games: every one is proven


@pytest.mark.parametrize("threads", [1, 2])
def test_cut_value_is_what_perfect_play_on_both_sides_gets(threads):
    """Each game the cut scores is played on by the solver for both seats: the game's
    real result is the value the cut gave it, for both seats (with one solver, or two
    side by side)."""
    b = 32
    venv = VectorEnv(SMALL, b, seed=4, num_threads=1)
    obs, info = venv.reset()
    cut = EndgameCut(SMALL, b, nodes=20000, threads=threads)
    player = EndgameSolver(SMALL, max_nodes=10**6, last_card=True, cheap_first=True)
    expected = np.full((b, 2), np.nan, np.float32)  # the cut's rewards, while played on
    checked = 0
    for _ in range(3000):
        mask, to_act = info["action_mask"], info["to_act"]
        ended, rewards = cut.values(venv, obs, mask, to_act)
        expected[ended] = rewards
        actions = venv.random_actions()
        for g in np.flatnonzero(~np.isnan(expected[:, 0])):
            move = player.solve(fast_decode(obs[g], SMALL), np.flatnonzero(mask[g]).tolist())
            assert move is not None
            actions[g] = move
        obs, rew, term, _, info = venv.step(actions)
        for g in np.flatnonzero(term):
            if not np.isnan(expected[g, 0]):
                assert rew[g].tolist() == expected[g].tolist(), g
                checked += 1
        expected[term] = np.nan
        cut.new_games(np.flatnonzero(term))
        if checked >= 40:
            break
    assert checked >= 40
    assert cut.solved >= checked


def test_rollout_has_no_learner_decision_once_every_card_is_placed(tmp_path):
    cfg = load_config(ROOT / "configs" / "tiny.yaml", [
        f"logging.runs_dir={tmp_path}", "rules.deck_size=24", "rules.hand_size=3",
        "ppo.num_steps=120",
        "ppo.endgame_cut_nodes=100000"])
    trainer = Trainer(cfg, tmp_path)
    st = trainer._collect()
    ro = trainer.ro
    rules = trainer.cfg.rules
    talon = np.array([fast_decode(o, rules).talon_size
                      for o in ro.obs.numpy()[ro.learner]])
    assert len(talon) > 500 and talon.min() >= 2  # the cut ends each game before
    done = ro.done & ro.learner
    assert st.cut > 0 and trainer.arena.cut.unproven == 0
    assert set(np.unique(ro.reward[done]).tolist()) <= {-1.0, 0.0, 1.0}
    assert (ro.reward[ro.learner & ~ro.done] == 0).all()
    # the cut games were dealt anew: every game is still one with choices to make
    assert (trainer.arena.mask.sum(1) >= 2).all()
    trainer.close()


def test_cut_needs_two_players(tmp_path):
    with pytest.raises(ConfigError, match="endgame_cut_nodes > 0 needs two players"):
        load_config(ROOT / "configs" / "tiny.yaml", [
            "rules.num_players=3", "ppo.endgame_cut_nodes=1000"])
