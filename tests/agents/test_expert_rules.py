"""``expert_rules``: the expert's rules in numba, as an agent and as a batched opponent."""

from __future__ import annotations

import numpy as np
import pytest

from agents import ExpertRulesAgent, make_agent
from agents.expert_kernel import expert_action
from agents.selfplay import ExpertRulesPlayer, make_player
from durak_env import Game, core
from durak_env.vector import VectorEnv
from tests.conftest import AGENT_RULE_SETS, rules_id


@pytest.mark.parametrize("rules", AGENT_RULE_SETS, ids=rules_id)
def test_agent_decides_as_the_rules_on_the_true_position(rules):
    # The agent rebuilds a position from its observation (unseen cards dealt at random);
    # its rules read only public information, so it must move as they do on the real one.
    agent = ExpertRulesAgent(rules)
    buf = np.zeros(core.kernel_params(rules)[core.A_N], np.int64)
    rng = np.random.default_rng(5)
    checked = 0
    for g in range(30):
        game = Game.new(rules, seed=g)
        while not game.over:
            mask = game.action_mask()
            if mask.sum() > 1:
                n = core.legal_actions_at(game._st, 0, game._prm, buf)
                want = int(expert_action(game._st[0], game._prm, buf, n, True))
                assert agent.act(game.observe(game.to_act), mask, None) == want
                checked += 1
            game.step(int(rng.choice(game.legal_actions())))
    assert checked > 500


@pytest.mark.parametrize("rules", AGENT_RULE_SETS[:3], ids=rules_id)
def test_batched_player_matches_the_agent(rules):
    venv = VectorEnv(rules, 64, seed=3, num_threads=1)
    obs, info = venv.reset(seed=3)
    player = make_player("expert_rules", rules, venv)
    assert isinstance(player, ExpertRulesPlayer)
    agent = make_agent("expert_rules", rules)
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = info["action_mask"]
        rows = np.flatnonzero(rng.random(64) < 0.5)
        got = player.act(obs[rows], mask[rows], None, None, rows, rng)
        want = [agent.act(obs[g], mask[g], None) for g in rows]
        assert got.tolist() == want
        actions = venv.random_actions()
        actions[rows] = got
        obs, _, _, _, info = venv.step(actions)
