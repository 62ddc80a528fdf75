"""Agents by name: the registry, spec parameters and their errors; the interface."""

from __future__ import annotations

import numpy as np
import pytest

from agents import (
    AGENT_NAMES,
    Agent,
    CardCountingAgent,
    ExpertAgent,
    ExpertRulesAgent,
    GreedyAgent,
    PairHoldingAgent,
    RandomAgent,
    TrumpSavingAgent,
    make_agent,
    parse_spec,
)
from agents.registry import REGISTRY
from durak_env import Game, Rules


@pytest.mark.parametrize("name, cls", [
    ("random", RandomAgent), ("greedy", GreedyAgent), ("card_counting", CardCountingAgent),
    ("pair_holding", PairHoldingAgent), ("trump_saving", TrumpSavingAgent),
    ("expert", ExpertAgent), ("expert_rules", ExpertRulesAgent),
])
def test_names_build_their_class(name, cls):
    agent = make_agent(name, Rules())
    assert type(agent) is cls and isinstance(agent, Agent) and agent.name == name


def test_search_players_are_registered_lazily_by_import_path():
    assert REGISTRY["ismcts"] == "agents.ismcts:ISMCTSAgent"
    assert REGISTRY["ppo"] == "agents.ppo:PPOAgent"
    assert {"ismcts", "ppo"} <= set(AGENT_NAMES)


def test_parameters_in_the_spec():
    agent = make_agent("expert:w_pairs=1.5,w_trump=2,search_nodes=10", Rules())
    assert (agent.w_pairs, agent.w_trump, agent.solver.max_nodes) == (1.5, 2.0, 10)
    assert make_agent("greedy:throw_trumps=false", Rules()).throw_trumps is False
    assert parse_spec("ppo:runs/a,b/ckpt.pt") == ("ppo", {"path": "runs/a,b/ckpt.pt"})
    assert parse_spec("ismcts:iterations=400") == ("ismcts", {"iterations": "400"})
    assert make_agent("ismcts:max_time=None", Rules()).max_time is None
    assert make_agent("ismcts:max_time=0.05", Rules()).max_time == 0.05
    assert make_agent("ismcts:time_per_move=null", Rules()).time_per_move is None


@pytest.mark.parametrize("spec, words", [
    ("nobody", ["unknown agent 'nobody'", "expert", "greedy", "random"]),
    ("expert:w_nothing=1", ["unknown parameter 'w_nothing'", "w_pairs", "w_trump"]),
    ("random:x=1", ["unknown parameter 'x'", "(none)"]),
    ("expert:w_pairs", ["must be key=value"]),
    ("expert:w_pairs=lots", ["w_pairs"]),
    ("expert:w_pairs=None", ["w_pairs"]),
    ("", ["non-empty"]),
])
def test_bad_specs_are_clear_errors(spec, words):
    with pytest.raises(ValueError) as e:
        make_agent(spec, Rules())
    for w in words:
        assert w in str(e.value)


def test_agents_need_rules():
    with pytest.raises(ValueError, match="Rules"):
        GreedyAgent("podkidnoy")


@pytest.mark.parametrize("name", ["random", "greedy", "expert"])
def test_act_returns_a_legal_python_int(name):
    rules = Rules()
    game = Game.new(rules, 4)
    agent = make_agent(name, rules)
    agent.reset()
    a = agent.act(game.observe(game.to_act), game.action_mask(), np.random.default_rng(0))
    assert type(a) is int and game.action_mask()[a] == 1


def test_greedy_follows_its_description():
    rules = Rules()
    # Seat 0 attacks; trump is spades (face-up AS).
    game = Game.from_deal(rules, hands=[["6S", "7C", "9D", "10H", "QC", "KD"],
                                        ["8C", "JS", "9C", "10C", "6D", "7D"]],
                          talon=_rest(rules, "6S 7C 9D 10H QC KD 8C JS 9C 10C 6D 7D AS", "AS"),
                          first_attacker=0)
    greedy = make_agent("greedy", rules)
    rng = np.random.default_rng(0)
    a = greedy.act(game.observe(0), game.action_mask(), rng)
    assert game.layout.decode(a) == "play 7C"  # lowest plain card, not the 6 of trumps
    game.play("play 7C")  # seat 0 has no other 7: its pass is forced
    a = greedy.act(game.observe(1), game.action_mask(), rng)
    assert game.layout.decode(a) == "beat 7C 8C"  # cheapest card that beats


def _rest(rules, used, last):
    from durak_env.cards import DECK_LOW_RANK, RANK_NAMES, SUIT_NAMES

    deck = [r + s for r in RANK_NAMES[DECK_LOW_RANK[rules.deck_size]:] for s in SUIT_NAMES]
    taken = set(used.split())
    return [c for c in deck if c not in taken] + [last]
