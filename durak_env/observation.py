"""What one seat may see (docs/rules.md section 7), as a flat float32 vector.

The layout is one list of named pieces; offsets are computed from it, the docs
table is generated from it (``layout_table``) and ``decode`` reads it back into
named parts. Seats are rotated so that the observer is seat 0 (``rel = (seat -
observer) mod n``). Card pieces are ``D``-long 0/1 vectors indexed by ``card id
- lowest card id``; counts are divided by ``hand_size`` so that a full hand reads 1.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import core
from .cards import NUM_SUITS, SUIT_NAMES, cards_of, format_card
from .core import ONE, ZERO, bit
from .rules import Rules

# Bump when the layout changes: checkpoints record it.
LAYOUT_VERSION = 2


# The pieces in order: (name, size for deck_size d and num_players n, meaning).
PIECES = (
    ("hand", lambda d, n: d, "own hand"),
    ("attack_uncovered", lambda d, n: d, "attack cards on the table not yet covered"),
    ("attack_covered", lambda d, n: d, "attack cards on the table already covered"),
    ("covering", lambda d, n: d, "covering cards on the table"),
    ("discard", lambda d, n: d, "discard pile"),
    ("known", lambda d, n: (n - 1) * d, "cards known to be in each other hand, seats 1..n-1"),
    ("unseen", lambda d, n: d,
     "cards the observer cannot place: in no hand it sees or knows, not on the table, "
     "not discarded, not the face-up trump card"),
    ("own_known", lambda d, n: d, "own cards that every other seat knows about"),
    ("hand_size", lambda d, n: n, "cards in each hand / hand_size"),
    ("in_game", lambda d, n: n, "1 while the seat is still in the game"),
    ("talon_size", lambda d, n: 1, "cards in the talon / hand_size"),
    ("trump_suit", lambda d, n: NUM_SUITS, "one-hot trump suit (S C D H)"),
    ("trump_card", lambda d, n: d, "the face-up trump card while it is in the talon"),
    ("attacker", lambda d, n: n, "one-hot main attacker"),
    ("defender", lambda d, n: n, "one-hot defender"),
    ("to_act", lambda d, n: n, "one-hot seat asked to act"),
    ("opener", lambda d, n: n, "one-hot seat that opened the round"),
    ("phase", lambda d, n: 2, "one-hot: attack volley, defence (zeros once over)"),
    ("take", lambda d, n: 1, "1 if the defender has declared take"),
    ("n_attack", lambda d, n: 1, "attack cards this round / hand_size"),
    ("limit", lambda d, n: 1, "attack limit in force / hand_size"),
    ("passes", lambda d, n: 1, "passes since the last card was added / hand_size"),
    ("shown", lambda d, n: n, "1 if the seat has shown a trump this round"),
)
PIECE_NAMES = tuple(name for name, _size, _doc in PIECES)


def _pieces(rules: Rules) -> list[tuple[str, int, str]]:
    d, n = rules.deck_size, rules.num_players
    return [(name, size(d, n), doc) for name, size, doc in PIECES]


@dataclass(frozen=True)
class Piece:
    name: str
    size: int
    offset: int
    doc: str


def observation_layout(rules: Rules) -> list[Piece]:
    """The named pieces of the observation vector with their offsets."""
    return list(_layout(rules))


@functools.lru_cache(maxsize=64)
def _layout(rules: Rules) -> tuple[Piece, ...]:
    out, off = [], 0
    for name, size, doc in _pieces(rules):
        out.append(Piece(name, size, off, doc))
        off += size
    return tuple(out)


def observation_size(rules: Rules) -> int:
    last = _layout(rules)[-1]
    return last.offset + last.size


def layout_table(rules: Rules) -> str:
    """A Markdown table of the layout, for the docs."""
    rows = ["| piece | offset | size | meaning |", "|---|---|---|---|"]
    rows += [f"| `{p.name}` | {p.offset} | {p.size} | {p.doc} |" for p in observation_layout(rules)]
    return "\n".join(rows)


def obs_offsets(rules: Rules) -> np.ndarray:
    """Offsets in piece order, for the kernel."""
    return np.array([p.offset for p in observation_layout(rules)], np.int64)


# Index of each piece in the offsets array (``obs_offsets``), looked up by its name.
O_HAND = PIECE_NAMES.index("hand")
O_UNCOV = PIECE_NAMES.index("attack_uncovered")
O_COV = PIECE_NAMES.index("attack_covered")
O_COVERING = PIECE_NAMES.index("covering")
O_DISCARD = PIECE_NAMES.index("discard")
O_KNOWN = PIECE_NAMES.index("known")
O_UNSEEN = PIECE_NAMES.index("unseen")
O_OWN_KNOWN = PIECE_NAMES.index("own_known")
O_HSIZE = PIECE_NAMES.index("hand_size")
O_INGAME = PIECE_NAMES.index("in_game")
O_TALON = PIECE_NAMES.index("talon_size")
O_TSUIT = PIECE_NAMES.index("trump_suit")
O_TCARD = PIECE_NAMES.index("trump_card")
O_ATT = PIECE_NAMES.index("attacker")
O_DEF = PIECE_NAMES.index("defender")
O_TOACT = PIECE_NAMES.index("to_act")
O_OPENER = PIECE_NAMES.index("opener")
O_PHASE = PIECE_NAMES.index("phase")
O_TAKE = PIECE_NAMES.index("take")
O_NATT = PIECE_NAMES.index("n_attack")
O_LIMIT = PIECE_NAMES.index("limit")
O_PASSES = PIECE_NAMES.index("passes")
O_SHOWN = PIECE_NAMES.index("shown")


@njit(cache=True, inline="always")
def _put_cards(out, base, m, low):
    while m:
        c = core.low_card(m)
        m &= m - ONE
        out[base + c - low] = 1.0


@njit(cache=True, inline="always")
def _put_seat(out, base, seat, me, n):
    if seat >= 0:
        out[base + (seat - me) % n] = 1.0


@njit(cache=True)
def unseen_cards(r, prm, me):
    """The cards seat ``me`` cannot place: not in its hand, the discard or on the table,
    not known to be in another hand, and not the face-up trump card while it is in the
    talon (docs/rules.md section 7). They lie in the talon or in the other hands."""
    seen = r.hands[me] | r.discard | core.table_mask(r)
    for p in range(prm[core.P_N]):
        if p != me:
            seen |= r.known[p]
    if r.talon_end > r.talon_top and r.trump_card >= 0:
        seen |= bit(r.trump_card)
    return core.deck_in_play(prm) & ~seen


@njit(cache=True)
def encode(r, prm, off, me, out):
    """Write seat ``me``'s observation of game record r into out (float32[obs_size])."""
    n, low, d = prm[core.P_N], prm[core.P_LOW], prm[core.P_DECK]
    scale = 1.0 / prm[core.P_HAND]
    out[:] = 0.0
    _put_cards(out, off[O_HAND], r.hands[me], low)
    uncov, cov, covering = ZERO, ZERO, ZERO
    for i in range(r.n_attack):
        if r.cover[i] < 0:
            uncov |= bit(r.attack[i])
        else:
            cov |= bit(r.attack[i])
            covering |= bit(r.cover[i])
    _put_cards(out, off[O_UNCOV], uncov, low)
    _put_cards(out, off[O_COV], cov, low)
    _put_cards(out, off[O_COVERING], covering, low)
    _put_cards(out, off[O_DISCARD], r.discard, low)
    _put_cards(out, off[O_UNSEEN], unseen_cards(r, prm, me), low)
    _put_cards(out, off[O_OWN_KNOWN], r.known[me], low)
    for rel in range(1, n):
        p = (me + rel) % n
        _put_cards(out, off[O_KNOWN] + (rel - 1) * d, r.known[p], low)
        out[off[O_HSIZE] + rel] = core.popcount(r.hands[p]) * scale
        out[off[O_INGAME] + rel] = r.in_game[p]
        out[off[O_SHOWN] + rel] = r.shown[p]
    out[off[O_HSIZE]] = core.popcount(r.hands[me]) * scale
    out[off[O_INGAME]] = r.in_game[me]
    out[off[O_SHOWN]] = r.shown[me]
    left = r.talon_end - r.talon_top
    out[off[O_TALON]] = left * scale
    out[off[O_TSUIT] + r.trump] = 1.0
    if left > 0 and r.trump_card >= 0:
        out[off[O_TCARD] + r.trump_card - low] = 1.0
    if r.phase != core.OVER:
        _put_seat(out, off[O_ATT], r.attacker, me, n)
        _put_seat(out, off[O_DEF], r.defender, me, n)
        _put_seat(out, off[O_TOACT], r.to_act, me, n)
        _put_seat(out, off[O_OPENER], r.opener, me, n)
        out[off[O_PHASE] + r.phase] = 1.0
    out[off[O_TAKE]] = r.take
    out[off[O_NATT]] = r.n_attack * scale
    out[off[O_LIMIT]] = r.limit * scale
    out[off[O_PASSES]] = r.passes * scale


@njit(cache=True)
def encode_at(st, g, prm, off, me, out):
    encode(st[g], prm, off, me, out)


# ---------------------------------------------------------------- global state (training only)

# What a centralised critic may read (PerfectDou, Suphx's oracle): the acting seat's
# observation, then every hand and the talon in order. Never an agent's input.
STATE_PIECES = (
    ("observation", "the observation of the seat the state is seen from (seat 0)"),
    ("hands", "every hand, seats 0..n-1 relative to that seat, d cards each"),
    ("talon_order", "(i + 1) / deck_size for the card i-th from the top of the talon, else 0"),
)


def state_size(rules: Rules) -> int:
    """Length of the global state vector: observation + n hands + talon order."""
    return observation_size(rules) + (rules.num_players + 1) * rules.deck_size


def state_layout_table(rules: Rules) -> str:
    """A Markdown table of the global state's pieces, for the docs."""
    d, n, o = rules.deck_size, rules.num_players, observation_size(rules)
    sizes = (o, n * d, d)
    rows = ["| piece | offset | size | meaning |", "|---|---|---|---|"]
    off = 0
    for (name, doc), size in zip(STATE_PIECES, sizes, strict=True):
        rows.append(f"| `{name}` | {off} | {size} | {doc} |")
        off += size
    return "\n".join(rows)


@njit(cache=True)
def encode_state(r, prm, off, me, out):
    """Write the global state of game record r seen from seat ``me`` into out
    (float32[state_size]): everything, hidden cards included. For critics in training."""
    n, low, d = prm[core.P_N], prm[core.P_LOW], prm[core.P_DECK]
    size = out.shape[0] - (n + 1) * d
    encode(r, prm, off, me, out[:size])
    out[size:] = 0.0
    for rel in range(n):
        _put_cards(out, size + rel * d, r.hands[(me + rel) % n], low)
    base = size + n * d
    for i in range(r.talon_top, r.talon_end):
        out[base + r.talon[i] - low] = (i - r.talon_top + 1) / d


@njit(cache=True)
def encode_state_at(st, g, prm, off, me, out):
    encode_state(st[g], prm, off, me, out)


@dataclass
class ObsView:
    """An observation read back into named parts (seats relative to the observer).

    Card sets are Python ``int`` bit masks in the layout of ``cards.py``; seat
    fields are relative seats (0 is the observer) or -1.
    """

    hand: int
    attack_uncovered: int
    attack_covered: int
    covering: int
    discard: int
    known: list[int]  # known[r] for relative seat r; known[0] == 0
    unseen: int  # cards the observer cannot place (talon or other hands)
    own_known: int  # own cards that every other seat knows about
    hand_size: list[int]
    in_game: list[bool]
    talon_size: int
    trump: int
    trump_card: int  # -1 when no face-up card is in the talon
    attacker: int
    defender: int
    to_act: int
    opener: int
    phase: int  # core.ATTACK, core.DEFEND or core.OVER
    take: bool
    n_attack: int
    limit: int
    passes: int
    shown: list[bool]

    @property
    def table(self) -> int:
        return self.attack_uncovered | self.attack_covered | self.covering

    def describe(self) -> str:
        def cs(m):
            return " ".join(format_card(c) for c in cards_of(m)) or "-"

        return (
            f"hand {cs(self.hand)} | uncovered {cs(self.attack_uncovered)} | "
            f"trump {SUIT_NAMES[self.trump]} | talon {self.talon_size}"
        )


def decode(obs: np.ndarray, rules: Rules) -> ObsView:
    """Turn an observation vector back into named parts."""
    obs = np.asarray(obs)
    size = observation_size(rules)
    if obs.shape != (size,):
        raise ValueError(f"observation must have shape ({size},) for {rules}, got {obs.shape}")
    pieces = {p.name: obs[p.offset : p.offset + p.size] for p in observation_layout(rules)}
    n, d, h, low = rules.num_players, rules.deck_size, rules.hand_size, rules.low_card

    def mask(v):
        return sum(1 << (low + int(i)) for i in np.flatnonzero(v > 0.5))

    def seat(v):
        nz = np.flatnonzero(v > 0.5)
        return int(nz[0]) if len(nz) else -1

    def count(v):
        return int(round(float(v) * h))

    phase = seat(pieces["phase"])
    tcard = mask(pieces["trump_card"])
    return ObsView(
        hand=mask(pieces["hand"]),
        attack_uncovered=mask(pieces["attack_uncovered"]),
        attack_covered=mask(pieces["attack_covered"]),
        covering=mask(pieces["covering"]),
        discard=mask(pieces["discard"]),
        known=[0] + [mask(pieces["known"][r * d : (r + 1) * d]) for r in range(n - 1)],
        unseen=mask(pieces["unseen"]),
        own_known=mask(pieces["own_known"]),
        hand_size=[count(x) for x in pieces["hand_size"]],
        in_game=[bool(x > 0.5) for x in pieces["in_game"]],
        talon_size=count(pieces["talon_size"][0]),
        trump=seat(pieces["trump_suit"]),
        trump_card=tcard.bit_length() - 1 if tcard else -1,
        attacker=seat(pieces["attacker"]),
        defender=seat(pieces["defender"]),
        to_act=seat(pieces["to_act"]),
        opener=seat(pieces["opener"]),
        phase=core.OVER if phase < 0 else phase,
        take=bool(pieces["take"][0] > 0.5),
        n_attack=count(pieces["n_attack"][0]),
        limit=count(pieces["limit"][0]),
        passes=count(pieces["passes"][0]),
        shown=[bool(x > 0.5) for x in pieces["shown"]],
    )
