"""The PettingZoo AEC env: PettingZoo's own test suites, docs, moves, rewards, bad input."""

import dataclasses
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import durak_env
from durak_env import IllegalMoveError, Rules, aec
from durak_env.observation import layout_table
from tests.conftest import ENV_RULE_SETS, rules_id


def _c(text):
    return text.split()


# Worked example of docs/rules.md section 8.
EXAMPLE = {
    "hands": [
        _c("7S 7C 7D 8H 9C JD"),
        _c("KC 10D 9S 6H 8C QD"),
        _c("KH 6C 6D 10H JC QH"),
    ],
    "talon": _c("10C QC AC 8D 9D KD AD 7H 9H JH AH 6S 8S 10S JS QS KS AS"),
}


@pytest.mark.parametrize("rules", ENV_RULE_SETS, ids=rules_id)
def test_pettingzoo_api_and_seed(rules):
    kwargs = dataclasses.asdict(rules)  # through the keyword arguments, as a user calls it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test passes options={"options": 1}
        api_test(durak_env.env(**kwargs), num_cycles=300)
    seed_test(lambda: durak_env.env(**kwargs), num_cycles=300)


def test_docstring_observation_table_matches_layout():
    doc = aec.__doc__
    start = doc.index("| piece | offset |")
    end = doc.index("<!-- end of observation table -->")
    assert doc[start:end].strip() == layout_table(Rules())


def test_metadata_agents_spaces():
    e = durak_env.env(num_players=3)
    e.reset(seed=1)
    assert e.metadata["name"] == "durak_v0"
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_0").n == durak_env.ActionLayout.of(Rules(num_players=3)).n
    obs = e.observe(e.agent_selection)
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    for agent in e.agents:
        mask = e.observe(agent)["action_mask"]
        assert mask.any() == (agent == e.agent_selection)


def test_worked_example_from_deal_option():
    e = durak_env.raw_env(num_players=3)
    e.reset(options={"deal": EXAMPLE})
    assert e.agent_selection == "player_0"
    assert len(e.legal_moves()) == 6
    for move, next_agent in [("play 7C", "player_0"), ("pass", "player_1"),
                             ("beat 7C KC", "player_0")]:
        e.step(e.move_to_action(move))
        assert e.agent_selection == next_agent
    assert sorted(e.legal_moves()) == ["pass", "play 7D", "play 7S"]
    assert e.action_to_move(e.move_to_action("Beat 7c k♣")) == "beat 7C KC"


def test_rewards_and_termination_at_game_end():
    e = durak_env.raw_env(num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(20):
        e.reset(seed=seed)
        while not any(e.terminations.values()):
            assert sum(e.rewards.values()) == 0
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
        assert all(e.terminations.values())
        rewards = sorted(e.rewards.values())
        assert rewards in ([-1.0, 0.5, 0.5], [0.0, 0.0, 0.0])
        assert e._cumulative_rewards == e.rewards


def test_players_who_left_are_never_selected():
    e = durak_env.raw_env(num_players=4)
    rng = np.random.default_rng(1)
    for seed in range(10):
        e.reset(seed=seed)
        while not any(e.terminations.values()):
            seat = int(e.agent_selection.split("_")[1])
            assert e._b.st[0]["in_game"][seat]
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))


def test_illegal_action_raw_env_names_move_and_legal_moves():
    e = durak_env.raw_env(num_players=3)
    e.reset(options={"deal": EXAMPLE})
    with pytest.raises(IllegalMoveError, match=r"'play KH'.*legal moves: .*play 7C"):
        e.step(e.move_to_action("play KH"))
    with pytest.raises(IllegalMoveError, match="out of range"):
        e.step(10**6)
    with pytest.raises(IllegalMoveError, match="must be an int"):
        e.step("play 7C")
    with pytest.raises(IllegalMoveError, match="must be an int"):
        e.step(1.0)
    e.step(np.int32(e.move_to_action("play 7C")))  # numpy ints are fine


def test_illegal_action_through_env_terminates_with_penalty():
    e = durak_env.env(num_players=3)
    e.reset(options={"deal": EXAMPLE})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(e.unwrapped.move_to_action("play KH"))
    assert all(e.terminations.values())
    assert e.rewards["player_0"] == -1
    with pytest.raises(AssertionError):
        e2 = durak_env.env()
        e2.reset(seed=0)
        e2.step(10**6)


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(foo=1), TypeError, r"unknown keyword argument\(s\) \['foo'\]"),
    (dict(num_player=3), TypeError, "num_player"),
    (dict(rules=Rules(), num_players=3), TypeError, "not both"),
    (dict(rules={"num_players": 2}), TypeError, "rules must be"),
    (dict(num_players=9), ValueError, "num_players"),
    (dict(variant="russian"), ValueError, "variant"),
    (dict(transfer_show_trump=True), ValueError, "transfer_show_trump"),
    (dict(render_mode="rgb_array"), ValueError, "render_mode"),
])
def test_bad_constructor_arguments(kwargs, err, match):
    with pytest.raises(err, match=match):
        durak_env.raw_env(**kwargs)
    with pytest.raises(err, match=match):
        durak_env.env(**kwargs)


@pytest.mark.parametrize("options, match", [
    ("deal", "options must be a dict"),
    ({"deal": [["7S"]]}, r"options\['deal'\] must be a dict"),
    ({"deal": {"hand": []}}, r"unknown key\(s\) \['hand'\]"),
    ({"deal": {"talon": []}}, "needs 'hands'"),
    ({"deal": {"hands": [["7S"]]}}, "hands must be a list of 3"),
    ({"deal": {**EXAMPLE, "talon": EXAMPLE["talon"][:-1]}}, "partition"),
    ({"deal": {**EXAMPLE, "talon": ["ZZ"] + EXAMPLE["talon"]}}, "talon"),
    ({"deal": {**EXAMPLE, "trump": "H"}}, "contradicts"),
    ({"deal": {**EXAMPLE, "first_attacker": 5}}, "first_attacker"),
])
def test_malformed_deal_options(options, match):
    e = durak_env.raw_env(num_players=3)
    with pytest.raises(ValueError, match=match):
        e.reset(options=options)


def test_unknown_reset_options_warn():
    e = durak_env.raw_env()
    with pytest.warns(UserWarning, match="ignoring unknown reset option"):
        e.reset(seed=0, options={"dael": {}})


def test_deal_that_ends_without_a_decision_terminates_at_reset():
    # Each hand one card, talon empty: seat 0 must play 7S, seat 1 must beat with 8S or
    # take -- seat 1 has two options unless it cannot beat; here it cannot.
    deck = durak_env.cards.format_mask(durak_env.cards.deck_mask(36))
    rest = [c for c in deck if c not in ("6S", "7H")]
    e = durak_env.raw_env(num_players=2, hand_size=1)
    e.reset(options={"deal": {"hands": [["6S"], ["7H"]], "discard": rest, "trump": "C"}})
    assert all(e.terminations.values())
