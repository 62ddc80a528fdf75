"""``DurakVectorEnv``: ``Durak-v0`` for many games at once, a Gymnasium-conformant vector env.

```python
import gymnasium as gym
import durak_env  # registers Durak-v0 and its vector entry point

envs = gym.make_vec("Durak-v0", num_envs=1024, vectorization_mode="vector_entry_point",
                    opponents="expert_rules", seed=0)
obs, info = envs.reset(seed=0)            # obs float32[1024, obs_size]
for _ in range(100):
    actions = envs.action_space.sample(info["action_mask"].astype(np.int8))
    obs, rewards, terminated, truncated, info = envs.step(actions)   # rewards float32[1024]
```

Every entry is one game seen by the learner, exactly as ``Durak-v0`` (``gym_env.py``)
sees it: the learner plays one seat (``seat``: a number or ``"random"`` per game), the
opponents play the others and their moves happen inside ``step``, which returns at the
learner's next decision or at the end of the game, with the learner's reward
(``(num_envs,)``, float32) on the step that ends it. Games are dealt, stepped and
observed by the numba kernels of ``batch.py`` over the whole batch; random opponents
move inside those kernels, other opponents act for all their games in one call (see
``opponents.py``: ``"expert_rules"`` is numba too, or any batched policy).

Info follows Gymnasium's vector conventions, every key with its ``_key`` mask:
``action_mask`` int8[B, A] (the learner's legal actions), ``seat`` int32[B]. On the
step that ends a game the mask is ``gym_env.autoreset_mask`` (``pass`` alone), which
the autoreset action may sample safely; ``illegal_action`` marks games ended by an
illegal learner action when ``illegal_action="terminate"``.

Autoreset (``autoreset_mode``, Gymnasium's ``AutoresetMode``; the default is
``NEXT_STEP``, as ``gym.make_vec(..., vectorization_mode="sync")``):

- ``NEXT_STEP``: the terminal step returns the final observation; the next ``step``
  deals a new game in that entry, ignores its action and returns reward 0.
- ``SAME_STEP``: the terminal step already returns the new game's first observation;
  ``info["final_obs"]`` (an object array) and ``info["final_info"]`` hold the final
  ones where ``info["_final_obs"]``.
- ``DISABLED``: finished games wait for ``reset(options={"reset_mask": done})``.

Seeding: ``reset(seed=s)`` seeds game g's deals from ``(s, g)`` (as ``VectorEnv``), the
random opponents' moves and the seat draws from their own streams. ``truncated`` is
always False (games always end). The self-play ``VectorEnv`` (``vector.py``), where one
action per game moves whichever seat is to act and the rewards are per seat, is a
different thing: the multi-seat batch for self-play trainers.
"""

from __future__ import annotations

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv
from gymnasium.vector.utils import batch_space
from numba import njit, prange

from . import batch as bt
from . import core, observation
from .actions import IllegalMoveError
from .batch import Batch, check_render_mode, rules_from_kwargs
from .gym_env import autoreset_mask
from .opponents import RANDOM, resolve
from .rules import Rules
from .vector import observation_space

# RNG streams of ``bt.stream_seeds`` besides the deals (stream 0).
_OPPONENT_STREAM, _SEAT_STREAM = 2, 3
_MAX_DEALS = 1000


@njit(parallel=True, cache=True)
def _deal_rows(st, prm, off, rows, buf, n_legal, mask, obs, deal_rng):
    log = np.empty((0, 2), np.int32)
    for i in prange(rows.shape[0]):
        g = rows[i]
        bt.set_mask(buf[g], n_legal[g], mask[g], 0)
        n, start = bt.deal_until_decision(st[g], prm, buf[g], log)
        deal_rng[g] = start
        bt.refresh(st[g], prm, off, n, buf[g], mask[g], obs[g])
        n_legal[g] = n


@njit(parallel=True, cache=True)
def _step_rows(st, prm, off, rows, actions, buf, n_legal, mask, obs, rew):
    """Apply ``actions[i]`` (legal, checked by the caller) to game ``rows[i]``."""
    log = np.empty((0, 2), np.int32)
    for i in prange(rows.shape[0]):
        g = rows[i]
        bt.set_mask(buf[g], n_legal[g], mask[g], 0)
        n_legal[g] = bt.advance(st[g], prm, off, actions[i], buf[g], mask[g], obs[g], rew[g], log)


@njit(parallel=True, cache=True)
def _random_until_learner(st, prm, off, rows, seat, rng, buf, n_legal, mask, obs, rew):
    """Random moves for every other seat until the learner is to act or the game is over."""
    log = np.empty((0, 2), np.int32)
    for i in prange(rows.shape[0]):
        g = rows[i]
        r = st[g]
        while n_legal[g] > 0 and r.to_act != seat[g]:
            a = buf[g, bt.rng_below(rng, g, n_legal[g])]
            bt.set_mask(buf[g], n_legal[g], mask[g], 0)
            n_legal[g] = bt.advance(r, prm, off, a, buf[g], mask[g], obs[g], rew[g], log)


@njit(parallel=True, cache=True)
def _observe_rows(st, prm, off, rows, seat, out):
    for i in prange(rows.shape[0]):
        observation.encode(st[rows[i]], prm, off, seat[rows[i]], out[i])


def _threads(num_threads):
    top = numba.config.NUMBA_NUM_THREADS
    if num_threads is None:
        return top
    if isinstance(num_threads, bool) or not isinstance(num_threads, int | np.integer) or not (
            1 <= num_threads <= top):
        raise ValueError(f"num_threads must be an int in 1..{top} or None, got {num_threads!r}")
    return int(num_threads)


def _autoreset_mode(mode) -> AutoresetMode:
    try:
        return AutoresetMode(mode)
    except ValueError:
        valid = [m.value for m in AutoresetMode]
        raise ValueError(f"autoreset_mode must be one of {valid}, got {mode!r}") from None


class DurakVectorEnv(GymVectorEnv):
    """``num_envs`` games of ``Durak-v0`` in numba; see the module docstring.

    Args:
        num_envs: number of games.
        rules: ``Rules``, or pass the Rules fields as keyword arguments.
        seat: the learner's seat, or ``"random"`` to draw it for each game.
        opponents: one opponent for every other seat, or a list of ``num_players - 1``
            (``opponents[i]`` plays ``i + 1`` places after the learner): ``"random"``
            (default), an agent spec such as ``"expert_rules"``, a batched opponent or a
            callable ``policy(obs, mask) -> actions`` (``opponents.py``).
        illegal_action: ``"raise"`` (default: ``ValueError``, no game is stepped) or
            ``"terminate"`` (that game ends with ``illegal_reward``).
        illegal_reward: the learner's reward when an illegal action ends its game.
        autoreset_mode: an ``AutoresetMode`` or its value (default ``"NextStep"``).
        seed: seed of the deal, opponent and seat streams (None: fresh entropy).
        num_threads: numba threads (None: all).
        render_mode: None or ``"ansi"`` (``render()`` gives each game's text).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi"]}

    def __init__(self, num_envs: int = 1, rules: Rules | None = None, seat: int | str = 0,
                 opponents=None, illegal_action: str = "raise", illegal_reward: float = -1.0,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 seed: int | None = None, num_threads: int | None = None,
                 render_mode: str | None = None, **kwargs):
        self.rules = rules_from_kwargs("DurakVectorEnv", rules, **kwargs)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        check_render_mode(render_mode, self.metadata["render_modes"])
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        self.num_envs, self.render_mode = int(num_envs), render_mode
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.num_threads = _threads(num_threads)
        self._b = Batch(self.rules, self.num_envs)
        self.layout = self._b.layout
        self._check_seat(seat)
        self.single_observation_space = observation_space(self.rules)
        self.single_action_space = spaces.Discrete(self.layout.n)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._alloc()
        self._seed(core.fresh_seed() if seed is None else seed)
        self.opponents = self._resolve_opponents(opponents)
        self._needs_reset = True

    def _check_seat(self, seat):
        n = self.rules.num_players
        if seat != "random" and (isinstance(seat, bool) or not isinstance(seat, int | np.integer)
                                 or not 0 <= seat < n):
            raise ValueError(f"seat must be in 0..{n - 1} or 'random', got {seat!r}")
        self.seat_option = seat

    def _alloc(self):
        b, p, a = self.num_envs, self.rules.num_players, self.layout.n
        self._mask = np.zeros((b, a), np.int8)
        self._obs = np.zeros((b, self._b.obs_size), np.float32)
        self._rew = np.zeros((b, p), np.float64)
        self._seat = np.zeros(b, np.int32)
        self._done = np.zeros(b, np.bool_)  # over, waiting for its reset
        self._opp_rng = np.zeros(b, np.uint64)
        self._end_mask = autoreset_mask(a)

    def _resolve_opponents(self, opponents):
        n = self.rules.num_players
        if isinstance(opponents, list | tuple):
            if len(opponents) != n - 1:
                raise ValueError(f"opponents must be one opponent or a list of {n - 1} "
                                 f"(num_players - 1), got {len(opponents)}")
            return [resolve(o, self.rules, self) for o in opponents]
        return [resolve(opponents, self.rules, self)] * (n - 1)

    @property
    def batch(self) -> Batch:
        """The games as a ``Batch`` (numba state ``st``, legal actions ``buf``/``n_legal``),
        for compiled opponents that act inside it; read it, do not write it."""
        return self._b

    def _seed(self, seed):
        s = bt.seed_to_int(seed)
        self._b.seed(s)
        self._opp_rng[:] = bt.stream_seeds(np.uint64(s), _OPPONENT_STREAM, self.num_envs)
        self._seat_rng = np.random.default_rng(
            int(bt.stream_seeds(np.uint64(s), _SEAT_STREAM, 1)[0]))
        self._np_random = np.random.default_rng(s)

    def _set_threads(self):
        if numba.get_num_threads() != self.num_threads:
            numba.set_num_threads(self.num_threads)

    # ------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal new games (every game, or those of ``options["reset_mask"]``).

        Returns:
            (obs float32[B, obs_size], info with ``action_mask`` and ``seat``)
        """
        if seed is not None:
            self._seed(seed)
        rows = np.arange(self.num_envs)
        if options:
            rows = self._reset_rows(options)
        self._set_threads()
        self._new_games(rows)
        self._needs_reset = False
        return self._obs.copy(), self._info(self._mask.copy())

    def _reset_rows(self, options: dict) -> np.ndarray:
        unknown = sorted(k for k in options if k != "reset_mask")
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; valid: ['reset_mask']")
        m = np.asarray(options["reset_mask"])
        if m.shape != (self.num_envs,) or m.dtype != np.bool_:
            raise ValueError(f"options['reset_mask'] must be a bool array of shape "
                             f"({self.num_envs},), got {m.dtype} {m.shape}")
        if self._needs_reset and not m.all():
            raise ValueError("the first reset must reset every game")
        return np.flatnonzero(m)

    def step(self, actions):
        """One learner action per game; the opponents' moves follow inside (module docs).

        Raises:
            ValueError: an action is out of range or illegal (with ``illegal_action="raise"``;
                nothing is applied), or ``actions`` has the wrong shape.
        """
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        a = self._check_actions(actions)
        self._set_threads()
        waiting = np.flatnonzero(self._done)
        if len(waiting) and self.autoreset_mode == AutoresetMode.DISABLED:
            raise RuntimeError(f"games {waiting[:8].tolist()} are over: with autoreset "
                               "disabled, reset(options={'reset_mask': ...}) them first")
        live = np.flatnonzero(~self._done)
        illegal = self._illegal_rows(live, a)
        moved = np.setdiff1d(live, illegal, assume_unique=True)
        _step_rows(self._b.st, self._b.prm, self._b.off, moved, a[moved], self._b.buf,
                   self._b.n_legal, self._mask, self._obs, self._rew)
        self._play_opponents(moved)
        return self._result(waiting, moved, illegal)

    def _check_actions(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        return a.astype(np.int64, copy=False)

    def _illegal_rows(self, rows, a) -> np.ndarray:
        ar = a[rows]
        ok = (ar >= 0) & (ar < self.layout.n)
        ok[ok] = self._mask[rows[ok], ar[ok]] == 1
        bad = rows[~ok]
        if len(bad) and self.illegal_action == "raise":
            raise ValueError(self._illegal_message(int(bad[0]), int(a[bad[0]])))
        return bad

    def _illegal_message(self, g: int, action: int) -> str:
        if not 0 <= action < self.layout.n:
            return f"env {g}: action {action} is out of range 0..{self.layout.n - 1}"
        legal = [self.layout.decode(int(x)) for x in self._b.buf[g, : self._b.n_legal[g]]]
        return (f"env {g}: illegal action {action} ({self.layout.decode(action)!r}) for the "
                f"learner (seat {int(self._seat[g])}); legal moves: {', '.join(legal)}; "
                "no game was stepped")

    # ------------------------------------------------------------ results

    def _result(self, waiting, moved, illegal):
        b = self._b
        ended = moved[b.n_legal[moved] == 0]
        rewards = np.zeros(self.num_envs, np.float32)
        rewards[ended] = self._rew[ended, self._seat[ended]]
        rewards[illegal] = self.illegal_reward
        term = np.zeros(self.num_envs, np.bool_)
        over = np.union1d(ended, illegal)
        term[over] = True
        obs, mask = self._obs.copy(), self._mask.copy()
        obs[ended] = self._final_obs(ended)
        mask[over] = self._end_mask
        info = self._info(mask, illegal)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            return self._same_step(obs, rewards, term, info, over)
        if len(waiting):  # NEXT_STEP: the entries that ended last step start a new game
            self._new_games(waiting)
            obs[waiting], info["action_mask"][waiting] = self._obs[waiting], self._mask[waiting]
            info["seat"][waiting] = self._seat[waiting]
        self._done[over] = True
        return obs, rewards, term, np.zeros(self.num_envs, np.bool_), info

    def _same_step(self, obs, rewards, term, info, over):
        if len(over):
            final_obs = np.full(self.num_envs, None, dtype=object)
            for g in over:
                final_obs[g] = obs[g].copy()
            info["final_obs"], info["_final_obs"] = final_obs, term.copy()
            info["final_info"] = {k: v.copy() for k, v in info.items() if not k.startswith(
                ("final", "_final"))}
            info["_final_info"] = term.copy()
            self._new_games(over)
            obs[over], info["action_mask"][over] = self._obs[over], self._mask[over]
            info["seat"][over] = self._seat[over]
        return obs, rewards, term, np.zeros(self.num_envs, np.bool_), info

    def _final_obs(self, rows) -> np.ndarray:
        out = np.empty((len(rows), self._b.obs_size), np.float32)
        b = self._b
        _observe_rows(b.st, b.prm, b.off, rows, self._seat, out)
        return out

    def _info(self, mask, illegal=()) -> dict:
        every = np.ones(self.num_envs, np.bool_)
        info = {"action_mask": mask, "_action_mask": every,
                "seat": self._seat.copy(), "_seat": every.copy()}
        if len(illegal):
            flag = np.zeros(self.num_envs, np.bool_)
            flag[illegal] = True
            info["illegal_action"], info["_illegal_action"] = flag, flag.copy()
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions per game as bool[B, A] (``autoreset_mask`` where over)."""
        mask = self._mask.astype(bool)
        mask[self._done] = self._end_mask.astype(bool)
        return mask

    # ------------------------------------------------------------ games and opponents

    def _new_games(self, rows):
        """Deal ``rows`` anew and play until the learner's first decision in each."""
        rows = np.asarray(rows, np.int64)
        b = self._b
        self._done[rows] = False
        for _ in range(_MAX_DEALS):
            if not len(rows):
                break
            if self.seat_option == "random":
                self._seat[rows] = self._seat_rng.integers(0, self.rules.num_players, len(rows))
            else:
                self._seat[rows] = self.seat_option
            _deal_rows(b.st, b.prm, b.off, rows, b.buf, b.n_legal, self._mask, self._obs,
                       b.deal_rng)
            for player in {id(o): o for o in self.opponents}.values():
                if hasattr(player, "new_games"):
                    player.new_games(rows)
            self._play_opponents(rows)
            rows = rows[b.n_legal[rows] == 0]  # over before the learner ever chose: again

    def _play_opponents(self, rows):
        b, seat = self._b, self._seat
        rows = self._pending(rows)
        if not len(rows):
            return
        if all(o is RANDOM for o in self.opponents):
            _random_until_learner(b.st, b.prm, b.off, rows, seat, self._opp_rng, b.buf,
                                  b.n_legal, self._mask, self._obs, self._rew)
            return
        while len(rows):
            actions = self._opponent_actions(rows)
            _step_rows(b.st, b.prm, b.off, rows, actions, b.buf, b.n_legal, self._mask,
                       self._obs, self._rew)
            rows = self._pending(rows)

    def _pending(self, rows):
        """The games of ``rows`` where an opponent is to act."""
        to_act = self._b.st["to_act"][rows]
        return rows[(self._b.n_legal[rows] > 0) & (to_act != self._seat[rows])]

    def _opponent_actions(self, rows) -> np.ndarray:
        n, b = self.rules.num_players, self._b
        slot = (b.st["to_act"][rows] - self._seat[rows]) % n - 1
        actions = np.empty(len(rows), np.int64)
        for k, opp in enumerate(self.opponents):
            sel = slot == k
            if sel.any():
                actions[sel] = self._ask(opp, rows[sel])
        return actions

    def _ask(self, opp, rows) -> np.ndarray:
        b = self._b
        counts = b.n_legal[rows].astype(np.int64)
        ids = b.buf[rows, : int(counts.max())]
        a = np.asarray(opp.act(self._obs[rows], self._mask[rows], ids, counts, rows,
                               self._np_random), np.int64).reshape(len(rows))
        ok = (a >= 0) & (a < self.layout.n)
        ok[ok] = self._mask[rows[ok], a[ok]] == 1
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise IllegalMoveError(f"opponent {opp!r} chose action {int(a[i])}, not legal in "
                                   f"env {int(rows[i])}")
        return a

    # ------------------------------------------------------------ extras

    def render(self) -> tuple[str, ...] | None:
        """Each game's position as text (the referee's view) with ``render_mode="ansi"``."""
        if self.render_mode is None:
            return None
        from .render import render_state

        return tuple(render_state(self._b.st, g, self.rules) for g in range(self.num_envs))

    def __repr__(self) -> str:
        return (f"DurakVectorEnv({self.rules}, num_envs={self.num_envs}, "
                f"autoreset_mode={self.autoreset_mode.value})")
