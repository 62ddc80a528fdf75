"""Opponents that act for many games at once: the seats of ``DurakVectorEnv`` that the
learner does not play.

A batched opponent has ``act(obs, mask, ids, counts, rows, rng) -> actions``: for the
games ``rows`` where it is to act, their observations ``obs[k, obs_size]`` and masks
``mask[k, num_actions]`` (seen from its own seat), the same legal actions as lists
(``ids[k, w]``, the first ``counts[k]`` of each row), and a ``numpy`` Generator; it
returns one action id per row (the self-play players of ``agents.selfplay`` have this
interface). Optionally ``new_games(rows)`` is called when those games are dealt anew.

``resolve`` accepts, per seat:

- ``"random"`` (or ``None``, or a ``durak_env.RandomAgent``): uniform over the legal
  actions, drawn inside the numba kernels (``RANDOM``);
- any other agent spec string (``"expert_rules"``, ``"greedy"``, ``"ppo:PATH"``, ...):
  built by the providers registered under the ``durak_env.opponents`` entry-point
  group; durak-rl's own ``agents`` package registers one (``agents.selfplay.make_player``,
  where ``expert_rules`` runs in numba over the whole batch). The engine never imports a
  provider by name: the installed distribution's metadata says where it is;
- a batched opponent object as above;
- a plain callable ``policy(obs, mask) -> actions`` over a batch (a trained network, an
  SB3 model's ``lambda o, m: model.predict(o, action_masks=m, deterministic=True)[0]``).
"""

from __future__ import annotations

import inspect
from importlib.metadata import entry_points

import numpy as np

from .gym_env import RandomAgent
from .rules import Rules

ENTRY_POINT_GROUP = "durak_env.opponents"


class RandomOpponent:
    """Uniform over the legal actions; ``DurakVectorEnv`` draws these moves in numba."""

    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        pos = (rng.random(len(counts)) * counts).astype(np.int64)
        return ids[np.arange(len(ids)), pos]

    def __repr__(self) -> str:
        return "RandomOpponent()"


RANDOM = RandomOpponent()


class PolicyOpponent:
    """A batched policy ``fn(obs, mask) -> actions`` as a batched opponent."""

    def __init__(self, fn):
        self.fn = fn

    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        return np.asarray(self.fn(obs, mask)).astype(np.int64).reshape(len(rows))

    def __repr__(self) -> str:
        return f"PolicyOpponent({self.fn!r})"


def _is_batched(obj) -> bool:
    act = getattr(obj, "act", None)
    if not callable(act):
        return False
    try:
        return len(inspect.signature(act).parameters) == 6
    except (TypeError, ValueError):
        return False


def _from_providers(spec: str, rules: Rules, env):
    errors = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            return ep.load()(spec, rules, env)
        except ValueError as e:
            errors.append(f"{ep.name}: {e}")
    if not errors:
        raise ValueError(
            f"opponent {spec!r}: no provider of agent specs is installed (entry-point group "
            f"{ENTRY_POINT_GROUP!r}); install durak-rl (pip install -e .), whose agents "
            "package provides them, or pass 'random', a batched opponent or a policy callable")
    raise ValueError(f"opponent {spec!r}: " + "; ".join(errors))


def resolve(opponent, rules: Rules, env):
    """A batched opponent for one seat from a spec, an object or a callable (module docs).

    ``env`` is the vector env the opponent plays in (numba players read its ``batch``).

    Raises:
        ValueError: an unknown spec. TypeError: an object that is none of the above.
    """
    if opponent is None or isinstance(opponent, RandomAgent | RandomOpponent):
        return RANDOM
    if isinstance(opponent, str):
        if opponent.strip() == "random":
            return RANDOM
        return _from_providers(opponent.strip(), rules, env)
    if _is_batched(opponent):
        return opponent
    if callable(opponent) and not hasattr(opponent, "act"):
        return PolicyOpponent(opponent)
    raise TypeError(
        f"an opponent of the vector env must be an agent spec string, a batched opponent "
        f"with act(obs, mask, ids, counts, rows, rng), or a callable policy(obs, mask); got "
        f"{opponent!r} (a single-game agent with act(obs, mask, rng) fits Durak-v0, not the "
        "vector env)")
