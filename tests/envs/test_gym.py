"""Gymnasium single-agent env (Durak-v0): check_env, opponents, masks, bad input."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import durak_env  # noqa: F401  (registers Durak-v0)
from durak_env import DurakEnv, IllegalMoveError, RandomAgent, Rules


def test_check_env_registered():
    env = gym.make("Durak-v0")
    check_env(env.unwrapped)
    env3 = gym.make("Durak-v0", num_players=3, variant="perevodnoy", seat="random",
                    render_mode="ansi")
    check_env(env3.unwrapped)


class Recorder(RandomAgent):
    def __init__(self):
        self.calls = 0
        self.resets = 0

    def reset(self):
        self.resets += 1

    def act(self, observation, action_mask, rng):
        assert observation.dtype == np.float32 and action_mask.dtype == np.int8
        assert action_mask.sum() >= 2
        self.calls += 1
        return super().act(observation, action_mask, rng)


def test_episode_with_custom_opponents():
    opps = [Recorder(), Recorder()]
    env = DurakEnv(num_players=3, seat=1, opponents=opps)
    rng = np.random.default_rng(0)
    for ep in range(5):
        obs, info = env.reset(seed=ep)
        assert env.observation_space.contains(obs)
        done, reward = False, 0.0
        while not done:
            mask = info["action_mask"]
            assert (mask.astype(bool) == env.action_masks()).all()
            assert env.action_masks().dtype == bool
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            assert not truncated
        assert reward in (-1.0, 0.5, 0.0)
        # over: only the placeholder `pass` that the (ignored) autoreset action may sample
        assert info["action_mask"].tolist() == [1] + [0] * (env.action_space.n - 1)
    assert all(o.calls > 0 and o.resets == 5 for o in opps)


def test_random_seat_changes():
    env = DurakEnv(num_players=4, seat="random")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert len(seats) > 1


def test_illegal_action_modes():
    env = DurakEnv()
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -1.0 and info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(bad)
    env = DurakEnv(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="legal moves"):
        env.step(bad)
    with pytest.raises(IllegalMoveError, match="out of range"):
        env.step(10**6)
    with pytest.raises(IllegalMoveError, match="must be an int"):
        env.step("take")


def test_deal_option_and_render(capsys):
    deal = {"hands": [["7S", "8S"], ["9C", "10C"]], "talon": [], "trump": "H",
            "discard": [c for c in durak_env.cards.format_mask(durak_env.cards.deck_mask(36))
                        if c not in ("7S", "8S", "9C", "10C")]}
    env = DurakEnv(rules=Rules(hand_size=2), render_mode="ansi")
    env.reset(options={"deal": deal})
    text = env.render()
    assert "7♠" in text and "Trump ♥" in text
    env = DurakEnv(rules=Rules(hand_size=2), render_mode="human")
    env.reset(options={"deal": deal})
    assert env.render() is None
    assert "7♠" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs, err", [
    (dict(foo=1), TypeError),
    (dict(num_players=7), ValueError),
    (dict(seat=5), ValueError),
    (dict(seat="any"), ValueError),
    (dict(opponents=[RandomAgent()] * 3), ValueError),
    (dict(opponents=object()), TypeError),
    (dict(illegal_action="ignore"), ValueError),
    (dict(render_mode="rgb_array"), ValueError),
])
def test_bad_arguments(kwargs, err):
    with pytest.raises(err):
        DurakEnv(**kwargs)


def test_bad_reset_options():
    env = DurakEnv()
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"dael": {}})
    with pytest.raises(ValueError, match="hands"):
        env.reset(options={"deal": {"hands": [["7S"]]}})
