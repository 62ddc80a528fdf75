"""Exact end-game search for two players once the talon is empty.

With two players and an empty talon the opponent's hand is everything not in
the own hand, the discard or on the table, so the position is fully known. It
is rebuilt as a numba core ``State`` from the observation alone and solved by
alpha-beta over the core's own move generator (values: win +1, draw 0, loss -1),
with a node cap: a search that hits the cap reports "unknown" and the caller
falls back to its heuristic. ``EndgameSolver.root_values`` solves any core state
written into the solver's slot 0, also one with cards left in the talon (a
determinization, as ``expert``'s sampled search makes; the core draws from the
talon in its order, so the search needs nothing else).

Two prunings keep the tree small without changing its value: the defender only
covers the first uncovered attack card (every order of covers reaches the same
position, and covering some cards before taking only adds ranks for throw-ins),
and within one attack volley the cards are played in increasing order (with two
players one thrower plays the whole volley, and only the opening card adds a
rank, so every order of the same cards reaches the same position). The search
window is (-1, 1): values lie in -1..1, so it is still exact, and a node stops
as soon as one move reaches the best value possible. A transposition table of
bounds (keyed on the talon left too; cleared at each new game, so that a decision
never depends on earlier games) and the move order do the rest: pass/take last,
or with ``cheap_first`` the cheapest card first (plain before trump), pass after the
plain cards and take last. The narrow window and ``cheap_first`` both let the search
prove more positions within the same node cap.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from durak_env import ObsView, Rules, core
from durak_env.actions import K_BEAT, K_PLAY, TAKE, action_card, action_kind, beaten_card
from durak_env.cards import RANK_MASK, cards_of, deck_mask, rank_of, suit_of
from durak_env.core import ATTACK, DEFEND, OVER, mix64

MAX_DEPTH = 400
UNKNOWN = -99
UNSETTLED = 99  # _settled: neither the game's end nor the table settles a move's value
TT_BITS = 16
EXACT, LOWER, UPPER = 0, 1, 2
# One transposition-table entry is one word: the position's _key with its low 4 bits
# replaced by 4 * flag + value + 2 (never 0: an empty entry matches no key). The table's
# index is the key's low bits (at least 4 of them), so the entry still tells the whole
# key apart, in half the memory of a (key, value) pair: the table's reads are the
# search's cache misses.
TT_LOW = np.uint64(15)
TT_HIGH = ~TT_LOW
MIN_TT_BITS = 4
# The search state of one slot (depth) of _alphabeta's explicit stack. Records, not arrays,
# go to the helpers: a record carries no reference count to update at every node.
SLOT_DTYPE = np.dtype([
    ("maximize", np.int64),  # the side to act is the searching player
    ("best", np.int64),  # the best value found so far
    ("alpha", np.int64), ("beta", np.int64),  # the window, narrowed as moves are searched
    ("lo", np.int64), ("hi", np.int64),  # the window entered with (for the table's bound)
    ("idx", np.int64), ("nmov", np.int64),  # the next move's index, and how many there are
    ("first", np.int64),  # the first uncovered attack card (see _skip)
    ("min_play", np.int64),  # the lowest play id allowed (see _min_play)
    ("key", np.uint64),  # the position's _key
])


@njit(cache=True)
def _first_uncovered(r):
    for i in range(r.n_attack):
        if r.cover[i] < 0:
            return r.attack[i]
    return -1


@njit(cache=True)
def _skip(r, prm, a, first, min_play):
    """Prune moves that only reorder: covers of any but the first uncovered attack card,
    and plays below the last card played in the same volley."""
    if r.phase == ATTACK:
        return a >= prm[core.A_PLAY] and a < min_play
    if action_kind(prm, a) != K_BEAT:
        return False
    return beaten_card(prm, a) != first


@njit(cache=True)
def _min_play(child, prm, a):
    """Lowest play id allowed next: after a play the same volley goes on upwards."""
    if child.phase == ATTACK and child.n_attack > 0 and action_kind(prm, a) == K_PLAY:
        return a + 1
    return 0


@njit(cache=True)
def _value(r, me):
    if r.durak < 0:
        return 0
    return -1 if r.durak == me else 1


@njit(cache=True)
def _update(w, v):
    """Fold a searched move's value v into slot w; a cutoff ends the slot's moves."""
    if w.maximize:
        w.best = max(w.best, v)
        w.alpha = max(w.alpha, v)
    else:
        w.best = min(w.best, v)
        w.beta = min(w.beta, v)
    if w.alpha >= w.beta:
        w.idx = w.nmov


@njit(cache=True)
def _enter(r, w, buf, n, me, lo, hi, key, prm, cheap_first):
    """Start searching position r (key ``key``, its n legal moves in buf) in slot w with
    window (lo, hi)."""
    if cheap_first:
        _order(buf, n, prm, r.trump)
    w.maximize = r.to_act == me
    w.best = -2 if w.maximize else 2
    w.alpha = w.lo = lo
    w.beta = w.hi = hi
    w.idx, w.nmov = 0, n
    w.first = _first_uncovered(r)
    w.key = key


@njit(cache=True, inline="always")
def card_cost(c, trump):
    """A card's value for cheapest-first choices: its rank, every trump above every
    plain card."""
    return rank_of(c) + (16 if suit_of(c) == trump else 0)


@njit(cache=True)
def _cost(a, prm, trump):
    """Ordering key of a move: its card's ``card_cost``; pass after the plain cards,
    take last."""
    if a < prm[core.A_PLAY]:
        return 1000 if a == TAKE else 15
    return card_cost(action_card(prm, a), trump)


@njit(cache=True)
def _order(buf, n, prm, trump):
    """Sort buf[:n] cheapest first, then rotate right by one: the search tries
    buf[1], buf[2], ..., buf[0]."""
    for i in range(1, n):
        a = buf[i]
        k = _cost(a, prm, trump)
        j = i - 1
        while j >= 0 and _cost(buf[j], prm, trump) > k:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = a
    last = buf[n - 1]
    for i in range(n - 1, 0, -1):
        buf[i] = buf[i - 1]
    buf[0] = last


# The small fields of a position in one int64 word of _key: each field times its place.
KEY_TO_ACT, KEY_PHASE, KEY_TAKE, KEY_ATTACKER, KEY_PASSES, KEY_LIMIT = 1, 4, 16, 32, 64, 1024
KEY_SHOWN0, KEY_SHOWN1, KEY_OPENER, KEY_TRUMP = 1 << 16, 2 << 16, 4 << 16, 16 << 16
KEY_MIN_PLAY = 1 << 26


@njit(cache=True)
def _key(r, min_play):
    """64-bit hash of everything the rest of the game depends on (two players)."""
    unc = np.uint64(0)
    cov = np.uint64(0)
    cvr = np.uint64(0)
    for i in range(r.n_attack):
        b = np.uint64(1) << np.uint64(r.attack[i])
        if r.cover[i] < 0:
            unc |= b
        else:
            cov |= b
            cvr |= np.uint64(1) << np.uint64(r.cover[i])
    # the talon left, in drawing order (the face-up card matters only while it lies there)
    tal = np.uint64(r.talon_end - r.talon_top)
    for i in range(r.talon_top, r.talon_end):
        tal = mix64(tal * np.uint64(64) + np.uint64(r.talon[i]))
    small = (KEY_TO_ACT * r.to_act + KEY_PHASE * r.phase + KEY_TAKE * r.take
             + KEY_ATTACKER * r.attacker + KEY_PASSES * r.passes + KEY_LIMIT * r.limit
             + KEY_SHOWN0 * r.shown[0] + KEY_SHOWN1 * r.shown[1] + KEY_OPENER * r.opener
             + KEY_TRUMP * r.trump + KEY_MIN_PLAY * min_play)
    h = mix64(r.hands[0] + np.uint64(0x9E3779B97F4A7C15))
    h ^= mix64(r.hands[1] + np.uint64(0x632BE59BD9B4E019))
    h ^= mix64(unc + np.uint64(0x85EBCA77C2B2AE63))
    h ^= mix64(cov + np.uint64(0xC2B2AE3D27D4EB4F))
    h ^= mix64(cvr + np.uint64(0x165667B19E3779F9))
    h ^= mix64(np.uint64(small) + np.uint64(0x27D4EB2F165667C5))
    h ^= mix64(tal + np.uint64(0x7F4A7C159E3779B9))
    return h


@njit(cache=True, inline="always")
def _entry(e, k):
    """(flag, value) that table entry e holds for key k; flag -1 if it holds none."""
    low = np.int64(e & TT_LOW)
    if low == 0 or (e ^ k) & TT_HIGH != 0:
        return -1, 0
    return (low - 1) // 4, (low - 1) % 4 - 1


@njit(cache=True)
def _settled(r, me, min_play, tt, alpha, beta):
    """(value, key) of position r: its value if the game is over or its table entry
    settles it within the window (alpha, beta), else UNSETTLED."""
    if r.phase == OVER:
        return _value(r, me), np.uint64(0)
    k = _key(r, min_play)
    f, v = _entry(tt[k & np.uint64(tt.shape[0] - 1)], k)
    if f == EXACT or (f == LOWER and v >= beta) or (f == UPPER and v <= alpha):
        return v, k  # (f is -1 where the entry holds another key, or none)
    return UNSETTLED, k


@njit(cache=True)
def _store(tt, w):
    """Table slot w's value: exact inside the window it was searched with, else the bound
    it proves."""
    v = w.best
    f = UPPER if v <= w.lo else (LOWER if v >= w.hi else EXACT)
    tt[w.key & np.uint64(tt.shape[0] - 1)] = (w.key & TT_HIGH) | np.uint64(4 * f + v + 2)


@njit(cache=True, inline="always")
def _copy_slot(raw, src, dst):
    """Copy the state in slot src to slot dst, a word at a time (``raw``: the states as
    uint64 words; a slice assignment of their bytes compiles to a byte loop with
    broadcast checks, which took a third of the search's time)."""
    for j in range(raw.shape[1]):
        raw[dst, j] = raw[src, j]


@njit(cache=True)
def _alphabeta(st, raw, prm, n, me, min_play1, bufs, log, nodes, cap, tt, cheap_first, work):
    """Value of the position in slot 1 (legal moves in bufs[1, :n]); UNKNOWN past the cap.

    Iterative (an explicit stack over the slots): numba cannot reload a cached
    recursive function safely. ``tt`` is a transposition table of bounds (one word an
    entry, see ``TT_HIGH``); ``work`` holds the search state of each slot (``SLOT_DTYPE``).
    """
    if st[1].phase == OVER:
        return _value(st[1], me)
    work[1].min_play = min_play1
    # values lie in -1..1: a window of (-1, 1) still gives exact values, and stops
    # searching a node's moves once one of them reaches the best possible value
    _enter(st[1], work[1], bufs[1], n, me, -1, 1, _key(st[1], min_play1), prm, cheap_first)
    nodes[0] += 1
    return _search(st, raw, prm, me, bufs, log, nodes, cap, tt, cheap_first, work)


@njit(cache=True)
def _search(st, raw, prm, me, bufs, log, nodes, cap, tt, cheap_first, work):
    """Depth first from slot 1 (entered): a move goes one slot down unless its value is
    settled; a slot out of moves goes back up with its value."""
    d = 1
    while True:
        w = work[d]
        if w.idx >= w.nmov:  # slot d is done: table its value, hand it to the slot above
            _store(tt, w)
            if d == 1:
                return w.best
            d -= 1
            _update(work[d], w.best)
            continue
        # pass/take (always first in the buffer) last: they rarely refute anything
        a = bufs[d, (w.idx + 1) % w.nmov]
        w.idx += 1
        if _skip(st[d], prm, a, w.first, w.min_play):
            continue
        _copy_slot(raw, d, d + 1)
        m, _ = core.step(st[d + 1], prm, a, bufs[d + 1], log)
        work[d + 1].min_play = _min_play(st[d + 1], prm, a)
        v, k = _settled(st[d + 1], me, work[d + 1].min_play, tt, w.alpha, w.beta)
        if v != UNSETTLED:
            _update(w, v)
            continue
        nodes[0] += 1
        if nodes[0] > cap or d + 2 >= bufs.shape[0]:
            return UNKNOWN
        _enter(st[d + 1], work[d + 1], bufs[d + 1], m, me, w.alpha, w.beta, k, prm,
               cheap_first)
        d += 1


@njit(cache=True, nogil=True)  # nogil: distillation labels positions in a background thread
def _solve_root(st, raw, prm, order, me, bufs, log, nodes, cap, values, tt,
                cheap_first, full):
    """Value of each root action in ``order`` (slot 0), UNKNOWN where its own budget of
    ``cap`` nodes ran out; stops at the first win or once ``3 * cap`` nodes are spent,
    unless ``full`` (then every action is searched)."""
    b = core.borrowed
    st, raw, prm, order, bufs, log = b(st), b(raw), b(prm), b(order), b(bufs), b(log)
    nodes, values, tt = b(nodes), b(values), b(tt)
    spent = 0
    mask = np.uint64(tt.shape[0] - 1)
    work = np.zeros(bufs.shape[0], SLOT_DTYPE)
    for i in range(order.shape[0]):  # a win already proven by an earlier search
        _copy_slot(raw, 0, 1)
        core.step(st[1], prm, order[i], bufs[1], log)
        if st[1].phase == OVER:
            values[i] = _value(st[1], me)
        else:
            k = _key(st[1], _min_play(st[1], prm, order[i]))
            f, v = _entry(tt[k & mask], k)
            values[i] = v if f >= 0 and f != UPPER else -2
        if values[i] == 1 and not full:
            return i + 1
    for i in range(order.shape[0]):
        if full and values[i] == 1:
            continue
        _copy_slot(raw, 0, 1)
        m, _ = core.step(st[1], prm, order[i], bufs[1], log)
        nodes[0] = 0
        v = _alphabeta(st, raw, prm, m, me, _min_play(st[1], prm, order[i]), bufs, log,
                       nodes, cap, tt, cheap_first, work)
        values[i] = v
        spent += nodes[0]
        if not full and (v == 1 or spent > 3 * cap):
            nodes[0] = spent
            return i + 1
    nodes[0] = spent
    return order.shape[0]


class EndgameSolver:
    """Solves two-player, empty-talon positions from an observation.

    Args:
        rules: the rules (two players).
        max_nodes: node cap per decision; past it ``solve`` returns ``None``.
        last_card: also search when the talon holds only the face-up trump card
            (its holder-to-be is decided by the play, so the position is still known).
        cheap_first: try the cheapest cards first (low before high, plain before trump),
            pass/take last; by default card-id order, with pass/take last.
        tt_bits: the transposition table has ``2 ** tt_bits`` entries (8 bytes each).
    """

    def __init__(self, rules: Rules, max_nodes: int = 3000, last_card: bool = False,
                 cheap_first: bool = False, tt_bits: int = TT_BITS):
        self.rules = rules
        self.max_nodes = max_nodes
        self.last_card = last_card
        self.cheap_first = cheap_first
        self.prm = core.kernel_params(rules)
        self.st = core.new_state(MAX_DEPTH + 1)
        self.raw = self.st.view(np.uint64).reshape(MAX_DEPTH + 1, core.STATE_DTYPE.itemsize // 8)
        self.bufs = np.zeros((MAX_DEPTH + 1, int(self.prm[core.A_N])), np.int64)
        self.log = np.zeros((0, 2), np.int32)
        self.deck = deck_mask(rules.deck_size)
        self.nodes = np.zeros(1, np.int64)
        if tt_bits < MIN_TT_BITS:
            raise ValueError(f"tt_bits must be at least {MIN_TT_BITS}, got {tt_bits}")
        self.tt = np.zeros(1 << tt_bits, np.uint64)

    def reset(self) -> None:
        """Empty the transposition table (at a new game, so that a decision depends
        only on the game so far, not on earlier games)."""
        self.tt[:] = 0

    def applies(self, v: ObsView) -> bool:
        """Two players and every card placed: talon empty, or only the face-up trump left."""
        if self.rules.num_players != 2 or v.phase == OVER:
            return False
        return v.talon_size == 0 or (self.last_card and v.talon_size == 1 and v.trump_card >= 0)

    def load(self, v: ObsView) -> None:
        """Write the position seen in ``v`` into slot 0 (me = seat 0, opponent = 1)."""
        r = self.st[0]
        talon = (1 << v.trump_card) if v.talon_size else 0
        opp = self.deck & ~v.hand & ~v.discard & ~v.table & ~talon
        if opp.bit_count() != v.hand_size[1]:
            raise RuntimeError("end-game position does not add up: opponent hand size differs")
        r["hands"][:] = 0
        r["hands"][0], r["hands"][1] = v.hand, opp
        r["talon_top"], r["talon_end"] = 0, v.talon_size
        r["talon"][0] = v.trump_card if v.talon_size else -1
        r["discard"] = v.discard
        covered, covering = cards_of(v.attack_covered), cards_of(v.covering)
        uncovered = cards_of(v.attack_uncovered)
        attack = covered + uncovered
        cover = covering + [-1] * len(uncovered)
        r["attack"][:] = -1
        r["cover"][:] = -1
        r["attack"][: len(attack)] = attack
        r["cover"][: len(attack)] = cover
        r["n_attack"], r["n_uncovered"] = len(attack), len(uncovered)
        ranks = 0
        for c in cards_of(v.table):
            ranks |= int(RANK_MASK[rank_of(c)])
        r["table_ranks"] = ranks
        r["trump"], r["trump_card"] = v.trump, v.trump_card if v.talon_size else -1
        r["attacker"], r["defender"], r["opener"] = v.attacker, v.defender, v.opener
        r["to_act"], r["phase"], r["take"] = v.to_act, v.phase, int(v.take)
        r["limit"], r["passes"], r["thrower_idx"] = v.limit, v.passes, 0
        r["throwers"][:] = -1
        r["throwers"][0], r["n_throwers"] = v.attacker, 1
        r["shown"][:] = 0
        r["shown"][:2] = [int(v.shown[0]), int(v.shown[1])]
        r["in_game"][:] = 0
        r["in_game"][:2] = 1
        r["out_order"][:] = -1
        r["n_out"], r["durak"] = 0, -1
        assert v.phase in (ATTACK, DEFEND)

    def solve(self, v: ObsView, order: list[int]) -> int | None:
        """Best action among ``order`` (tried in that order; ties go to the earliest).

        Every move gets its own budget of ``max_nodes`` nodes (three budgets in all).

        Returns:
            An action id: a proven win, or the best move once every move is solved;
            ``None`` otherwise. ``self.value`` holds its value (+1 win, 0 draw, -1
            loss) for seat 0.
        """
        self.load(v)
        self.nodes[0] = 0
        values = np.full(len(order), -2, np.int64)
        done = _solve_root(self.st, self.raw, self.prm, np.asarray(order, np.int64), 0, self.bufs,
                           self.log, self.nodes, self.max_nodes, values, self.tt,
                           self.cheap_first, False)
        known = values[:done] != UNKNOWN
        if not known.any():
            return None
        i = int(np.argmax(np.where(known, values[:done], -3)))
        if values[i] != 1 and (done < len(order) or not known.all()):
            return None  # no proven win, and some move is still unknown
        self.value = int(values[i])
        return order[i]

    def root_values(self, order: list[int], max_nodes: int) -> np.ndarray:
        """Value for seat 0 of every action of ``order`` in the core state ``self.st[0]``.

        The caller writes that state (``load``, or a determinization of a position whose
        talon is not empty yet, with seat 0 to act); each action is searched with its
        own budget of ``max_nodes`` nodes.

        Returns:
            int64 values, one per action: +1 win, 0 draw, -1 loss, ``UNKNOWN`` past the cap.
        """
        self.nodes[0] = 0
        values = np.full(len(order), -2, np.int64)
        _solve_root(self.st, self.raw, self.prm, np.asarray(order, np.int64), 0, self.bufs,
                    self.log, self.nodes, max_nodes, values, self.tt,
                    self.cheap_first, True)
        return values
