"""durak_env: a fast, faithful Durak simulator with PettingZoo and Gymnasium interfaces."""

from .actions import ActionLayout, IllegalMoveError
from .game import Game
from .rules import Rules

__all__ = ["ActionLayout", "Game", "IllegalMoveError", "Rules"]
__version__ = "0.1.0"
