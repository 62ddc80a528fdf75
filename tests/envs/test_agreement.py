"""The three interfaces agree move for move: VectorEnv, the AEC env and the Game API.

Games are played in a VectorEnv with random legal actions (numba RNG); every
decision is recorded (deal, seat to act, observation, legal ids, action, final
rewards, length) and replayed through ``raw_env`` and ``Game``, which must show the
same observations, masks, seats, rewards and terminations.
"""

import hashlib
import random

import numpy as np
import pytest

from durak_env import Game, Rules, VectorEnv, raw_env
from tests.conftest import ENV_RULE_SETS, rules_id


def _digest(a) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(a).tobytes(), digest_size=16).digest()


def record_games(rules, num_envs, threads, games, seed):
    """Play until ``games`` games have finished; return their decision records."""
    v = VectorEnv(rules, num_envs, seed=seed, num_threads=threads)
    obs, info = v.reset()
    current = [{"deal": v.deal(g), "steps": []} for g in range(num_envs)]
    done = []
    while len(done) < games:
        acts = v.random_actions()
        for g in range(num_envs):
            current[g]["steps"].append((int(info["to_act"][g]), _digest(obs[g]),
                                        tuple(np.flatnonzero(info["action_mask"][g])),
                                        int(acts[g])))
        obs, rew, term, _, info = v.step(acts)
        for g in np.flatnonzero(term):
            game = current[g]
            game["rewards"] = rew[g].tolist()
            game["length"] = int(info["game_length"][g])
            done.append(game)
            current[g] = {"deal": v.deal(g), "steps": []}
    return done[:games]


def replay_game_api(rules, game):
    g = Game.from_deal(rules, **game["deal"])
    for seat, obs, legal, action in game["steps"]:
        assert g.to_act == seat
        assert _digest(g.observe(seat)) == obs
        assert tuple(np.flatnonzero(g.action_mask())) == legal
        g.step(action)
    assert g.over
    assert g.rewards == pytest.approx(game["rewards"])
    assert len(game["steps"]) == game["length"]


def replay_aec(env, game):
    env.reset(options={"deal": game["deal"]})
    for seat, obs, legal, action in game["steps"]:
        assert env.agent_selection == f"player_{seat}"
        assert not any(env.terminations.values())
        o = env.observe(env.agent_selection)
        assert _digest(o["observation"]) == obs
        assert tuple(np.flatnonzero(o["action_mask"])) == legal
        for other in env.agents:
            if other != env.agent_selection:
                assert not env.observe(other)["action_mask"].any()
        env.step(action)
    assert all(env.terminations.values())
    assert [env.rewards[a] for a in env.possible_agents] == pytest.approx(game["rewards"])


def check_config(rules, games, sizes=((1, 1), (24, 2))):
    records = {}
    for num_envs, threads in sizes:
        records[num_envs, threads] = record_games(rules, num_envs, threads, games, seed=7)
    env = raw_env(rules=rules)
    for recs in records.values():
        for game in recs:
            replay_aec(env, game)
            replay_game_api(rules, game)


@pytest.mark.parametrize("rules", ENV_RULE_SETS, ids=rules_id)
def test_vector_aec_game_agree(rules):
    check_config(rules, games=12 if rules.deck_size == 52 else 30)  # 52-card games are long


def test_batch_size_and_threads_give_identical_games():
    rules = Rules(num_players=3, variant="perevodnoy")
    a = record_games(rules, 16, 1, 30, seed=3)
    b = record_games(rules, 16, 2, 30, seed=3)
    assert a == b


@pytest.mark.slow
@pytest.mark.parametrize("rules", ENV_RULE_SETS, ids=rules_id)
def test_vector_aec_game_agree_many(rules):
    check_config(rules, games=400, sizes=((1, 1), (256, 2)))


def test_random_rules_agree():
    rng = random.Random(5)
    from tests.helpers import random_rules_kwargs

    for _ in range(3):
        check_config(Rules(**random_rules_kwargs(rng)), games=15)
