"""durak_env: a fast, faithful Durak simulator with PettingZoo and Gymnasium interfaces."""

from .actions import ActionLayout, IllegalMoveError
from .game import Game
from .observation import ObsView, decode, observation_layout, observation_size
from .rules import Rules

__all__ = [
    "ActionLayout",
    "Game",
    "IllegalMoveError",
    "ObsView",
    "Rules",
    "decode",
    "observation_layout",
    "observation_size",
]
__version__ = "0.1.0"
