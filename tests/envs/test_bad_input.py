"""Issue 20, the environments' edges: each test names the defect it pins (points 1, 3, 5,
6, 8). A refused input raises an error naming the argument and changes no game."""

from __future__ import annotations

import numpy as np
import pytest

import durak_env
from durak_env import DurakEnv, IllegalMoveError, RandomAgent, Rules, VectorEnv
from durak_env.cards import deck_mask, format_mask
from durak_env.gym_env import autoreset_mask

DECK = format_mask(deck_mask(36))
SEAT_OUT = {"hands": [[], DECK[:6], DECK[6:12]], "discard": DECK[12:], "trump": "S"}


# ---------------------------------------------------------------- 1. rendering a seat out


def test_aec_renders_and_steps_a_seat_out_since_the_deal(capsys):
    env = durak_env.raw_env(num_players=3, render_mode="human")
    env.reset(options={"deal": SEAT_OUT})
    env.render()
    assert "out (no cards at the deal)" in capsys.readouterr().out
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))  # renders after it
    assert "out (no cards at the deal)" in capsys.readouterr().out
    assert "out (no cards at the deal)" in env.render_text(1)


def test_gym_renders_a_seat_out_since_the_deal():
    env = DurakEnv(num_players=3, seat=1, render_mode="ansi")
    env.reset(options={"deal": SEAT_OUT})
    assert "out (no cards at the deal)" in env.render()


# ---------------------------------------------------------------- 3. VectorEnv.step's actions


@pytest.fixture
def venv():
    v = VectorEnv(Rules(), 4, seed=0, num_threads=1)
    v.reset()
    return v


def state_of(v: VectorEnv):
    return v.batch.st.copy(), v.batch.n_legal.copy()


def assert_unchanged(v, before):
    st, n = state_of(v)
    assert (st == before[0]).all() and (n == before[1]).all()


@pytest.mark.parametrize("make", [
    lambda a: _read_only(a),
    lambda a: np.frombuffer(a.tobytes(), np.int64),  # a foreign, read-only buffer
    lambda a: a.astype(">i8"),  # big-endian
    lambda a: a.astype(np.int32),
    lambda a: a.astype(np.uint16),
    lambda a: np.repeat(a, 2)[::2],  # not contiguous
    lambda a: [int(x) for x in a],
])
def test_vector_step_takes_any_integer_array(venv, make):
    a = venv.random_actions()
    ref = VectorEnv(Rules(), 4, seed=0, num_threads=1)
    ref.reset()
    want = ref.step(a.copy())[0]
    np.testing.assert_array_equal(venv.step(make(a))[0], want)


def _read_only(a):
    a = a.copy()
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("make, error, message", [
    (lambda a: a.astype(np.float64), TypeError, "actions must be integers, got dtype float64"),
    (lambda a: np.full(4, np.nan), TypeError, "actions must be integers"),
    (lambda a: a.astype(bool), TypeError, "actions must be integers, got dtype bool"),
    (lambda a: np.array([1, None, 2, 3], dtype=object), TypeError, "actions must be integers"),
    (lambda a: a[None], ValueError, r"actions must have shape \(4,\), got \(1, 4\)"),
    (lambda a: a[:1], ValueError, r"actions must have shape \(4,\)"),
    (lambda a: np.int64(3), ValueError, r"actions must have shape \(4,\), got \(\)"),
    (lambda a: np.where(np.arange(4) == 1, -1, a), ValueError,
     "env 1: action -1 is out of range"),
    (lambda a: np.where(np.arange(4) == 2, 2**63 + 5, a).astype(np.uint64), ValueError,
     f"env 2: action {2**63 + 5} is out of range"),
    (lambda a: np.where(np.arange(4) == 3, 1334, a), ValueError,
     "env 3: action 1334 is out of range"),
])
def test_vector_step_refuses_bad_actions_and_changes_nothing(venv, make, error, message):
    before = state_of(venv)
    with pytest.raises(error, match=message):
        venv.step(make(venv.random_actions()))
    assert_unchanged(venv, before)


@pytest.mark.parametrize("index, error", [
    (-1, ValueError), (4, ValueError), ("0", TypeError), (1.5, TypeError), (True, TypeError),
    (None, TypeError),
])
def test_vector_deal_and_render_refuse_bad_indices(venv, index, error):
    with pytest.raises(error, match="index"):
        venv.deal(index)
    with pytest.raises(error, match="index"):
        venv.render(index)


def test_vector_deal_and_render_take_numpy_indices(venv):
    assert venv.deal(np.int64(3)) == venv.deal(3)
    assert venv.render(np.uint8(2)) == venv.render(2)


@pytest.mark.parametrize("copy", ["no", 0, 1, None])
def test_vector_copy_must_be_a_bool(copy):
    with pytest.raises(TypeError, match="copy must be a bool"):
        VectorEnv(Rules(), 2, copy=copy)


# ---------------------------------------------------------------- 5. an opponent that raises


class Faulty(RandomAgent):
    """Plays at random, raising on its ``fail_at``-th call."""

    def __init__(self, fail_at):
        self.calls, self.fail_at = 0, fail_at

    def act(self, observation, action_mask, rng):
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("opponent crashed")
        return super().act(observation, action_mask, rng)


def test_gym_env_refuses_steps_after_an_opponent_raised():
    opp = Faulty(fail_at=3)
    env = DurakEnv(num_players=2, seat=0, opponents=opp)
    obs, info = env.reset(seed=0)
    with pytest.raises(RuntimeError, match="opponent crashed"):
        while True:
            obs, _, term, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            assert not term
    before = env.unwrapped._b.st.copy()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert (env.unwrapped._b.st == before).all()  # the learner's action was not played
    # no game move is advertised: only the autoreset mask, which a sampler can draw from
    assert (env.action_masks() == autoreset_mask(env.unwrapped.layout.n).astype(bool)).all()
    opp.fail_at = 0
    env.reset(seed=1)  # and a reset makes it usable again
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_gym_env_refuses_steps_after_a_reset_that_failed():
    opp = Faulty(fail_at=0)
    env = DurakEnv(num_players=2, seat=1, opponents=opp)
    env.reset(seed=0)
    opp.calls, opp.fail_at = 0, 1  # the next deal's first opponent move raises
    with pytest.raises(RuntimeError, match="opponent crashed"):
        for seed in range(50):  # until a deal where seat 0 (the opponent) acts first
            env.reset(seed=seed)
            opp.calls = 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


# ---------------------------------------------------------------- 6. seeds


@pytest.mark.parametrize("seed, error", [
    (-1, ValueError), (2**64, ValueError), (2**64 + 7, ValueError), (1.0, TypeError),
    ("7", TypeError), (True, TypeError),
])
def test_every_env_applies_the_one_seed_rule(seed, error):
    message = r"seed must be (an int )?in 0\.\.2\*\*64-1"
    with pytest.raises(error, match=message):
        durak_env.raw_env().reset(seed=seed)
    with pytest.raises(error, match=message):
        durak_env.env().reset(seed=seed)
    with pytest.raises(error, match=message):
        DurakEnv().reset(seed=seed)
    with pytest.raises(error, match=message):
        VectorEnv(Rules(), 2, seed=seed)
    v = VectorEnv(Rules(), 2, seed=0)
    with pytest.raises(error, match=message):
        v.reset(seed=seed)


def test_env_seeds_take_the_whole_range():
    for seed in (0, 2**64 - 1, np.uint64(2**64 - 1)):
        durak_env.raw_env().reset(seed=seed)
        DurakEnv().reset(seed=seed)
        VectorEnv(Rules(), 2, seed=seed).reset(seed=seed)


# ---------------------------------------------------------------- 8. types


def test_wrapped_aec_step_true_is_an_illegal_move():
    env = durak_env.env()
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="action id must be an int, got True"):
        env.step(True)


def test_raw_aec_after_every_agent_is_done():
    env = durak_env.raw_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    for call in (lambda: env.step(None), lambda: env.step(0), lambda: env.last()):
        with pytest.raises(RuntimeError, match="every agent is done.*call reset"):
            call()
    env.reset(seed=1)
    env.last()


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(illegal_reward="x"), TypeError, "illegal_reward must be a number"),
    (dict(illegal_reward=float("nan")), ValueError, "illegal_reward must be a finite number"),
    (dict(illegal_reward=True), TypeError, "illegal_reward must be a number"),
    (dict(opponents=[object()]), TypeError, r"opponents\[0\]: .* act\(observation"),
    (dict(opponents=3), TypeError, "opponents: .* act"),
    (dict(opponents="random"), TypeError, "opponents must be agent objects"),
    (dict(opponents=[RandomAgent(), RandomAgent()]), ValueError,
     r"opponents must be one agent or a list of 1"),
    (dict(illegal_action="ignore"), ValueError, "illegal_action"),
    (dict(seat=2), ValueError, "seat"),
])
def test_gym_env_parameters_are_named_in_their_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        DurakEnv(**kwargs)
