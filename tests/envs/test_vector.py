"""VectorEnv: API, autoreset, illegal actions, seeding and thread-count independence."""

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from durak_env import ActionLayout, Rules, VectorEnv, raw_env
from durak_env.observation import observation_size
from tests.conftest import rule_sets, rules_id


def test_attributes_and_spaces():
    rules = Rules(num_players=3, variant="perevodnoy")
    v = VectorEnv(rules, 5, seed=1, num_threads=1)
    n = ActionLayout.of(rules).n
    assert (v.num_envs, v.num_players, v.num_actions) == (5, 3, n)
    assert v.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert v.single_observation_space.shape == (observation_size(rules),)
    assert v.single_observation_space.dtype == np.float32
    assert v.single_action_space.n == n
    assert v.observation_space.shape == (5, observation_size(rules))
    obs, info = v.reset()
    assert obs.dtype == np.float32 and obs.shape == (5, observation_size(rules))
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (5, n)
    assert info["to_act"].dtype == np.int32
    assert (info["action_mask"].sum(1) >= 2).all()
    for o in obs:
        assert v.single_observation_space.contains(o)


def test_step_autoreset_rewards_and_lengths():
    rules = Rules(num_players=3)
    v = VectorEnv(rules, 64, seed=3, num_threads=2)
    v.reset()
    ended = 0
    lengths = np.zeros(64, np.int32)
    for _ in range(250):
        obs, rew, term, trunc, info = v.step(v.random_actions())
        lengths += 1
        assert rew.shape == (64, 3) and rew.dtype == np.float32
        assert not trunc.any()
        assert (rew[~term] == 0).all()
        assert (info["game_length"][~term] == 0).all()
        for g in np.flatnonzero(term):
            assert sorted(rew[g].tolist()) in ([-1.0, 0.5, 0.5], [0.0, 0.0, 0.0])
            assert info["game_length"][g] == lengths[g]
            lengths[g] = 0
            ended += 1
        # after an autoreset the mask/obs already belong to the next game's first decision
        assert (info["action_mask"].sum(1) >= 2).all()
        assert ((info["to_act"] >= 0) & (info["to_act"] < 3)).all()
    assert ended >= 32


def test_illegal_action_raises_and_changes_nothing():
    v = VectorEnv(Rules(), 4, seed=0, num_threads=1)
    obs, info = v.reset()
    a = v.random_actions()
    bad = a.copy()
    bad[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    move = v._b.layout.decode(int(bad[2]))
    with pytest.raises(ValueError, match=rf"env 2: illegal action {bad[2]} \('{move}'\)"):
        v.step(bad)
    bad[2] = 10**6
    with pytest.raises(ValueError, match="env 2: action 1000000 is out of range"):
        v.step(bad)
    with pytest.raises(ValueError, match="shape"):
        v.step(a[:3])
    with pytest.raises(TypeError, match="integers"):
        v.step(a.astype(np.float64))
    obs2, *_ = v.step(a)  # still in the same position: the random legal actions apply
    ref = VectorEnv(Rules(), 4, seed=0, num_threads=1)
    ref.reset()
    obs3, *_ = ref.step(a)
    np.testing.assert_array_equal(obs2, obs3)


def _rollout(rules, num_envs, threads, steps, seed=11):
    v = VectorEnv(rules, num_envs, seed=seed, num_threads=threads)
    obs, info = v.reset()
    out = [(obs, info["action_mask"], info["to_act"])]
    for _ in range(steps):
        obs, rew, term, _, info = v.step(v.random_actions())
        out.append((obs, info["action_mask"], info["to_act"], rew, term, info["game_length"]))
    return out


@pytest.mark.parametrize("rules", rule_sets("2p", "4p-perevodnoy-show"), ids=rules_id)
def test_threads_and_batch_size_do_not_change_results(rules):
    one = _rollout(rules, 32, 1, 150)
    two = _rollout(rules, 32, 2, 150)
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    # game g's stream depends on (seed, g) only: the first 8 games of a batch of 32
    small = _rollout(rules, 8, 2, 150)
    for a, b in zip(small, one, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y[:8])


def test_seeds():
    a = _rollout(Rules(), 8, 2, 20, seed=1)
    b = _rollout(Rules(), 8, 2, 20, seed=2)
    assert not np.array_equal(a[-1][0], b[-1][0])
    v = VectorEnv(Rules(), 8, seed=1, num_threads=2)
    obs1, _ = v.reset()
    obs2, _ = v.reset(seed=1)
    np.testing.assert_array_equal(obs1, obs2)


def test_reset_mask_redeals_only_the_masked_games():
    rules = Rules(num_players=3)
    ref = VectorEnv(rules, 6, seed=7, num_threads=2)  # plays every game out
    cut = VectorEnv(rules, 6, seed=7, num_threads=2)  # game 2 is abandoned after 3 steps
    ref.reset(), cut.reset()
    steps = 0
    while True:
        a = ref.random_actions()
        obs, rew, term, _, info = ref.step(a)
        if steps < 3:
            cut.step(a)
        steps += 1
        if term[2]:
            break
    assert steps > 3
    mask = np.zeros(6, np.bool_)
    mask[2] = True
    before = cut.observe(np.zeros(6, np.int32))
    obs_c, info_c = cut.reset(options={"reset_mask": mask})
    # the masked game gets the deal its own stream gives next, as if it had ended
    np.testing.assert_array_equal(obs_c[2], obs[2])
    assert info_c["to_act"][2] == info["to_act"][2]
    np.testing.assert_array_equal(info_c["action_mask"][2], info["action_mask"][2])
    # the others are untouched and play on
    after = cut.observe(np.zeros(6, np.int32))
    np.testing.assert_array_equal(np.delete(after, 2, 0), np.delete(before, 2, 0))
    assert not np.array_equal(after[2], before[2])
    # the game length counts from the new deal
    n = 0
    while True:
        _, _, term, _, info = cut.step(cut.random_actions())
        n += 1
        if term[2]:
            assert info["game_length"][2] == n
            break


@pytest.mark.parametrize("mask, msg", [
    (np.zeros(5, np.bool_), "shape"),
    (np.zeros(6, np.int8), "dtype int8"),
    ([True] * 6, "list"),
])
def test_reset_mask_bad(mask, msg):
    v = VectorEnv(Rules(), 6, seed=0, num_threads=1)
    with pytest.raises(ValueError, match="call reset"):
        v.reset(options={"reset_mask": np.ones(6, np.bool_)})
    v.reset()
    with pytest.raises(ValueError, match=msg):
        v.reset(options={"reset_mask": mask})
    with pytest.raises(ValueError, match="cannot be combined"):
        v.reset(seed=1, options={"reset_mask": np.ones(6, np.bool_)})


def test_first_deal_matches_aec_seed():
    v = VectorEnv(Rules(num_players=3), 3, seed=42, num_threads=1)
    obs, info = v.reset()
    e = raw_env(num_players=3)
    e.reset(seed=42)
    np.testing.assert_array_equal(e.observe(e.agent_selection)["observation"], obs[0])
    assert e.agent_selection == f"player_{info['to_act'][0]}"


def test_observe_seats_and_copy_modes():
    v = VectorEnv(Rules(num_players=3), 6, seed=5, num_threads=2, copy=False)
    obs, info = v.reset()
    assert not obs.flags.writeable and not info["action_mask"].flags.writeable
    np.testing.assert_array_equal(v.observe(info["to_act"]), obs)
    other = v.observe((info["to_act"] + 1) % 3)
    assert not np.array_equal(other, obs)
    with pytest.raises(ValueError):
        v.observe(np.full(6, 3))
    copied = VectorEnv(Rules(num_players=3), 6, seed=5, num_threads=2)
    obs_c, info_c = copied.reset()
    assert obs_c.flags.writeable
    np.testing.assert_array_equal(obs_c, obs)


def test_random_actions_are_legal_and_deterministic():
    v = VectorEnv(Rules(num_players=5), 50, seed=9, num_threads=2)
    _, info = v.reset()
    a = v.random_actions()
    assert (info["action_mask"][np.arange(50), a] == 1).all()


@pytest.mark.parametrize("kwargs, err", [
    (dict(num_envs=0), ValueError),
    (dict(num_envs=2.5), ValueError),
    (dict(num_envs=2, num_threads=0), ValueError),
    (dict(num_envs=2, num_threads=999), ValueError),
    (dict(num_envs=2, seed=-1), ValueError),
    (dict(num_envs=2, seed="x"), TypeError),
])
def test_bad_arguments(kwargs, err):
    with pytest.raises(err):
        VectorEnv(Rules(), **kwargs)


def test_step_before_reset():
    with pytest.raises(RuntimeError, match="reset"):
        VectorEnv(Rules(), 2).step(np.zeros(2, np.int64))


def test_step_random_equals_step_of_random_actions():
    a = VectorEnv(Rules(num_players=3), 16, seed=4, num_threads=2)
    b = VectorEnv(Rules(num_players=3), 16, seed=4, num_threads=2)
    a.reset()
    b.reset()
    for _ in range(120):
        ra = a.step_random()
        rb = b.step(b.random_actions())
        np.testing.assert_array_equal(ra[4]["actions"], b._actions)
        for x, y in zip(ra[:4], rb[:4], strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(ra[4]["action_mask"], rb[4]["action_mask"])
