"""``gym.make_vec("Durak-v0")``: the numba-batched learner-seat vector env (DurakVectorEnv).

Checked as Gymnasium checks its own vector envs: spaces and shapes, `_key` info masks,
the three autoreset modes, the vector wrappers; and against the ``Game`` API move for
move, and against the masks that a sampler draws from on every step (issue 21, point 4).
"""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import FlattenObservation, NormalizeReward, RecordEpisodeStatistics

import durak_env  # noqa: F401  (registers Durak-v0 and its vector entry point)
from durak_env import Game, IllegalMoveError, Rules, observation_size
from durak_env.learner_vector import DurakVectorEnv


def make(num_envs=8, **kwargs):
    return gym.make_vec("Durak-v0", num_envs=num_envs, vectorization_mode="vector_entry_point",
                        **kwargs)


def sample(envs, info):
    """A masked random action per game, as a user of the action space would draw it."""
    return envs.action_space.sample(mask=tuple(info["action_mask"]))


def test_make_vec_gives_the_numba_env_with_gymnasium_shapes():
    envs = make(num_envs=6, num_players=3, seed=0)
    assert isinstance(envs, DurakVectorEnv)
    size = observation_size(Rules(num_players=3))
    assert envs.single_observation_space.shape == (size,)
    obs, info = envs.reset(seed=1)
    assert obs.shape == (6, size) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (6, envs.single_action_space.n)
    assert info["_action_mask"].all() and info["_seat"].all()
    assert (info["action_mask"].sum(1) >= 2).all()
    for _ in range(40):
        obs, rew, term, trunc, info = envs.step(sample(envs, info))
        assert rew.shape == (6,) and rew.dtype == np.float32
        assert term.shape == trunc.shape == (6,) and not trunc.any()
        assert envs.observation_space.contains(obs)
        assert set(rew[term].tolist()) <= {-1.0, 0.0, 0.5}
        assert (rew[~term] == 0).all()
    # sync mode still gives Gymnasium's SyncVectorEnv over Durak-v0
    sync = gym.make_vec("Durak-v0", num_envs=2, vectorization_mode="sync")
    assert type(sync).__name__ == "SyncVectorEnv"


def first_legal(obs, mask):
    return mask.argmax(1)


def pick(obs, mask):
    """A deterministic policy that still varies (the lowest id alone can cycle forever)."""
    return np.array([np.flatnonzero(m)[int(o.sum() * 7) % int(m.sum())]
                     for o, m in zip(obs, mask, strict=True)])


def pick_one(game):
    seat = game.to_act
    return int(pick(game.observe(seat)[None], game.action_mask()[None])[0])


@pytest.mark.parametrize("rules", [Rules(), Rules(num_players=3, variant="perevodnoy")],
                         ids=["2p", "3p-perevodnoy"])
def test_agrees_with_the_game_api_move_for_move(rules):
    """Opponents and learner play the same deterministic policy; replay each deal in ``Game``."""
    envs = DurakVectorEnv(4, rules=rules, seat="random", opponents=pick, seed=3,
                          autoreset_mode="SameStep")
    obs, info = envs.reset()
    games = [Game.from_deal(rules, **envs.batch.deal_record(g)) for g in range(4)]
    seats = info["seat"].copy()
    checked = 0
    for _ in range(300):
        for g, game in enumerate(games):
            while game.to_act != seats[g]:  # the opponents' moves, as the env made them
                game.step(pick_one(game))
            np.testing.assert_array_equal(obs[g], game.observe(int(seats[g])))
            np.testing.assert_array_equal(info["action_mask"][g], game.action_mask())
        actions = pick(obs, info["action_mask"])
        obs, rew, term, _, info = envs.step(actions)
        for g, game in enumerate(games):
            game.step(int(actions[g]))
            while not game.over and game.to_act != seats[g]:
                game.step(pick_one(game))
            assert term[g] == game.over
            if term[g]:
                assert rew[g] == pytest.approx(game.rewards[seats[g]])
                np.testing.assert_array_equal(info["final_obs"][g], game.observe(int(seats[g])))
                games[g] = Game.from_deal(rules, **envs.batch.deal_record(g))
                seats[g] = info["seat"][g]
                checked += 1
    assert checked >= 8


def test_next_step_autoreset_and_safe_terminal_masks():
    envs = make(num_envs=16, seed=0)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=0)
    ended = 0
    for _ in range(200):
        # every mask, also on the terminal step, has something to sample (issue 21, point 4)
        assert (info["action_mask"].sum(1) >= 1).all()
        obs, rew, term, _, info = envs.step(sample(envs, info))
        if term.any():
            ended += int(term.sum())
            np.testing.assert_array_equal(info["action_mask"][term][:, 0], 1)
            assert (info["action_mask"][term].sum(1) == 1).all()
            assert envs.action_masks()[term].sum() == term.sum()
            done = term.copy()
            obs, rew, term, _, info = envs.step(sample(envs, info))  # the autoreset step
            assert (rew[done] == 0).all() and not term[done].any()
            assert (info["action_mask"][done].sum(1) >= 2).all()
    assert ended > 0


def test_same_step_autoreset_gives_final_obs():
    envs = make(num_envs=16, autoreset_mode=AutoresetMode.SAME_STEP, seed=0)
    obs, info = envs.reset(seed=0)
    seen = 0
    for _ in range(200):
        obs, rew, term, _, info = envs.step(sample(envs, info))
        assert (info["action_mask"].sum(1) >= 2).all()  # already the next game's
        if term.any():
            seen += 1
            assert (info["_final_obs"] == term).all() and (info["_final_info"] == term).all()
            assert all(info["final_obs"][g].shape == obs[g].shape for g in np.flatnonzero(term))
            assert info["final_obs"][~term].tolist() == [None] * int((~term).sum())
    assert seen > 0


def test_disabled_autoreset_waits_for_reset_mask():
    envs = make(num_envs=8, autoreset_mode="Disabled", seed=0)
    obs, info = envs.reset(seed=0)
    for _ in range(300):
        obs, rew, term, _, info = envs.step(sample(envs, info))
        if term.any():
            break
    assert term.any()
    with pytest.raises(RuntimeError, match="reset_mask"):
        envs.step(sample(envs, info))
    obs2, info2 = envs.reset(options={"reset_mask": term})
    np.testing.assert_array_equal(obs2[~term], obs[~term])
    assert (info2["action_mask"].sum(1) >= 2).all()
    envs.step(sample(envs, info2))


def test_gymnasium_vector_wrappers():
    envs = RecordEpisodeStatistics(NormalizeReward(FlattenObservation(make(num_envs=8, seed=0))))
    obs, info = envs.reset(seed=0)
    episodes = []
    for _ in range(300):
        obs, rew, term, trunc, info = envs.step(sample(envs, info))
        assert rew.shape == (8,) and np.isfinite(rew).all()
        if "episode" in info:
            mask = info["_episode"]
            episodes += info["episode"]["l"][mask].tolist()
    assert episodes and min(episodes) >= 1


def test_sync_vector_env_of_durak_v0_samples_safely():
    """Issue 21, point 4: sampling from the all-zero terminal mask crashed (an empty choice
    here, NaN logits in a masked policy) on the autoreset step of a NEXT_STEP vector env."""
    envs = gym.make_vec("Durak-v0", num_envs=4, vectorization_mode="sync")
    rng = np.random.default_rng(0)
    obs, info = envs.reset(seed=0)
    ended = 0
    for _ in range(150):
        actions = [int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]]
        obs, rew, term, _, info = envs.step(np.array(actions))
        ended += int(term.sum())
    assert ended > 0


def test_opponents_by_spec_list_and_policy():
    envs = make(num_envs=32, opponents="expert_rules", seed=0, autoreset_mode="SameStep")
    assert type(envs.opponents[0]).__name__ == "ExpertRulesPlayer"
    obs, info = envs.reset(seed=0)
    total = []
    for _ in range(400):
        obs, rew, term, _, info = envs.step(sample(envs, info))
        total += rew[term].tolist()
    assert len(total) > 20 and np.mean(total) < -0.5  # random loses to expert_rules
    three = make(num_envs=4, num_players=3, opponents=["random", first_legal], seed=0)
    three.reset(seed=0)
    with pytest.raises(ValueError, match="list of 2"):
        make(num_envs=4, num_players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown agent"):
        make(num_envs=4, opponents="no_such_agent")
    with pytest.raises(TypeError, match="batched opponent"):
        make(num_envs=4, opponents=durak_env.Rules())


def test_an_illegal_opponent_move_is_reported():
    envs = make(num_envs=4, opponents=lambda obs, mask: np.full(len(mask), 10**6), seed=0)
    with pytest.raises(IllegalMoveError, match="opponent"):
        obs, info = envs.reset(seed=0)
        for _ in range(5):
            envs.step(sample(envs, info))


def test_illegal_learner_actions():
    envs = make(num_envs=4, seed=0)
    obs, info = envs.reset(seed=0)
    bad = info["action_mask"].argmin(1)
    with pytest.raises(ValueError, match="illegal action"):
        envs.step(bad)
    np.testing.assert_array_equal(envs.step(info["action_mask"].argmax(1))[0].shape, obs.shape)
    envs = make(num_envs=4, seed=0, illegal_action="terminate", illegal_reward=-2.0)
    obs, info = envs.reset(seed=0)
    actions = info["action_mask"].argmax(1)
    actions[1] = bad[1]
    obs, rew, term, _, info = envs.step(actions)
    assert rew[1] == -2.0 and term[1] and info["illegal_action"][1]
    assert info["_illegal_action"].tolist() == [False, True, False, False]


def test_seeding_is_reproducible():
    def run(seed):
        envs = make(num_envs=4, seat="random", seed=seed)
        obs, info = envs.reset(seed=seed)
        out = [obs]
        for _ in range(30):
            obs, *_rest, info = envs.step(info["action_mask"].argmax(1))
            out.append(obs)
        return np.stack(out)

    np.testing.assert_array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))
