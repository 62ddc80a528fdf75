"""durak_env: a fast, faithful Durak simulator with PettingZoo and Gymnasium interfaces."""

from .actions import ActionLayout, IllegalMoveError
from .aec import env, raw_env
from .game import Game
from .gym_env import DurakEnv, RandomAgent
from .observation import ObsView, decode, observation_layout, observation_size
from .parallel import parallel_env
from .render import render_text
from .rules import Rules
from .vector import VectorEnv

__all__ = [
    "ActionLayout",
    "DurakEnv",
    "Game",
    "IllegalMoveError",
    "ObsView",
    "RandomAgent",
    "Rules",
    "VectorEnv",
    "decode",
    "env",
    "observation_layout",
    "observation_size",
    "parallel_env",
    "raw_env",
    "render_text",
]
__version__ = "0.1.0"
