"""Determinization: a full game record consistent with what one seat sees.

``view_array`` packs a decoded observation (``agents.view.fast_decode``, seats relative
to the observer) into one int64 array; ``determinize`` writes from it a random full
core game record (``core.STATE_DTYPE``) that the observer cannot tell from the real one.
Cards known to be in a hand stay there; every unseen card (the deck minus the own hand,
the discard, the table, the known cards and the face-up trump card while it lies in the
talon) is dealt at random to the unknown slots of the other hands and to the talon, whose
bottom card is the face-up trump.
Seats are rebuilt relative to the observer (the observer is seat 0 of the
determinization), which the rules cannot tell apart: play is clockwise modulo ``n``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from durak_env import core
from durak_env.cards import BEATS, NUM_CARDS, RANK_MASK, rank_of
from durak_env.core import ATTACK, DEFEND, NO_SEAT, ONE, ZERO, bit, popcount
from durak_env.rules import TABLE_SLOTS

# ---------------------------------------------------------------- the view array

MAXP = core.MAX_PLAYERS
# Scalar fields of the int64 view array (card sets are masks in the low 52 bits).
(V_HAND, V_UNCOV, V_COV, V_COVERING, V_DISCARD, V_TALON, V_TRUMP, V_TCARD, V_ATT, V_DEF,
 V_TOACT, V_OPENER, V_PHASE, V_TAKE, V_NATT, V_LIMIT, V_PASSES) = range(17)
# Per relative seat r: V_KNOWN + r (r = 0: the observer's own cards every other seat
# knows), V_HSIZE + r, V_INGAME + r, V_SHOWN + r.
V_KNOWN = 17
V_HSIZE = V_KNOWN + MAXP
V_INGAME = V_HSIZE + MAXP
V_SHOWN = V_INGAME + MAXP
VIEW_SIZE = V_SHOWN + MAXP


def view_array(v) -> np.ndarray:
    """Pack an ``ObsView`` (seats relative to the observer) into the kernels' int64 array."""
    out = np.zeros(VIEW_SIZE, np.int64)
    out[V_HAND], out[V_UNCOV], out[V_COV] = v.hand, v.attack_uncovered, v.attack_covered
    out[V_COVERING], out[V_DISCARD], out[V_TALON] = v.covering, v.discard, v.talon_size
    out[V_TRUMP], out[V_TCARD] = v.trump, v.trump_card
    out[V_ATT], out[V_DEF], out[V_TOACT], out[V_OPENER] = v.attacker, v.defender, v.to_act, v.opener
    out[V_PHASE], out[V_TAKE], out[V_NATT] = v.phase, int(v.take), v.n_attack
    out[V_LIMIT], out[V_PASSES] = v.limit, v.passes
    n = len(v.hand_size)
    out[V_KNOWN : V_KNOWN + n] = v.known
    out[V_KNOWN] = v.own_known  # the observer's known[0] is always empty: its slot holds these
    out[V_HSIZE : V_HSIZE + n] = v.hand_size
    out[V_INGAME : V_INGAME + n] = [int(x) for x in v.in_game]
    out[V_SHOWN : V_SHOWN + n] = [int(x) for x in v.shown]
    return out


# ---------------------------------------------------------------- determinization


@njit(cache=True)
def _shuffled(r, m, cards):
    """Write the cards of mask m into cards[:k] in random order; return k."""
    k = 0
    while m:
        c = core.low_card(m)
        m &= m - ONE
        j = core.rng_below(r, k + 1)
        cards[k] = cards[j]
        cards[j] = c
        k += 1
    return k


@njit(cache=True)
def _deal_unseen(r, prm, view, cards):
    """Deal the unseen cards to the unknown hand slots and the talon; False if they don't fit."""
    n = prm[core.P_N]
    talon_n = view[V_TALON]
    face_up = view[V_TCARD] if talon_n > 0 else -1
    seen = np.uint64(view[V_HAND] | view[V_DISCARD] | view[V_UNCOV] | view[V_COV]
                     | view[V_COVERING])
    if face_up >= 0:
        seen |= bit(face_up)
    for q in range(1, n):
        seen |= np.uint64(view[V_KNOWN + q])
    k = _shuffled(r, core.deck_in_play(prm) & ~seen, cards)
    need = talon_n - (1 if face_up >= 0 else 0)
    for q in range(1, n):
        need += view[V_HSIZE + q] - popcount(np.uint64(view[V_KNOWN + q]))
    if need != k or (talon_n > 0 and face_up < 0):
        return False
    r.hands[0] = np.uint64(view[V_HAND])
    j = 0
    for q in range(1, MAXP):
        h = ZERO
        if q < n:
            h = np.uint64(view[V_KNOWN + q])
            for _ in range(view[V_HSIZE + q] - popcount(h)):
                h |= bit(cards[j])
                j += 1
        r.hands[q] = h
    for i in range(NUM_CARDS):
        r.talon[i] = -1
    for i in range(talon_n - 1):
        r.talon[i] = cards[j + i]
    if face_up >= 0:
        r.talon[talon_n - 1] = face_up
    r.talon_top = 0
    r.talon_end = talon_n
    r.trump_card = face_up
    return True


@njit(cache=True)
def _set_table(r, view):
    """Attack slots: covered cards first, each paired with a covering card that beats it
    when the greedy pairing finds one (only the masks matter for the future)."""
    trump = view[V_TRUMP]
    cov, covering = np.uint64(view[V_COV]), np.uint64(view[V_COVERING])
    for i in range(TABLE_SLOTS):
        r.attack[i] = -1
        r.cover[i] = -1
    k = 0
    ranks = ZERO
    free = covering
    while cov:
        a = core.low_card(cov)
        cov &= cov - ONE
        fit = free & BEATS[trump, a]
        b = core.low_card(fit) if fit else core.low_card(free)
        free &= ~bit(b)
        r.attack[k] = a
        r.cover[k] = b
        ranks |= RANK_MASK[rank_of(a)] | RANK_MASK[rank_of(b)]
        k += 1
    unc = np.uint64(view[V_UNCOV])
    r.n_uncovered = popcount(unc)
    while unc:
        a = core.low_card(unc)
        unc &= unc - ONE
        r.attack[k] = a
        ranks |= RANK_MASK[rank_of(a)]
        k += 1
    r.n_attack = k
    r.table_ranks = ranks
    return k == view[V_NATT]


@njit(cache=True)
def _set_roles(r, prm, view):
    """Roles, phase and the thrower list; False if to_act is not where the phase says."""
    n = prm[core.P_N]
    r.n_out = 0
    for p in range(MAXP):
        r.in_game[p] = view[V_INGAME + p] if p < n else 0
        r.shown[p] = view[V_SHOWN + p] if p < n else 0
        r.known[p] = np.uint64(view[V_KNOWN + p])  # seat 0: its own cards the others know
        r.out_order[p] = -1
    for p in range(n):
        if not r.in_game[p]:
            r.out_order[r.n_out] = p
            r.n_out += 1
    r.discard = np.uint64(view[V_DISCARD])
    r.trump = view[V_TRUMP]
    r.attacker, r.defender = view[V_ATT], view[V_DEF]
    r.opener, r.to_act = view[V_OPENER], view[V_TOACT]
    r.phase, r.take = view[V_PHASE], view[V_TAKE]
    r.limit, r.passes = view[V_LIMIT], view[V_PASSES]
    r.durak = NO_SEAT
    core.set_throwers(r, prm)
    r.thrower_idx = 0
    if r.phase == DEFEND:
        return r.to_act == r.defender
    for i in range(r.n_throwers):
        if r.throwers[i] == r.to_act:
            r.thrower_idx = i
            return True
    return False


@njit(cache=True)
def determinize(r, prm, view, cards):
    """Write into the record r a random full state consistent with the observer's view.

    ``view`` is ``view_array(decoded observation)`` (observer = seat 0); ``cards`` is
    int64[52] scratch; randomness comes from ``r.rng``. Returns False when the
    view is inconsistent (the state is then unusable).
    """
    if view[V_PHASE] != ATTACK and view[V_PHASE] != DEFEND:
        return False
    if not _deal_unseen(r, prm, view, cards):
        return False
    if not _set_table(r, view):
        return False
    return _set_roles(r, prm, view)


@njit(cache=True, nogil=True)
def determinize_at(st, g, prm, view, cards):
    """``determinize`` on game g of the batch ``st`` (the entry point from Python)."""
    return determinize(st[g], prm, view, cards)
