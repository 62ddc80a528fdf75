"""The ``expert`` heuristic's decision rules compiled with numba, on a core game record.

``expert_action`` is what ``agents.heuristics.ExpertAgent`` decides without its
searches, term for term (a test compares them); it serves as a playout and opponent
policy of the tree search (``agents.playouts``) and, batched over the games of a
``Batch`` with card counting (``expert_actions``), as the fast ``expert_rules`` player
of self-play training and of ``ExpertRulesAgent``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from durak_env import core
from durak_env.actions import PASS, TAKE, action_card, beaten_card
from durak_env.cards import BEATS, RANK_MASK, rank_of, suit_of
from durak_env.core import ATTACK, ONE, ZERO, bit, popcount
from durak_env.observation import unseen_cards

from . import weights as W


@njit(cache=True, inline="always")
def _ex_value(c, trump, low_rank, top):
    return (rank_of(c) - low_rank) / top + (1.0 if suit_of(c) == trump else 0.0)


# The expert's costs, term for term and summed in the same order as
# ``HeuristicAgent.trump_cost``, ``spend_cost`` and ``attack_cost`` (a test compares them).


@njit(cache=True, inline="always")
def _ex_trump_cost(c, val, trump, frac):
    """``HeuristicAgent.trump_cost`` with the expert's weights (val: ``_ex_value``)."""
    return frac * (W.W_TRUMP + W.W_HIGH * (val - 1.0)) if suit_of(c) == trump else 0.0


@njit(cache=True, inline="always")
def _ex_spend(c, hand, trump, low_rank, top, frac):
    """``HeuristicAgent.spend_cost`` with the expert's weights."""
    val = _ex_value(c, trump, low_rank, top)
    return (val - 0.75 + _ex_trump_cost(c, val, trump, frac)
            + W.W_PAIRS * 0.5 * min(popcount(hand & RANK_MASK[rank_of(c)]) - 1, 1))


@njit(cache=True, inline="always")
def unseen_pool(r, prm):
    """The cards the player to act cannot place (``observation.unseen_cards``)."""
    return unseen_cards(r, prm, r.to_act)


@njit(cache=True)
def beat_chance(r, c, pool):
    """``Situation.beat_prob`` of the defender, from what the player to act sees: 1 if a
    card known to be in the defender's hand beats c, else the chance that one of its
    unknown cards does, dealt from ``pool`` (``unseen_pool``; hypergeometric)."""
    d = r.defender
    beaters = BEATS[r.trump, c]
    if r.known[d] & beaters:
        return 1.0
    slots = np.int64(popcount(r.hands[d])) - np.int64(popcount(r.known[d]))
    total, good = np.int64(popcount(pool)), np.int64(popcount(pool & beaters))
    return 1.0 - miss_chance(slots, total, good)


@njit(cache=True)
def miss_chance(slots, total, good):
    """The chance that none of ``slots`` cards dealt from ``total`` cards is one of
    ``good`` of them (hypergeometric; ``Situation.beat_prob`` calls it too)."""
    miss = 1.0
    for i in range(slots):
        if total - i <= 0:
            break
        miss *= max(0, total - good - i) / (total - i)
    return miss


@njit(cache=True)
def expert_action(r, prm, buf, n, count=False):
    """The ``expert`` heuristic's decision rules (without its searches): attack with the
    card of least cost (value, trump saving, pairs, the chance the defender beats it),
    throw in only cheap cards or cards the defender will not beat, cover by the cheapest
    plan (greedy per attack card) unless taking or transferring is cheaper.

    With ``count`` the defender's chances come from card counting (``beat_chance``, as
    ``expert`` does, from public information only); without, from the defender's real
    hand, which a playout inside a determinization may use."""
    low_rank = rank_of(prm[core.P_LOW])
    talon = r.talon_end - r.talon_top
    start = max(1, prm[core.P_DECK] - prm[core.P_N] * prm[core.P_HAND])
    frac = talon / start
    if r.phase == ATTACK:
        return _ex_attack(r, prm, buf, n, count, low_rank, talon, frac)
    return _ex_defend(r, prm, buf, n, low_rank, frac)


@njit(cache=True)
def _ex_cheapest_attack(r, prm, buf, n, count, low_rank, frac):
    """The attack card of least cost among the n legal moves: (action or -1, its cost,
    its card, the chance the defender beats it)."""
    hand, trump = r.hands[r.to_act], r.trump
    top = 12 - low_rank
    a_play, a_beat = prm[core.A_PLAY], prm[core.A_BEAT]
    dh = r.hands[r.defender]
    pool = unseen_pool(r, prm) if count else ZERO
    best, best_cost, best_c, best_p = -1, 1e300, -1, 0.0
    for i in range(n):
        a = buf[i]
        if a >= a_play and a < a_beat:
            c = action_card(prm, a)
            val = _ex_value(c, trump, low_rank, top)
            cost = (val + _ex_trump_cost(c, val, trump, frac)
                    - W.W_PAIRS * min(popcount(hand & RANK_MASK[rank_of(c)]) - 1, 2))
            p = beat_chance(r, c, pool) if count else (1.0 if dh & BEATS[trump, c] else 0.0)
            cost += W.W_COUNT * p
            if cost < best_cost:
                best, best_cost, best_c, best_p = a, cost, c, p
    return best, best_cost, best_c, best_p


@njit(cache=True)
def _ex_attack(r, prm, buf, n, count, low_rank, talon, frac):
    """Open with the cheapest card; throw it in only if cheap enough (junk to a defender
    who takes), or if it is plain and the defender will hardly beat it; else pass (0)."""
    best, best_cost, best_c, best_p = _ex_cheapest_attack(r, prm, buf, n, count, low_rank,
                                                          frac)
    if best < 0:
        return buf[0]
    if r.n_attack == 0:
        return best
    trump = r.trump
    is_trump = suit_of(best_c) == trump
    if r.take:
        ok = (talon == 0 and not is_trump) or \
            _ex_value(best_c, trump, low_rank, 12 - low_rank) <= W.JUNK_MAX
        return best if ok else PASS
    if talon == 0 or best_cost <= W.THROW_MAX + (1.0 - frac) * 2.0:
        return best
    if is_trump:
        return PASS
    return best if best_p <= W.FORCE_TAKE else PASS


@njit(cache=True)
def _ex_cover_plan(r, prm, buf, n, low_rank, frac):
    """Cover the uncovered cards one by one with the cheapest unused beater: (the plan's
    cost, 1e300 if some card cannot be covered; the first cover's action or -1)."""
    hand, trump = r.hands[r.to_act], r.trump
    top = 12 - low_rank
    a_beat, a_tr = prm[core.A_BEAT], prm[core.A_TRANSFER]
    # the plan covers the uncovered cards in card order: the order they were played in is
    # not in the observation, and the decision must not depend on what a seat cannot see
    uncovered = ZERO
    for k in range(r.n_attack):
        if r.cover[k] < 0:
            uncovered |= bit(r.attack[k])
    used = ZERO
    cover, first = 0.0, -1
    while uncovered:
        att = core.low_card(uncovered)
        uncovered &= uncovered - ONE
        pick, pick_cost, pick_c = -1, 1e300, -1
        for i in range(n):
            a = buf[i]
            if a >= a_beat and a < a_tr and beaten_card(prm, a) == att:
                c = action_card(prm, a)
                if used & bit(c):
                    continue
                cost = _ex_spend(c, hand, trump, low_rank, top, frac)
                if cost < pick_cost:
                    pick, pick_cost, pick_c = a, cost, c
        if pick < 0:
            cover = 1e300
            break
        used |= bit(pick_c)
        cover += pick_cost
        if first < 0:
            first = pick
    return cover, first


@njit(cache=True)
def _ex_defend(r, prm, buf, n, low_rank, frac):
    """Show a trump if allowed; else transfer, cover or take (1), whichever is cheapest."""
    hand, trump = r.hands[r.to_act], r.trump
    top = 12 - low_rank
    a_tr, a_show = prm[core.A_TRANSFER], prm[core.A_SHOW]
    can_take = False
    best_tr, best_tr_cost = -1, 1e300
    for i in range(n):
        a = buf[i]
        if a >= a_show:
            return a
        if a == TAKE:
            can_take = True
        elif a >= a_tr:
            cost = _ex_spend(action_card(prm, a), hand, trump, low_rank, top, frac)
            if cost < best_tr_cost:
                best_tr, best_tr_cost = a, cost
    cover, first = _ex_cover_plan(r, prm, buf, n, low_rank, frac)
    if best_tr >= 0 and best_tr_cost <= cover:
        return best_tr
    n_table = 0
    for k in range(r.n_attack):
        n_table += 1 if r.cover[k] < 0 else 2
    take = W.TAKE_BASE + W.TAKE_CARD * n_table
    if first < 0 or (can_take and take < cover):
        return TAKE if can_take else buf[0]
    return first


@njit(cache=True)
def expert_actions(st, prm, buf, n_legal, rows, out):
    """``expert_action`` with card counting for games ``rows`` of a batch whose legal
    actions are ``buf[g, :n_legal[g]]`` (a ``Batch``): the batched ``expert_rules``."""
    b = core.borrowed
    st, prm, buf, n_legal, rows, out = b(st), b(prm), b(buf), b(n_legal), b(rows), b(out)
    for i in range(len(rows)):
        g = rows[i]
        out[i] = expert_action(st[g], prm, buf[g], n_legal[g], True)
