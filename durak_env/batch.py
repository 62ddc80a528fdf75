"""The engine shared by the environments: a batch of games and its legal-move buffers.

The environments (``aec.py``, ``gym_env.py``, ``vector.py``) are thin layers over
the kernels here, which only call ``core`` (the rules) and ``observation`` (the
encoder). A batch is a ``core.new_state`` record array; per game ``g`` it also has
``buf[g, :n_legal[g]]``, the legal action ids of the seat to act (the core writes
them), and the caller's ``mask[g]``, their 0/1 mask. Only the entries listed in
``buf`` are ever set in a mask, so clearing one costs ``n_legal`` writes instead
of a full ``num_actions`` row.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from . import core, observation
from .actions import ActionLayout
from .cards import NUM_CARDS, SUIT_NAMES, format_card, format_mask
from .checks import check_seed
from .deal import DEAL_KEYS, check_deal
from .rules import Rules

_RULE_FIELDS = tuple(f.name for f in dataclasses.fields(Rules))

# A random deal that ends before anybody has a choice (possible with tiny hands) is
# dealt again, at most this many times.
MAX_REDEALS = 1000


def legal_width(rules: Rules) -> int:
    """An upper bound on the number of legal actions in any position.

    Attack: ``pass`` plus at most every card of the hand (<= D). Defence: ``take``, the
    ``beat`` pairs (u uncovered cards times h cards in hand, u <= h and u + h <= D, so
    at most D*D/4), at most 3 ``transfer`` and 1 ``show``.
    """
    d = rules.deck_size
    return min(ActionLayout.of(rules).n, max(d + 1, 1 + d * d // 4 + 4))


# ---------------------------------------------------------------- RNG streams


@njit(cache=True)
def stream_seeds(seed, stream, n):
    """Seed of game g's RNG stream: a hash of (seed, stream, g), independent of n."""
    out = np.empty(n, np.uint64)
    salt = core.mix64(np.uint64(stream) + np.uint64(0x632BE59BD9B4E019))
    base = core.mix64(np.uint64(seed) ^ salt)
    for g in range(n):
        out[g] = core.mix64(base + np.uint64(g) * core.GOLDEN_GAMMA)
    return out


@njit(cache=True, inline="always")
def rng_below(rng, g, n):
    """splitmix64 step on ``rng[g]``; a number in ``0..n-1``."""
    s = rng[g] + core.GOLDEN_GAMMA
    rng[g] = s
    return np.int64(core.mix64(s) % np.uint64(n))


def seed_to_int(seed) -> int:
    """Validate a seed (``checks.check_seed``: an int in 0..2**64-1) and return it."""
    return check_seed(seed, allow_none=False)


# ---------------------------------------------------------------- per-game kernels


@njit(cache=True)
def set_mask(buf, n, mask, value):
    """Set ``mask`` to ``value`` at the ``n`` legal action ids listed in ``buf``."""
    for i in range(n):
        mask[buf[i]] = value


@njit(cache=True)
def refresh(r, prm, off, n, buf, mask, obs):
    """Mask and observation of the seat to act (nothing once the game is over)."""
    if n > 0:
        set_mask(buf, n, mask, 1)
        observation.encode(r, prm, off, r.to_act, obs)


@njit(cache=True)
def deal_until_decision(r, prm, buf, log):
    """Deal until somebody has a choice; returns (legal actions, RNG state of the deal)."""
    n, start = 0, r.rng
    for _ in range(MAX_REDEALS):
        start = r.rng
        core.deal_random(r, prm)
        n, _k = core.play_forced(r, prm, buf, log)
        if n > 0:
            break
    return n, start


@njit(cache=True)
def advance(r, prm, off, action, buf, mask, obs, rew, log):
    """Apply a legal action (+ forced moves); fill mask/obs, or rew at game over."""
    n, _k = core.step(r, prm, action, buf, log)
    if n == 0:
        core.rewards(r, prm, rew)
    else:
        refresh(r, prm, off, n, buf, mask, obs)
    return n


# ---------------------------------------------------------------- single-game entry points


@njit(cache=True)
def deal_random_game(st, g, prm, off, buf, deal_rng, mask, obs):
    """Random deal for game g (its RNG in the state); returns the number of legal actions."""
    n, start = deal_until_decision(st[g], prm, buf[g], np.empty((0, 2), np.int32))
    deal_rng[g] = start
    refresh(st[g], prm, off, n, buf[g], mask, obs)
    return n


@njit(cache=True)
def deal_game(st, g, prm, off, hands, talon, talon_len, discard, trump, trump_card, attacker,
              buf, mask, obs):
    """A given deal for game g (validated by the caller); returns the number of legal actions."""
    r = st[g]
    core.deal(r, prm, hands, talon, talon_len, discard, trump, trump_card, attacker)
    n, _k = core.play_forced(r, prm, buf[g], np.empty((0, 2), np.int32))
    refresh(r, prm, off, n, buf[g], mask, obs)
    return n


@njit(cache=True)
def step_game(st, g, prm, off, action, buf, mask, obs, rew):
    """Apply a legal action to game g; ``mask`` must be all zeros (a fresh array)."""
    return advance(st[g], prm, off, action, buf[g], mask, obs, rew, np.empty((0, 2), np.int32))


class Batch:
    """``size`` games (a ``core.new_state`` record array) with their legal-action buffers.

    Attributes:
        st: the games, ``core.STATE_DTYPE`` records.
        buf: int64[size, width] legal action ids, ``n_legal`` of them per game.
        deal_rng: the RNG state each game's current random deal was dealt from.
    """

    def __init__(self, rules: Rules, size: int):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a durak_env.Rules, got {type(rules).__name__}")
        self.rules = rules
        self.size = size
        self.layout = ActionLayout.of(rules)
        self.prm = core.kernel_params(rules)
        self.off = observation.obs_offsets(rules)
        self.obs_size = observation.observation_size(rules)
        self.state_size = observation.state_size(rules)
        self.st = core.new_state(size)
        self.buf = np.zeros((size, legal_width(rules)), np.int64)
        self.n_legal = np.zeros(size, np.int32)
        self.deal_rng = np.zeros(size, np.uint64)
        self._to_act = self.st["to_act"]  # a view: reading it is cheap

    def seed(self, seed: int) -> None:
        """Seed every game's deal stream (stream 0) from ``seed``."""
        self.st["rng"] = stream_seeds(np.uint64(seed_to_int(seed)), 0, self.size)

    def deal_record(self, g: int) -> dict:
        """The current random deal of game g, as ``Game.from_deal`` keyword arguments."""
        tmp = core.new_state(1)
        tmp["rng"] = self.deal_rng[g]
        core.deal_random_at(tmp, 0, self.prm)
        r = tmp[0]
        return {
            "hands": [format_mask(m) for m in r["hands"][: self.rules.num_players]],
            "talon": [format_card(int(c)) for c in r["talon"][: r["talon_end"]]],
            "discard": [],
            "trump": SUIT_NAMES[int(r["trump"])],
            "first_attacker": None,
        }

    def observe(self, g: int, seat: int) -> np.ndarray:
        obs = np.empty(self.obs_size, np.float32)
        observation.encode_at(self.st, g, self.prm, self.off, seat, obs)
        return obs

    def state(self, g: int, seat: int) -> np.ndarray:
        """Game g's global state seen from ``seat`` (``observation.encode_state``)."""
        out = np.empty(self.state_size, np.float32)
        observation.encode_state_at(self.st, g, self.prm, self.off, seat, out)
        return out

    def rewards(self, g: int) -> np.ndarray:
        out = np.zeros(self.rules.num_players, np.float64)
        core.rewards_at(self.st, g, self.prm, out)
        return out

    def to_act(self, g: int) -> int:
        return int(self._to_act[g])


# ---------------------------------------------------------------- env plumbing


def rules_from_kwargs(owner: str, rules=None, **kwargs) -> Rules:
    """``Rules`` from ``rules=Rules(...)`` or from Rules fields; unknown names are a TypeError."""
    unknown = sorted(k for k in kwargs if k not in _RULE_FIELDS)
    if unknown:
        raise TypeError(
            f"{owner} got unknown keyword argument(s) {unknown}; valid: the Rules fields "
            f"{list(_RULE_FIELDS)}, rules, render_mode"
        )
    if rules is None:
        return Rules(**kwargs)
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a durak_env.Rules, got {type(rules).__name__}")
    if kwargs:
        raise TypeError(f"{owner}: pass either rules=Rules(...) or Rules fields, not both "
                        f"(got rules and {sorted(kwargs)})")
    return rules


def check_render_mode(render_mode, modes) -> None:
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")


def deal_arrays(rules: Rules, deal) -> tuple:
    """Validate a ``deal`` option (the keys of ``Game.from_deal``) into kernel arguments."""
    if not isinstance(deal, dict):
        raise ValueError(
            f"options['deal'] must be a dict with keys {list(DEAL_KEYS)}, got {deal!r}"
        )
    unknown = sorted(set(deal) - set(DEAL_KEYS))
    if unknown:
        raise ValueError(f"options['deal'] has unknown key(s) {unknown}; valid: {list(DEAL_KEYS)}")
    if "hands" not in deal:
        raise ValueError("options['deal'] needs 'hands' (one list of cards per seat)")
    first = deal.get("first_attacker")
    d = check_deal(rules, deal["hands"], deal.get("talon", ()), deal.get("discard", ()),
                    deal.get("trump"), first)
    talon = np.full(NUM_CARDS, -1, np.int8)
    talon[: len(d["talon"])] = d["talon"]
    hands = np.zeros(core.MAX_PLAYERS, np.uint64)
    hands[: rules.num_players] = d["hands"]
    return (hands, talon, len(d["talon"]), np.uint64(d["discard"]),
            d["trump"], d["trump_card"], -1 if first is None else int(first))


def deal_from_options(rules: Rules, options, env_name: str, strict: bool):
    """The ``deal`` of a ``reset(options=...)`` as core arrays, or None for a random deal.

    Unknown option keys raise when ``strict``, else they are ignored with a warning
    (PettingZoo's ``api_test`` passes options of its own).
    """
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options must be a dict or None, got {options!r}")
    unknown = sorted(k for k in options if k != "deal")
    if unknown and strict:
        raise ValueError(f"options: unknown reset option(s) {unknown}; valid: ['deal']")
    if unknown:
        import warnings

        warnings.warn(f"{env_name}: ignoring unknown reset option(s) {unknown}", stacklevel=3)
    deal = options.get("deal")
    return None if deal is None else deal_arrays(rules, deal)
