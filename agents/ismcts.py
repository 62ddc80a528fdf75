"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration samples a *determinization*: a full core game record
(``core.STATE_DTYPE``) consistent with what the acting seat sees. Cards known to be
in a hand stay there; every unseen card (the deck minus the own hand, the discard,
the table, the known cards and the face-up trump card while it lies in the talon)
is dealt at random to the unknown slots of the other hands and to the talon, whose
bottom card is the face-up trump.
Seats are rebuilt relative to the observer (the observer is seat 0 of the
determinization), which the rules cannot tell apart: play is clockwise modulo ``n``.

One tree is shared by all players: a node is reached by a sequence of
``(action, mover)`` edges, a child's statistics are the rewards of the player who
moved into it, and the searching seat selects by UCB with availability counts (a
child's ``avail`` counts the iterations in which its action was legal). In plain
single-observer ISMCTS (``opponent="tree"``) the other seats select by UCB too,
over the shared statistics, which models them as choosing one move for every hand
they might hold. With an opponent model (``opponent="expert_count"``, the default,
or another playout name) they move by that policy instead in a share
``model_share`` of the iterations (drawn per iteration; by UCB in the others), e.g.
by the ``expert`` heuristic's rules with card counting (``expert_action(count=True)``,
from what that seat could know in the sampled deal), and the tree branches on the
moves they make, so the searching seat's later choices depend on them. A full model
(``model_share=1``) exploits an opponent that plays like it and is exploited by one
that does not; the default half share keeps most of the gain against ``expert``
and loses only a little to plain ISMCTS head to head (the README has the figures).
Forced moves are applied by the core after every action and never appear in the tree.
Playouts run in the numba core with a random, a greedy or an expert-rules policy; the
reward of a node is that player's ``core.rewards`` at the end of the playout.

Everything per iteration (determinize, select, expand, playout, back-propagate)
is one numba kernel over preallocated tree arrays; Python only decodes the
observation and slices the budget into chunks when searching against the clock.

With two players, once the talon is empty (or holds only the face-up trump) every
determinization is the same position, so sampling is wasted work: the agent asks the
exact end-game solver (``agents.endgame``, at most ``endgame_nodes`` nodes per move,
0 turns it off) and searches as usual only when the solver gives up or proves every
move lost (the search's choice then gives an imperfect opponent the most chances).
Before that, with 1 to ``pimc_talon`` cards left in the talon, every move is first rated
by ``pimc_values`` (exact search of a few sampled deals, as ``expert`` does) and the tree
search only breaks ties between the best-rated moves.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from durak_env import Rules, core
from durak_env.cards import BEATS, NUM_CARDS, RANK_MASK
from durak_env.core import ATTACK, DEFEND, NO_SEAT, ONE, ZERO, bit, popcount
from durak_env.rules import TABLE_SLOTS

from . import weights as W
from .base import Agent
from .endgame import UNKNOWN, EndgameSolver, action_card, beaten_card, card_cost
from .view import fast_decode

# ---------------------------------------------------------------- the view array

MAXP = core.MAX_PLAYERS
# Scalar fields of the int64 view array (card sets are masks in the low 52 bits).
(V_HAND, V_UNCOV, V_COV, V_COVERING, V_DISCARD, V_TALON, V_TRUMP, V_TCARD, V_ATT, V_DEF,
 V_TOACT, V_OPENER, V_PHASE, V_TAKE, V_NATT, V_LIMIT, V_PASSES) = range(17)
# Per relative seat r: V_KNOWN + r, V_HSIZE + r, V_INGAME + r, V_SHOWN + r.
V_KNOWN = 17
V_HSIZE = V_KNOWN + MAXP
V_INGAME = V_HSIZE + MAXP
V_SHOWN = V_INGAME + MAXP
VIEW_SIZE = V_SHOWN + MAXP

# Edges are keyed by action and mover: the same action id by another seat is another edge.
KEY_SEATS = MAXP
# A playout is abandoned as a draw after this many decisions per deck card (a whole
# game of random moves: 2 players, 36 cards: 87 decisions, at most ~200; 8 players,
# 52 cards: 275, at most ~600).
PLAYOUT_CAP_PER_CARD = 16
NO_NODE = -1
# Iterations per numba call when the search watches the clock (about 2 ms).
_CHUNK = 256
# Of ``max_time``: the sampled exact search may use this share; the tree search stops
# early enough that even a chunk taking twice its predecessor's time ends before
# ``_SAFE`` of it (a loaded machine's hiccups fit in the rest).
_PIMC_SHARE = 0.5
_SAFE = 0.85
_PLAYOUTS = ("random", "greedy", "saving", "expert", "expert_count")
# The "saving" playout takes rather than cover with a trump of this rank index or
# higher (jack and up) while the talon holds more than SAVE_TALON cards.
SAVE_RANK = 9
SAVE_TALON = 4


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
    out[V_HSIZE : V_HSIZE + n] = v.hand_size
    out[V_INGAME : V_INGAME + n] = [int(x) for x in v.in_game]
    out[V_SHOWN : V_SHOWN + n] = [int(x) for x in v.shown]
    return out


# ---------------------------------------------------------------- determinization


@njit(cache=True, inline="always")
def _deck(prm):
    """The mask of the cards in play: ids ``P_LOW`` up to the last card."""
    return ~(bit(prm[core.P_LOW]) - ONE) & (bit(NUM_CARDS) - ONE)


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
    k = _shuffled(r, _deck(prm) & ~seen, cards)
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
        ranks |= RANK_MASK[a >> 2] | RANK_MASK[b >> 2]
        k += 1
    unc = np.uint64(view[V_UNCOV])
    r.n_uncovered = popcount(unc)
    while unc:
        a = core.low_card(unc)
        unc &= unc - ONE
        r.attack[k] = a
        ranks |= RANK_MASK[a >> 2]
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
        r.known[p] = np.uint64(view[V_KNOWN + p]) if p > 0 else ZERO
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


@njit(cache=True)
def determinize_at(st, g, prm, view, cards):
    """``determinize`` on game g of the batch ``st`` (the entry point from Python)."""
    return determinize(st[g], prm, view, cards)


# ---------------------------------------------------------------- playout policies


@njit(cache=True)
def greedy_action(r, prm, buf, n, save=False):
    """Attack and throw in with the cheapest plain card (open with the cheapest card),
    cover with the cheapest beater, else transfer with a plain card, else take.

    With ``save``, take instead of covering with a high trump (``SAVE_RANK``) while
    the talon holds more than ``SAVE_TALON`` cards."""
    trump = r.trump
    a_play, a_beat, a_tr = prm[core.A_PLAY], prm[core.A_BEAT], prm[core.A_TRANSFER]
    opening = r.n_attack == 0
    best, best_cost = -1, 1 << 30
    if r.phase == ATTACK:
        for i in range(n):
            a = buf[i]
            if a >= a_play and a < a_beat:
                cost = card_cost(action_card(a, prm), trump)
                if cost < best_cost and (opening or cost < 16):
                    best, best_cost = a, cost
        return best if best >= 0 else buf[0]
    for i in range(n):
        a = buf[i]
        if a >= a_beat and a < a_tr:
            cost = card_cost(action_card(a, prm), trump)
        elif a >= a_tr and a < prm[core.A_SHOW]:
            cost = 100 + card_cost(action_card(a, prm), trump)
            if cost >= 116:
                continue
        else:
            continue
        if cost < best_cost:
            best, best_cost = a, cost
    if save and best_cost < 100 and best_cost >= 16 + SAVE_RANK \
            and r.talon_end - r.talon_top > SAVE_TALON:
        return 1
    return best if best >= 0 else 1


@njit(cache=True, inline="always")
def _ex_value(c, trump, low_rank, top):
    return ((c >> 2) - low_rank) / top + (1.0 if (c & 3) == trump else 0.0)


# The expert's costs, term for term and summed in the same order as
# ``HeuristicAgent.trump_cost``, ``spend_cost`` and ``attack_cost`` (a test compares them).


@njit(cache=True, inline="always")
def _ex_trump_cost(c, val, trump, frac):
    """``HeuristicAgent.trump_cost`` with the expert's weights (val: ``_ex_value``)."""
    return frac * (W.W_TRUMP + W.W_HIGH * (val - 1.0)) if (c & 3) == trump else 0.0


@njit(cache=True, inline="always")
def _ex_spend(c, hand, trump, low_rank, top, frac):
    """``HeuristicAgent.spend_cost`` with the expert's weights."""
    val = _ex_value(c, trump, low_rank, top)
    return (val - 0.75 + _ex_trump_cost(c, val, trump, frac)
            + W.W_PAIRS * 0.5 * min(popcount(hand & RANK_MASK[c >> 2]) - 1, 1))


@njit(cache=True)
def unseen_pool(r, prm):
    """The cards the player to act cannot place: not in its hand, the discard, on the
    table, known to be in another hand, or the face-up trump still in the talon."""
    me = r.to_act
    seen = r.hands[me] | r.discard
    for k in range(r.n_attack):
        seen |= bit(r.attack[k])
        if r.cover[k] >= 0:
            seen |= bit(r.cover[k])
    for p in range(prm[core.P_N]):
        if p != me:
            seen |= r.known[p]
    if r.talon_end > r.talon_top and r.trump_card >= 0:
        seen |= bit(r.trump_card)
    return _deck(prm) & ~seen


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
    me = r.to_act
    hand = r.hands[me]
    trump = r.trump
    low_rank = prm[core.P_LOW] >> 2
    top = 12 - low_rank
    talon = r.talon_end - r.talon_top
    start = max(1, prm[core.P_DECK] - prm[core.P_N] * prm[core.P_HAND])
    frac = talon / start
    a_play, a_beat, a_tr, a_show = prm[core.A_PLAY], prm[core.A_BEAT], prm[core.A_TRANSFER], \
        prm[core.A_SHOW]
    if r.phase == ATTACK:
        dh = r.hands[r.defender]
        pool = unseen_pool(r, prm) if count else ZERO
        best, best_cost, best_c, best_p = -1, 1e300, -1, 0.0
        for i in range(n):
            a = buf[i]
            if a >= a_play and a < a_beat:
                c = action_card(a, prm)
                val = _ex_value(c, trump, low_rank, top)
                cost = (val + _ex_trump_cost(c, val, trump, frac)
                        - W.W_PAIRS * min(popcount(hand & RANK_MASK[c >> 2]) - 1, 2))
                p = beat_chance(r, c, pool) if count else (1.0 if dh & BEATS[trump, c] else 0.0)
                cost += W.W_COUNT * p
                if cost < best_cost:
                    best, best_cost, best_c, best_p = a, cost, c, p
        if best < 0:
            return buf[0]
        if r.n_attack == 0:
            return best
        is_trump = (best_c & 3) == trump
        if r.take:
            ok = (talon == 0 and not is_trump) or \
                _ex_value(best_c, trump, low_rank, top) <= W.JUNK_MAX
            return best if ok else 0
        if talon == 0 or best_cost <= W.THROW_MAX + (1.0 - frac) * 2.0:
            return best
        if is_trump:
            return 0
        return best if best_p <= W.FORCE_TAKE else 0
    # defence: show, transfer, cover or take
    can_take = False
    best_tr, best_tr_cost = -1, 1e300
    for i in range(n):
        a = buf[i]
        if a >= a_show:
            return a
        if a == 1:
            can_take = True
        elif a >= a_tr:
            cost = _ex_spend(action_card(a, prm), hand, trump, low_rank, top, frac)
            if cost < best_tr_cost:
                best_tr, best_tr_cost = a, cost
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
            if a >= a_beat and a < a_tr and beaten_card(a, prm) == att:
                c = action_card(a, prm)
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
    if best_tr >= 0 and best_tr_cost <= cover:
        return best_tr
    n_table = 0
    for k in range(r.n_attack):
        n_table += 1 if r.cover[k] < 0 else 2
    take = W.TAKE_BASE + W.TAKE_CARD * n_table
    if first < 0 or (can_take and take < cover):
        return 1 if can_take else buf[0]
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


@njit(cache=True)
def advance(r, prm, action, buf, log):
    """core.step, returning only the number of legal moves that follow."""
    n, _ = core.step(r, prm, action, buf, log)
    return n


@njit(cache=True)
def playout(r, prm, n, buf, log, policy):
    """Play on with policy 0 random, 1 greedy, 2 saving, 3 expert, 4 expert with card
    counting (n legal moves in buf).

    With an empty talon, cards can circulate for ever (each side keeps taking), and
    a deterministic policy can repeat such a cycle: a playout stops after
    ``PLAYOUT_CAP_PER_CARD * deck size`` decisions, unfinished, and scores as a draw.
    """
    for _ in range(PLAYOUT_CAP_PER_CARD * prm[core.P_DECK]):
        if n <= 0:
            return
        n = advance(r, prm, policy_action(r, prm, buf, n, policy), buf, log)


@njit(cache=True)
def policy_action(r, prm, buf, n, policy):
    """The move of playout policy ``policy`` (see ``playout``) among the n legal moves in buf."""
    if policy == 0:
        return buf[core.rng_below(r, n)]
    if policy >= 3:
        return expert_action(r, prm, buf, n, policy == 4)
    return greedy_action(r, prm, buf, n, policy == 2)


@njit(cache=True)
def greedy_at(st, prm, view, cards, buf):
    """The greedy policy's move in a determinization of the view (game 0 of ``st``);
    -1 if the view cannot be determinized. Meant for fully known positions."""
    r = st[0]
    if not determinize(r, prm, view, cards):
        return -1
    n = core.legal_actions(r, prm, buf)
    return greedy_action(r, prm, buf, n) if n > 0 else -1


# ---------------------------------------------------------------- the tree


@njit(cache=True)
def _find_child(t_child, t_sib, t_key, node, key):
    ch = t_child[node]
    while ch != NO_NODE:
        if t_key[ch] == key:
            return ch
        ch = t_sib[ch]
    return NO_NODE


@njit(cache=True)
def _new_child(t_child, t_sib, t_key, t_stats, meta, node, key):
    """Append a child; NO_NODE when the tree is full."""
    k = meta[0]
    if k >= t_key.shape[0]:
        return NO_NODE
    meta[0] = k + 1
    t_key[k] = key
    t_child[k] = NO_NODE
    t_sib[k] = t_child[node]
    t_child[node] = k
    t_stats[k, 0] = 0.0
    t_stats[k, 1] = 0.0
    t_stats[k, 2] = 0.0
    return k


@njit(cache=True)
def _select(t_child, t_sib, t_key, t_stats, node, buf, n, mover, c, untried):
    """Bump availability of the legal children; return (best child by UCB, untried count).

    Untried legal actions go to ``untried``; the best child is NO_NODE if none exists.
    """
    best, best_v, k = NO_NODE, -1e300, 0
    for i in range(n):
        ch = _find_child(t_child, t_sib, t_key, node, buf[i] * KEY_SEATS + mover)
        if ch == NO_NODE:
            untried[k] = buf[i]
            k += 1
            continue
        t_stats[ch, 2] += 1.0
        visits = t_stats[ch, 0]
        v = t_stats[ch, 1] / visits + c * np.sqrt(np.log(t_stats[ch, 2]) / visits)
        if v > best_v:
            best, best_v = ch, v
    return best, k


@njit(cache=True)
def search(st, prm, view, iterations, c, policy, opponent, share, t_child, t_sib, t_key,
           t_stats, meta, buf, log, cards, path, movers, rew, untried):
    """Run ISMCTS iterations on the tree (root = node 0) using game 0 of ``st``.

    ``t_stats[node]`` is (visits, total reward of the mover into it, availability);
    ``meta[0]`` the node count. Returns the iterations done (fewer only when the
    view cannot be determinized).
    """
    b = core.borrowed
    st, prm, view, t_child, t_sib, t_key = b(st), b(prm), b(view), b(t_child), b(t_sib), b(t_key)
    t_stats, meta, buf, log, cards, path = b(t_stats), b(meta), b(buf), b(log), b(cards), b(path)
    movers, rew, untried = b(movers), b(rew), b(untried)
    r = st[0]
    for it in range(iterations):
        if not determinize(r, prm, view, cards):
            return it
        # this iteration the other seats play by the model (chance ``share``), or by UCB
        modelled = opponent >= 0 and share > 0.0 and (
            share >= 1.0 or core.rng_below(r, 1 << 24) < share * (1 << 24))
        n = core.legal_actions(r, prm, buf)
        node, depth = 0, 0
        while n > 0 and depth < path.shape[0]:
            mover = r.to_act
            expanded = False
            if modelled and mover != 0:
                # an opponent's move by the policy: a branch of the tree, not a choice
                a = policy_action(r, prm, buf, n, opponent)
                key = a * KEY_SEATS + mover
                # count the legal children as available (UCB iterations read it), the
                # policy's move too, also when it is new here
                _select(t_child, t_sib, t_key, t_stats, node, buf, n, mover, c, untried)
                ch = _find_child(t_child, t_sib, t_key, node, key)
                if ch == NO_NODE:
                    ch = _new_child(t_child, t_sib, t_key, t_stats, meta, node, key)
                    if ch != NO_NODE:
                        t_stats[ch, 2] = 1.0
            else:
                ch, k = _select(t_child, t_sib, t_key, t_stats, node, buf, n, mover, c, untried)
                if k > 0:
                    a = untried[core.rng_below(r, k)]
                    ch = _new_child(t_child, t_sib, t_key, t_stats, meta, node,
                                    a * KEY_SEATS + mover)
                    expanded = True
                else:
                    a = t_key[ch] // KEY_SEATS
            n = advance(r, prm, a, buf, log)
            if ch == NO_NODE:
                break
            path[depth], movers[depth] = ch, mover
            depth += 1
            node = ch
            if expanded:
                break
        playout(r, prm, n, buf, log, policy)
        core.rewards(r, prm, rew)
        for i in range(depth):
            t_stats[path[i], 0] += 1.0
            t_stats[path[i], 1] += rew[movers[i]]
    return iterations


@njit(cache=True)
def root_visits(t_child, t_sib, t_key, t_stats, out):
    """Visits of each root child into out[action] (the root mover is seat 0)."""
    ch = t_child[0]
    while ch != NO_NODE:
        out[t_key[ch] // KEY_SEATS] = t_stats[ch, 0]
        ch = t_sib[ch]


# ---------------------------------------------------------------- sampled exact search


def pimc_values(solver: EndgameSolver, view: np.ndarray, order: list[int], samples: int,
                nodes: int, rng: np.random.Generator, cards: np.ndarray,
                deadline: float | None = None) -> np.ndarray | None:
    """Perfect-information Monte Carlo with exact search (two players).

    Deals the unseen cards of ``view`` at random (``determinize``: the face-up trump
    stays at the talon's bottom) ``samples`` times, seeded from ``rng`` only, and solves
    every action of ``order`` in each deal with the end-game search (+1 win, 0 draw or
    ``nodes`` reached, -1 loss).

    Args:
        deadline: a ``time.perf_counter()`` time; after the first deal, no deal is
            started that would end past it by the time the longest deal so far took
            (None: all ``samples`` deals). Every action is solved in the same deals,
            so totals over fewer deals still compare.

    Returns:
        The summed values, one per action of ``order``; None if the view cannot be
        determinized.
    """
    solver.st["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
    total = np.zeros(len(order), np.int64)
    longest, now = 0.0, time.perf_counter()
    for i in range(samples):
        if deadline is not None and i > 0 and now + longest >= deadline:
            break
        if not determinize_at(solver.st, 0, solver.prm, view, cards):
            return None
        values = solver.root_values(order, nodes)
        total += np.where(values == UNKNOWN, 0, values)
        last, now = now, time.perf_counter()
        longest = max(longest, now - last)
    return total


def search_applies(solver: EndgameSolver | None, v, pimc_talon: int) -> bool:
    """Whether ``searched_move`` decides in the position seen in ``v``: the end-game
    solver applies, or 1 to ``pimc_talon`` cards are left in the talon (two players)."""
    return solver is not None and (solver.applies(v) or 0 < v.talon_size <= pimc_talon)


def searched_move(solver: EndgameSolver, v, order: list[int], samples: int, nodes: int,
                  rng: np.random.Generator, cards: np.ndarray) -> int:
    """The exact searches' move where ``search_applies``, for a player whose own
    choices in preference order are ``order``: the end-game solver's move once every
    card is placed, otherwise the best ``pimc_values`` total; ties, a position the solver
    gives up on and one that cannot be determinized go to the earliest in ``order``.
    ``expert`` and ``ppo`` decide so; ``ismcts`` searches its tree instead of settling
    for a tie or a proven loss."""
    if solver.applies(v):
        a = solver.solve(v, order)
        return order[0] if a is None else int(a)
    total = pimc_values(solver, view_array(v), order, samples, nodes, rng, cards)
    return order[0] if total is None else order[int(np.argmax(total))]


# ---------------------------------------------------------------- the agent


class ISMCTSAgent(Agent):
    """ISMCTS player over the numba core.

    Args:
        rules: the rules to play.
        iterations: iterations per decision (the budget when ``time_per_move`` is None).
        time_per_move: seconds per decision; when set it replaces ``iterations`` (the
            tree then holds at most ``max_nodes`` or 2**18 nodes).
        c: UCB exploration constant (rewards are in -1..1).
        playout: playout policy: ``"random"``, ``"greedy"``, ``"saving"`` (greedy,
            but takes rather than pay a high trump while the talon is full) or
            ``"expert"`` (``expert_action``: the expert heuristic's rules, reading the
            defender's cards in the determinization) or ``"expert_count"`` (the same
            rules judging the defender's cards by card counting, as ``expert`` does).
        opponent: how the other seats move inside the tree: ``"tree"`` (each chooses
            by UCB over the shared statistics, as in plain single-observer ISMCTS) or a
            playout policy name, which models them as playing by it (the default
            ``"expert_count"``: the ``expert`` heuristic's rules with card counting,
            from what that seat could know). The tree still branches on their moves,
            so the searching seat's later choices depend on what they did.
        model_share: the chance, drawn per iteration, that the other seats follow the
            model in that iteration; otherwise they choose by UCB as with ``"tree"``
            (0: plain ISMCTS, the same search as ``opponent="tree"``; 1: always the
            model). A full model exploits an opponent that plays like it and is
            exploited by one that does not; the default 0.5 keeps most of the gain
            and loses only a little to plain ISMCTS (see the README's figures).
        max_time: seconds per decision at most, the sampled and exact searches
            included (None: no cap). The sampled search stops dealing at half of it,
            and the tree search stops early so as to end by 85% of it even if its last
            chunk of iterations takes twice as long as the one before. It is reached
            mostly after a sampled search or on a loaded machine, and then the result
            depends on the machine's speed: pass None for bit-for-bit reproducible play.
        seed: seeds the search (re-seeded by ``reset``); None draws each search's seed
            from the ``rng`` given to ``act``.
        max_nodes: tree capacity; 0 picks ``iterations + 2``, enough for any search.
        endgame_nodes: node cap per move of the exact two-player end-game solver, used
            instead of the search once the talon is empty or holds only the face-up
            trump (0: off; ignored with more than two players).
        pimc_talon: with two players and 1 to this many cards in the talon (before the
            end-game solver applies), first rate every move by ``pimc_values`` and
            search only to break ties between the best-rated moves (0: off; needs
            ``endgame_nodes``).
        pimc_samples, pimc_nodes: deals per such decision (fewer if ``max_time`` runs
            short), and the node cap of each move's search in each deal.
    """

    name = "ismcts"

    def __init__(self, rules: Rules, *, iterations: int = 4000, time_per_move: float | None = None,
                 c: float = 0.7, playout: str = "expert", opponent: str = "expert_count",
                 model_share: float = 0.5, max_time: float | None = 0.1,
                 seed: int | None = None,
                 max_nodes: int = 0, endgame_nodes: int = 10000, pimc_talon: int = 3,
                 pimc_samples: int = 16, pimc_nodes: int = 1000):
        super().__init__(rules)
        if isinstance(time_per_move, str):  # the registry passes untyped None defaults as text
            time_per_move = None if time_per_move.lower() in ("", "none") else float(time_per_move)
        if isinstance(seed, str):
            seed = None if seed.lower() in ("", "none") else int(seed)
        if int(iterations) < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations!r}")
        if time_per_move is not None and not time_per_move > 0:
            raise ValueError(f"time_per_move must be > 0 or None, got {time_per_move!r}")
        if max_time is not None and not max_time > 0:
            raise ValueError(f"max_time must be > 0 or None, got {max_time!r}")
        if playout not in _PLAYOUTS:
            raise ValueError(f"playout must be one of {_PLAYOUTS}, got {playout!r}")
        if opponent != "tree" and opponent not in _PLAYOUTS:
            raise ValueError(f"opponent must be 'tree' or one of {_PLAYOUTS}, got {opponent!r}")
        model_share = float(model_share)
        if not 0.0 <= model_share <= 1.0:
            raise ValueError(f"model_share must be in [0, 1], got {model_share!r}")
        self.opponent = opponent
        self.model_share = model_share
        self.iterations = int(iterations)
        self.time_per_move = time_per_move
        self.max_time = max_time
        self.c = float(c)
        self.playout = playout
        self.seed = seed
        self.prm = core.kernel_params(rules)
        self.endgame_nodes = int(endgame_nodes)
        self.pimc_talon, self.pimc_samples = int(pimc_talon), int(pimc_samples)
        self.pimc_nodes = int(pimc_nodes)
        self._solver = (EndgameSolver(rules, self.endgame_nodes, last_card=True, cheap_first=True)
                        if self.endgame_nodes > 0 and rules.num_players == 2 else None)
        # with a policy opponent, one iteration may add a node per opponent move on its
        # path; a full tree only stops growing (the iteration plays out from there)
        per_it = 1 if opponent == "tree" else 16
        cap = int(max_nodes) or (per_it * self.iterations + 2 if time_per_move is None
                                 else 1 << 18)
        self._t_child = np.full(cap, NO_NODE, np.int32)
        self._t_sib = np.full(cap, NO_NODE, np.int32)
        self._t_key = np.zeros(cap, np.int64)
        self._t_stats = np.zeros((cap, 3), np.float64)
        self._meta = np.zeros(1, np.int64)
        self._st = core.new_state(1)
        n_act = int(self.prm[core.A_N])
        self._buf = np.zeros(n_act, np.int64)
        self._untried = np.zeros(n_act, np.int64)
        self._log = np.zeros((0, 2), np.int32)
        self._cards = np.zeros(NUM_CARDS, np.int64)
        self._path = np.zeros(4096, np.int64)
        self._movers = np.zeros(4096, np.int64)
        self._rew = np.zeros(rules.num_players, np.float64)
        self._visits = np.zeros(n_act, np.float64)
        self.last_iterations = 0
        self.reset()

    def reset(self) -> None:
        self._seed_rng = np.random.default_rng(self.seed) if self.seed is not None else None
        if self._solver is not None:
            self._solver.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            rng: np.random.Generator) -> int:
        start = time.perf_counter()
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        src = self._seed_rng if self._seed_rng is not None else rng
        self._st["rng"][0] = np.uint64(int(src.integers(0, 2**63)))
        v = fast_decode(observation, self.rules)
        view = view_array(v)
        if self._solver is not None and self._solver.applies(v):
            a = self._solve_exactly(v, view, legal)
            if a is not None:
                self.last_iterations = 0
                return a
        elif self._solver is not None and 0 < v.talon_size <= self.pimc_talon:
            legal = self._best_by_sampling(view, legal, src, start)
            if len(legal) == 1:
                self.last_iterations = 0
                return int(legal[0])
        self._run(view, start)
        self._visits[:] = -1.0
        root_visits(self._t_child, self._t_sib, self._t_key, self._t_stats, self._visits)
        scores = self._visits[legal]
        if scores.max() < 0:  # the view could not be determinized: should not happen
            return int(src.choice(legal))
        return int(legal[int(np.argmax(scores))])

    def _solve_exactly(self, v, view: np.ndarray, legal: np.ndarray) -> int | None:
        """The solver's move when it proves a win or a draw; None to search instead."""
        first = int(greedy_at(self._st, self.prm, view, self._cards, self._buf))
        # the solver breaks ties by order: the greedy policy's move first, then ascending ids
        order = sorted((int(a) for a in legal), key=lambda a: a != first)
        a = self._solver.solve(v, order)
        if a is None or self._solver.value < 0:
            return None
        return int(a)

    def _best_by_sampling(self, view: np.ndarray, legal: np.ndarray,
                          rng: np.random.Generator, start: float) -> np.ndarray:
        """The legal moves with the best ``pimc_values`` total (all of them if the view
        cannot be determinized)."""
        deadline = None if self.max_time is None else start + _PIMC_SHARE * self.max_time
        total = pimc_values(self._solver, view, [int(a) for a in legal], self.pimc_samples,
                            self.pimc_nodes, rng, self._cards, deadline)
        return legal if total is None else legal[total == total.max()]

    def _run(self, view: np.ndarray, start: float) -> None:
        """Search from an empty tree: ``iterations``, or until ``time_per_move`` has
        passed, and never past ``max_time`` since ``start``."""
        self._meta[0] = 1
        self._t_child[0] = NO_NODE
        opponent = -1 if self.opponent == "tree" else _PLAYOUTS.index(self.opponent)
        args = (self.c, _PLAYOUTS.index(self.playout), opponent, self.model_share,
                self._t_child, self._t_sib, self._t_key, self._t_stats, self._meta, self._buf,
                self._log, self._cards, self._path, self._movers, self._rew, self._untried)
        budget, chunk = self.iterations, _CHUNK
        deadline = start + _SAFE * self.max_time if self.max_time is not None else np.inf
        if self.time_per_move is not None:
            budget, chunk = len(self._t_key) - 2, 16
            deadline = min(deadline, time.perf_counter() + self.time_per_move)
        elif deadline == np.inf:
            self.last_iterations = search(self._st, self.prm, view, budget, *args)
            return
        done, now = 0, time.perf_counter()
        while done < budget:
            n = min(chunk, budget - done)
            k = search(self._st, self.prm, view, n, *args)
            done += k
            last, now = now, time.perf_counter()
            if k < n or now + 2 * (now - last) >= deadline:  # the next chunk might overrun
                break
        self.last_iterations = done
