"""Baseline players and the tournament that ranks them.

Every agent implements ``Agent.act(observation, action_mask, rng) -> action id``
and ``reset()``, reads only its own observation and the mask, and is named by a
spec string (``make_agent("expert:w_pairs=0.5", rules)``).
"""

from .base import Agent, RandomAgent
from .heuristics import (
    CardCountingAgent,
    ExpertAgent,
    ExpertRulesAgent,
    GreedyAgent,
    HeuristicAgent,
    PairHoldingAgent,
    TrumpSavingAgent,
)
from .registry import AGENT_NAMES, REGISTRY, make_agent, parse_spec

__all__ = [
    "AGENT_NAMES",
    "REGISTRY",
    "Agent",
    "CardCountingAgent",
    "ExpertAgent",
    "ExpertRulesAgent",
    "GreedyAgent",
    "HeuristicAgent",
    "PPOAgent",
    "PairHoldingAgent",
    "RandomAgent",
    "TrumpSavingAgent",
    "make_agent",
    "parse_spec",
]


def __getattr__(name):
    # PPOAgent needs torch; import it only when asked for.
    if name == "PPOAgent":
        from .ppo import PPOAgent

        return PPOAgent
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
