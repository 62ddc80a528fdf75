"""The agent interface: a player that sees only its own observation and the action mask."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from durak_env import RandomAgent as _EnvRandomAgent
from durak_env import Rules


class Agent(ABC):
    """A Durak player.

    An agent is built for one ``Rules`` and reads only what the environment gives
    its seat: the observation vector (decode it with ``durak_env.decode`` or
    ``agents.view.fast_decode``) and the action mask. It never sees hidden state.

    Attributes:
        rules: the rules the agent is playing under.
        name: the spec string it was built from (set by ``make_agent``).
    """

    name: str = "agent"

    def __init__(self, rules: Rules):
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a durak_env.Rules, got {type(rules).__name__}")
        self.rules = rules

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            rng: np.random.Generator) -> int:
        """Choose a legal action id.

        Args:
            observation: the acting seat's observation vector.
            action_mask: 0/1 vector over the action space, 1 where legal.
            rng: the only source of randomness the agent may use.
        """

    def reset(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Forget everything about the previous game (called before each game)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class RandomAgent(_EnvRandomAgent, Agent):
    """Plays a uniformly random legal action: ``durak_env.RandomAgent`` (the Gymnasium env's
    default opponent, the same draws) as a registry ``Agent``."""

    name = "random"
