"""Gymnasium single-agent Durak (``Durak-v0``): the learner plays one seat, opponents the rest.

```python
import gymnasium as gym
import durak_env  # registers Durak-v0

env = gym.make("Durak-v0", num_players=3, seat="random")
obs, info = env.reset(seed=0)
done = False
while not done:
    legal = info["action_mask"].nonzero()[0]
    obs, reward, terminated, truncated, info = env.step(int(legal[0]))
    done = terminated or truncated
```

Observations and actions are those of the PettingZoo env (``durak_env.aec``),
from the learner's seat. ``info["action_mask"]`` (int8) and ``action_masks()``
(bool, the convention of maskable-PPO libraries) give the legal actions. Once the
episode is over (the terminal step, and an illegal action that ends it) there are
no legal actions, yet a vector env's autoreset step still asks for an action, which it
ignores: there the mask is ``autoreset_mask``, a single 1 at ``pass`` (id 0), so
that a masked sampler (``action_space.sample(mask)``, MaskablePPO) always has
something to draw; test ``terminated or truncated``, not the mask, for the end. The
reward is the learner's final reward (docs/rules.md section 6) on the step that ends
the game, else 0. Opponents are objects with ``act(observation, action_mask, rng)
-> int`` and ``reset()`` (the agents' interface); by default ``RandomAgent``.

An illegal action is handled by ``illegal_action``: ``"terminate"`` (default, as
PettingZoo's ``TerminateIllegalWrapper``) ends the episode with ``illegal_reward``
and ``info["illegal_action"] = True``; ``"raise"`` raises ``IllegalMoveError``.
When an opponent raises (or picks an illegal action) inside ``step`` or ``reset``, the
error propagates and the env refuses further steps until the next ``reset``.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from . import batch as bt
from .actions import PASS, IllegalMoveError
from .batch import check_render_mode, rules_from_kwargs
from .checks import check_number, check_seed
from .rules import Rules
from .single import SingleGameEnv
from .vector import observation_space

ENV_ID = "Durak-v0"
_MAX_DEALS = 1000


def autoreset_mask(num_actions: int) -> np.ndarray:
    """The mask given once an episode is over: ``pass`` (id 0) alone, so that sampling
    from it for the (ignored) autoreset action never fails on an all-zero mask."""
    mask = np.zeros(num_actions, np.int8)
    mask[PASS] = 1
    return mask


class RandomAgent:
    """Chooses uniformly among the legal actions."""

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            rng: np.random.Generator) -> int:
        return int(rng.choice(np.flatnonzero(action_mask)))


def _check_opponents(opponents, n: int) -> list:
    if opponents is None:
        return [RandomAgent() for _ in range(n - 1)]
    if isinstance(opponents, str | bytes):
        raise TypeError(f"opponents must be agent objects, not a spec string such as "
                        f"{opponents!r} (agents.make_agent builds one from a spec)")
    single = not isinstance(opponents, Sequence)
    if single:
        opponents = [opponents] * (n - 1)
    opponents = list(opponents)
    if len(opponents) != n - 1:
        raise ValueError(f"opponents must be one agent or a list of {n - 1} (num_players - 1), "
                         f"got {len(opponents)}")
    for i, o in enumerate(opponents):
        if not callable(getattr(o, "act", None)):
            where = "opponents" if single else f"opponents[{i}]"
            raise TypeError(
                f"{where}: an opponent needs an act(observation, action_mask, rng) method, "
                f"got {o!r}")
    return opponents


class DurakEnv(SingleGameEnv, gymnasium.Env):
    """One learner seat against opponents; see the module docstring.

    Args:
        rules: ``Rules``, or pass the Rules fields as keyword arguments.
        seat: the learner's seat, or ``"random"`` to draw it each episode.
        opponents: one agent for every other seat, or a list of ``num_players - 1``
            agents: ``opponents[i]`` plays the seat ``i + 1`` places after the learner.
        illegal_action: ``"terminate"`` or ``"raise"``.
        illegal_reward: reward when an illegal action terminates the episode.
        render_mode: None, ``"ansi"`` or ``"human"``.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, rules: Rules | None = None, seat: int | str = 0, opponents=None,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **kwargs):
        self._init_game(rules_from_kwargs("DurakEnv", rules, **kwargs))
        n = self.rules.num_players
        check_render_mode(render_mode, self.metadata["render_modes"])
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int | np.integer)
                                 or not 0 <= seat < n):
            raise ValueError(f"seat must be in 0..{n - 1} or 'random', got {seat!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.render_mode = render_mode
        self.seat_option = seat
        self.opponents = _check_opponents(opponents, n)
        self.illegal_action = illegal_action
        self.illegal_reward = check_number("illegal_reward", illegal_reward)
        self.observation_space = observation_space(self.rules)
        self.action_space = spaces.Discrete(self.layout.n)
        self.seat = 0
        self._done = True

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed)
        deal = self._deal_option(options)
        self._done = True  # until this reset has dealt and played the opponents to the learner
        super().reset(seed=seed)
        n = self.rules.num_players
        self.seat = int(self.np_random.integers(n)) if self.seat_option == "random" else int(
            self.seat_option)
        for _ in range(_MAX_DEALS):
            for o in self.opponents:
                if hasattr(o, "reset"):
                    o.reset()
            self._deal(deal)
            self._play_opponents()
            if self._n_legal:
                break
            if deal is not None:
                raise ValueError(f"the learner (seat {self.seat}) never acts in this deal")
        self._done = False
        return self._obs, self._info()

    def _deal_option(self, options):
        return bt.deal_from_options(self.rules, options, "Durak-v0", strict=True)

    def _deal(self, deal) -> int:
        if deal is None:  # the episode's deal comes from the env's own np_random
            self._b.st["rng"][0] = self.np_random.integers(0, 2**63, dtype=np.int64)
        return super()._deal(deal)

    def step(self, action):
        if self._done:
            raise RuntimeError("the episode is over (or its last step or reset failed): "
                               "call reset()")
        a = self.layout.check_id(action)
        if not self._mask[a]:
            return self._illegal(a)
        self._done = True  # an opponent that raises leaves the env to be reset
        self._apply(a)
        self._play_opponents()
        self._done = False
        if self._n_legal:
            return self._obs, 0.0, False, False, self._info()
        self._done = True
        return self._final_obs(), float(self._rew[self.seat]), True, False, self._info()

    def _illegal(self, a):
        if self.illegal_action == "raise":
            raise IllegalMoveError(self._illegal_message(a, f"seat {self.seat}"))
        self._done = True
        info = {"action_mask": autoreset_mask(self.layout.n), "illegal_action": True}
        return self._obs.copy(), self.illegal_reward, True, False, info

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as a bool array (``autoreset_mask`` once the episode
        is over or its last step failed: a sampler never finds an empty mask, and ``step``
        refuses until ``reset``)."""
        if self._done:
            return autoreset_mask(self.layout.n).astype(bool)
        return self._mask.astype(bool)

    def _warn_no_render_mode(self) -> None:
        gymnasium.logger.warn("Durak-v0: render() called without a render_mode")

    # ------------------------------------------------------------ internals

    def _play_opponents(self):
        n = self.rules.num_players
        while self._n_legal and self._to_act != self.seat:
            seat = self._to_act
            agent = self.opponents[(seat - self.seat) % n - 1]
            a = agent.act(self._obs, self._mask, self.np_random)
            try:
                a = self.layout.check_id(a)
            except IllegalMoveError as e:
                raise IllegalMoveError(f"opponent {agent!r} at seat {seat}: {e}") from None
            if not self._mask[a]:
                raise IllegalMoveError(f"opponent {agent!r} at seat {seat} chose illegal action "
                                       f"{a} ({self.layout.decode(a)!r})")
            self._apply(a)

    def _final_obs(self):
        return self._b.observe(0, self.seat)

    def _info(self) -> dict:
        mask = self._mask.copy() if self._n_legal else autoreset_mask(self.layout.n)
        return {"action_mask": mask, "seat": self.seat}


def register() -> None:
    """Register ``Durak-v0`` with Gymnasium (idempotent); ``gym.make_vec("Durak-v0", ...)``
    builds the numba-batched ``learner_vector.DurakVectorEnv`` (``vectorization_mode="sync"``
    gives Gymnasium's ``SyncVectorEnv`` of ``DurakEnv`` instead)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="durak_env.gym_env:DurakEnv",
                           vector_entry_point="durak_env.learner_vector:DurakVectorEnv")


register()
