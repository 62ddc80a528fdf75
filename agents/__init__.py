"""Baseline players and the tournament that ranks them.

Every agent implements ``Agent.act(observation, action_mask, rng) -> action id``
and ``reset()``, reads only its own observation and the mask, and is named by a
spec string (``make_agent("expert:w_pairs=0.5", rules)``).

Modules, by concern:

- ``base``, ``registry``, ``view``: the ``Agent`` interface, spec strings, observation decoding.
- ``heuristics``, ``weights``: the rule-based players and the expert's weights.
- ``expert_kernel``: the expert's rules compiled with numba (``expert_rules``, playouts).
- ``endgame``: the exact two-player end-game solver; ``pimc``: sampled exact search
  before the talon runs out, and the move both searches choose (``searched_move``).
- ``determinize``: full game states consistent with one seat's view.
- ``playouts``, ``ismcts``: the playout policies and the tree search (``ISMCTSAgent``).
- ``ppo``, ``ppo_config``: the policy network and agent, the training configuration.
- ``selfplay``, ``rollout``, ``ppo_update``, ``ppo_train``: self-play opponents and the
  snapshot pool, rollout collection, GAE and the PPO update, the training loop.
- ``tournament`` (a package; ``python -m agents.tournament``), ``stats``: ranking agents.
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
