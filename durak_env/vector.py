"""``VectorEnv``: many games stepped together in one multithreaded numba call.

This is the multi-seat batch for self-play trainers (one action per game for whichever
seat is to act, rewards per seat), not a single-agent Gymnasium vector env: for that,
with Gymnasium's vector wrappers, use ``gym.make_vec("Durak-v0", ...)``
(``learner_vector.DurakVectorEnv``).

Each entry of the batch is one game, seen from the seat asked to act: ``step``
takes one action per game (for whichever seat is to act there) and returns that
game's next decision. It is a thin layer over ``batch.py``: legality, forced
moves and rewards come from the core, the observation from ``observation.encode``.

API (Gymnasium's vector vocabulary)::

    env = VectorEnv(Rules(num_players=3), num_envs=4096, seed=0, num_threads=2)
    obs, info = env.reset()               # obs float32[B, obs_size]
    # info["action_mask"] int8[B, num_actions], info["to_act"] int32[B] (absolute seat)
    obs, rew, term, trunc, info = env.step(env.random_actions())  # or env.step_random()
    # rew float32[B, num_players]: every seat's final reward where term is True
    # info["game_length"] int32[B]: decisions in the game that just ended (where term)

Autoreset: ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``). On the step
that ends a game, ``rewards`` holds every seat's final reward, ``terminated`` is
True, and ``obs``, ``action_mask`` and ``to_act`` already belong to the first
decision of the next game, dealt from the game's own RNG stream. The final state
of the finished game is not returned: it has no decision to make, and its value is
the reward. ``truncated`` is always False (games always end).

Random deals in which nobody ever has a choice (possible only with tiny hands) are
dealt again; every game in the batch always has a seat to act with >= 2 legal actions.

Seeding: game ``g``'s deals come from its own splitmix64 stream seeded from
``(seed, g)``, and ``random_actions``/``step_random`` draw from a second stream, so
the deals depend on the seed only: not on the thread count, the batch size or the
actions chosen. ``deal(g)`` returns game g's current deal as ``Game.from_deal``
arguments; ``observe(seats)`` gives each game's observation for any seat.
An illegal or out-of-range action raises ``ValueError`` naming the game, the action
and its move, and leaves every game unchanged; ``actions`` may be any integer array
(read-only, strided, any integer dtype) or sequence of ints of shape ``(num_envs,)``.
With ``copy=False`` the returned observation and mask arrays are read-only views of
the internal buffers, valid until the next call.
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
from .batch import Batch
from .checks import check_bool, check_int
from .rules import TABLE_SLOTS, Rules

_ACTION_STREAM = 1


@njit(parallel=True, cache=True)
def _vec_reset(st, prm, off, games, buf, n_legal, mask, obs, dec, to_act, deal_rng):
    log = np.empty((0, 2), np.int32)  # core's forced-move log, unused here
    for i in prange(games.shape[0]):
        g = games[i]
        r = st[g]
        bt.set_mask(buf[g], n_legal[g], mask[g], 0)
        n, start = bt.deal_until_decision(r, prm, buf[g], log)
        deal_rng[g] = start
        bt.refresh(r, prm, off, n, buf[g], mask[g], obs[g])
        n_legal[g] = n
        to_act[g] = r.to_act
        dec[g] = 0


@njit(cache=True)
def _first_illegal(actions, mask):
    for g in range(actions.shape[0]):
        a = actions[g]
        if a < 0 or a >= mask.shape[1] or mask[g, a] == 0:
            return g
    return -1


@njit(parallel=True, cache=True)
def _vec_step(st, prm, off, actions, draw, act_rng, buf, n_legal, mask, obs, rew, term, glen,
              dec, to_act, deal_rng):
    """Step every game; returns -1, or the first game with an illegal action (no change).

    With ``draw`` the actions are first drawn uniformly from the legal ones (into
    ``actions``), in the same parallel region.
    """
    if not draw:
        bad = _first_illegal(actions, mask)  # serial: a second parallel region costs more
        if bad >= 0:
            return bad
    log = np.empty((0, 2), np.int32)
    for g in prange(actions.shape[0]):
        r, bg, mg = st[g], buf[g], mask[g]
        if n_legal[g] == 0:  # only after MAX_REDEALS deals without a decision
            continue
        if draw:
            actions[g] = bg[bt.rng_below(act_rng, g, n_legal[g])]
        bt.set_mask(bg, n_legal[g], mg, 0)
        dec[g] += 1
        n = bt.advance(r, prm, off, actions[g], bg, mg, obs[g], rew[g], log)
        if n == 0:
            term[g] = True
            glen[g] = dec[g]
            dec[g] = 0
            n, start = bt.deal_until_decision(r, prm, bg, log)
            deal_rng[g] = start
            bt.refresh(r, prm, off, n, bg, mg, obs[g])
        else:
            term[g] = False
            glen[g] = 0
            rew[g, :] = 0.0
        n_legal[g] = n
        to_act[g] = r.to_act
    return -1


@njit(parallel=True, cache=True)
def _vec_random(buf, n_legal, rng, out):
    for g in prange(out.shape[0]):
        n = n_legal[g]
        out[g] = buf[g, bt.rng_below(rng, g, n)] if n > 0 else 0


@njit(parallel=True, cache=True)
def _vec_observe(st, prm, off, seats, out):
    for g in prange(out.shape[0]):
        observation.encode(st[g], prm, off, seats[g], out[g])


@njit(parallel=True, cache=True)
def _vec_state(st, prm, off, seats, out):
    for g in prange(out.shape[0]):
        observation.encode_state(st[g], prm, off, seats[g], out[g])


def state_space(rules: Rules) -> spaces.Box:
    """Box of one global state (``observation.encode_state``): the observation's bounds,
    then 0/1 hands and the talon order in (0, 1]."""
    obs = observation_space(rules)
    extra = observation.state_size(rules) - obs.shape[0]
    high = np.concatenate([obs.high, np.ones(extra, np.float32)])
    return spaces.Box(0.0, high, dtype=np.float32)


def observation_space(rules: Rules) -> spaces.Box:
    """Box of one observation: 0/1 pieces, and counts divided by ``hand_size``."""
    from .observation import observation_layout

    count_high = max(rules.deck_size, TABLE_SLOTS) / rules.hand_size
    counts = {"hand_size", "talon_size", "n_attack", "limit", "passes"}
    high = np.concatenate([
        np.full(p.size, count_high if p.name in counts else 1.0, np.float32)
        for p in observation_layout(rules)
    ])
    return spaces.Box(0.0, high, dtype=np.float32)


def _check_threads(num_threads):
    top = numba.config.NUMBA_NUM_THREADS
    if num_threads is None:
        return top
    if isinstance(num_threads, bool) or not isinstance(num_threads, int | np.integer):
        raise TypeError(f"num_threads must be an int or None, got {num_threads!r}")
    if not 1 <= num_threads <= top:
        raise ValueError(f"num_threads must be in 1..{top} (NUMBA_NUM_THREADS), got {num_threads}")
    return int(num_threads)


class VectorEnv(GymVectorEnv):
    """``num_envs`` games stepped in one numba call; see the module docstring.

    Args:
        rules: the ``Rules`` of every game.
        num_envs: number of games.
        seed: seed of the deal and random-action streams (None: fresh entropy).
        num_threads: numba threads for the batch kernels (None: all).
        copy: return fresh arrays (True, like Gymnasium) or read-only views of the
            internal buffers, valid until the next ``step``/``reset`` (faster).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(self, rules: Rules, num_envs: int, seed: int | None = 0,
                 num_threads: int | None = None, copy: bool = True):
        if isinstance(rules, dict):
            rules = Rules.from_dict(rules)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        self.num_threads = _check_threads(num_threads)
        self._b = Batch(rules, int(num_envs))
        self.rules = rules
        self.num_envs = int(num_envs)
        self.num_players = rules.num_players
        self.num_actions = self._b.layout.n
        self.copy = check_bool("copy", copy)
        self.single_observation_space = observation_space(rules)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.single_state_space = state_space(rules)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        b, p = self.num_envs, self.num_players
        self._mask = np.zeros((b, self.num_actions), np.int8)
        self._obs = np.zeros((b, self._b.obs_size), np.float32)
        self._rew = np.zeros((b, p), np.float32)
        self._term = np.zeros(b, np.bool_)
        self._glen = np.zeros(b, np.int32)
        self._dec = np.zeros(b, np.int32)
        self._to_act = np.zeros(b, np.int32)
        self._act_rng = np.zeros(b, np.uint64)
        self._actions = np.zeros(b, np.int64)
        self._step_actions = np.zeros(b, np.int64)  # the caller's actions, as the kernel needs
        self._seed(core.fresh_seed() if seed is None else seed)
        self._needs_reset = True

    @property
    def batch(self) -> Batch:
        """The underlying ``Batch``: the numba state ``st`` and each game's legal actions
        ``buf[g, :n_legal[g]]``, current after every ``reset``/``step``. For compiled
        players that act inside the batch (``agents.expert_kernel.expert_actions``); read it,
        do not write it."""
        return self._b

    def _seed(self, seed):
        s = bt.seed_to_int(seed)
        self._b.seed(s)
        self._act_rng[:] = bt.stream_seeds(np.uint64(s), _ACTION_STREAM, self.num_envs)

    def _threads(self):
        if numba.get_num_threads() != self.num_threads:
            numba.set_num_threads(self.num_threads)

    def _out(self, arr):
        if self.copy:
            return arr.copy()
        view = arr.view()
        view.flags.writeable = False
        return view

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game everywhere (from the streams, reseeded if ``seed`` is given),
        or, with ``options={"reset_mask": mask}`` (Gymnasium's convention; bool[B]), only
        where ``mask`` is True: each of those games is abandoned and dealt anew from its
        own stream, the others go on as they were (a trainer that ends a game early, e.g.
        once its value is known).

        Returns:
            (obs float32[B, obs_size], {"action_mask": int8[B, A], "to_act": int32[B]})

        Raises:
            ValueError: ``reset_mask`` is not a bool array of shape ``(num_envs,)``, is given
                with ``seed``, or before the first full reset.
        """
        games = np.arange(self.num_envs)
        if options is not None and "reset_mask" in options:
            games = self._masked_games(options["reset_mask"], seed)
        elif seed is not None:
            self._seed(seed)
        b = self._b
        self._threads()
        _vec_reset(b.st, b.prm, b.off, games, b.buf, b.n_legal, self._mask, self._obs,
                   self._dec, self._to_act, b.deal_rng)
        self._needs_reset = False
        return self._out(self._obs), self._info(with_length=False)

    def _masked_games(self, mask, seed) -> np.ndarray:
        if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_
                and mask.shape == (self.num_envs,)):
            raise ValueError(f"options['reset_mask'] must be a numpy bool array of shape "
                             f"({self.num_envs},), got "
                             + (f"dtype {mask.dtype}, shape {mask.shape}"
                                if isinstance(mask, np.ndarray) else type(mask).__name__))
        if seed is not None:
            raise ValueError("reset(seed=...) reseeds every game: it cannot be combined "
                             "with options['reset_mask']")
        if self._needs_reset:
            raise ValueError("call reset() once without a reset_mask before resetting "
                             "some games")
        return np.flatnonzero(mask)

    def _info(self, with_length):
        info = {"action_mask": self._out(self._mask), "to_act": self._to_act.copy()}
        if with_length:
            info["game_length"] = self._glen.copy()
        return info

    def step(self, actions):
        """Apply one action per game (for its seat to act); see the module docstring.

        Raises:
            ValueError: an action is illegal or out of range (nothing is applied), or
                ``actions`` has the wrong shape.
            TypeError: ``actions`` is not an integer array.
        """
        a = self._check_actions(actions)
        bad = self._step(a, False)
        if bad >= 0:
            raise ValueError(self._illegal_message(bad, int(a[bad])))
        return self._result()

    def step_random(self):
        """``step(random_actions())`` in one numba call; ``info["actions"]`` holds the actions."""
        self._step(self._actions, True)
        out = self._result()
        out[4]["actions"] = self._actions.copy()
        return out

    def _step(self, a, draw):
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        b = self._b
        self._threads()
        return _vec_step(b.st, b.prm, b.off, a, draw, self._act_rng, b.buf, b.n_legal, self._mask,
                         self._obs, self._rew, self._term, self._glen, self._dec, self._to_act,
                         b.deal_rng)

    def _result(self):
        return (self._out(self._obs), self._rew.copy(), self._term.copy(),
                np.zeros(self.num_envs, np.bool_), self._info(with_length=True))

    def _check_actions(self, actions) -> np.ndarray:
        """The actions as the kernel's own int64 buffer, whatever array (read-only, foreign,
        strided, any integer dtype or byte order) or sequence they came in."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers, got dtype {a.dtype}")
        outside = np.flatnonzero((a < 0) | (a >= self.num_actions))
        if outside.size:  # before the cast to int64, which could wrap a huge uint64
            g = int(outside[0])
            raise ValueError(self._illegal_message(g, int(a[g])))
        self._step_actions[:] = a
        return self._step_actions

    def _illegal_message(self, g: int, action: int) -> str:
        if not 0 <= action < self.num_actions:
            return (f"env {g}: action {action} is out of range 0..{self.num_actions - 1}; "
                    "no game was stepped")
        lay = self._b.layout
        legal = [lay.decode(int(x)) for x in self._b.buf[g, : self._b.n_legal[g]]]
        return (f"env {g}: illegal action {action} ({lay.decode(action)!r}) for seat "
                f"{int(self._to_act[g])}; legal moves: {', '.join(legal)}; no game was stepped")

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game, drawn in numba (own RNG stream)."""
        self._threads()
        _vec_random(self._b.buf, self._b.n_legal, self._act_rng, self._actions)
        return self._actions.copy()

    def observe(self, seats) -> np.ndarray:
        """Each game's observation as seen by ``seats[g]`` (absolute seat numbers)."""
        s = np.asarray(seats)
        if s.shape != (self.num_envs,) or s.dtype.kind not in "iu":
            raise ValueError(f"seats must be an int array of shape ({self.num_envs},)")
        if s.size and (s.min() < 0 or s.max() >= self.num_players):
            raise ValueError(f"seats must be in 0..{self.num_players - 1}")
        out = np.empty((self.num_envs, self._b.obs_size), np.float32)
        b = self._b
        self._threads()
        _vec_observe(b.st, b.prm, b.off, s.astype(np.int64), out)
        return out

    def state(self) -> np.ndarray:
        """Every game's global state seen from its seat to act: float32[B, state_size]
        (every hand and the talon in order after the observation; ``single_state_space``).

        For centralised critics in training only: it holds the hidden cards, so no
        agent may read it when it chooses a move."""
        out = np.empty((self.num_envs, self._b.state_size), np.float32)
        b = self._b
        self._threads()
        _vec_state(b.st, b.prm, b.off, self._to_act.astype(np.int64), out)
        return out

    def deal(self, index: int) -> dict:
        """The deal of game ``index``'s current game, as ``Game.from_deal`` keyword arguments.

        Raises:
            TypeError, ValueError: ``index`` is not an int in ``0..num_envs-1``.
        """
        return self._b.deal_record(check_int("index", index, 0, self.num_envs - 1))

    def _repr_html_(self) -> str:
        """Cards as HTML/SVG in a notebook (the referee's view, game 0)."""
        from .html import render_html_state

        return render_html_state(self._b.st, 0, self.rules)

    def render(self, index: int = 0) -> str:
        """Text picture of game ``index`` (the referee's view); ``index`` as in ``deal``."""
        from .render import render_state

        return render_state(self._b.st, check_int("index", index, 0, self.num_envs - 1),
                            self.rules)

    def __repr__(self) -> str:
        return f"VectorEnv({self.rules}, num_envs={self.num_envs}, num_threads={self.num_threads})"
