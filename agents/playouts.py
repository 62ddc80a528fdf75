"""Playout policies of the tree search, run in the numba core.

A policy picks one of the ``n`` legal moves in ``buf`` of a core game record: random,
greedy (``greedy_action``), greedy but saving high trumps, or the expert heuristic's
rules (``agents.expert_kernel.expert_action``) reading the real hands of the
determinization or judging them by card counting. ``PLAYOUTS`` names them in the order
of their ids.
"""

from __future__ import annotations

from numba import njit

from durak_env import core
from durak_env.actions import TAKE, action_card
from durak_env.core import ATTACK

from .determinize import determinize
from .endgame import card_cost
from .expert_kernel import expert_action

# A playout is abandoned as a draw after this many decisions per deck card, far more
# than a whole game of random moves takes at any table size.
PLAYOUT_CAP_PER_CARD = 16
PLAYOUTS = ("random", "greedy", "saving", "expert", "expert_count")
# The ids of the playout policies, in the order of PLAYOUTS.
PLAYOUT_RANDOM, PLAYOUT_GREEDY, PLAYOUT_SAVING, PLAYOUT_EXPERT, PLAYOUT_EXPERT_COUNT = range(5)
# The "saving" playout takes rather than cover with a trump of this rank index or
# higher (jack and up) while the talon holds more than SAVE_TALON cards.
SAVE_RANK = 9
SAVE_TALON = 4


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
                cost = card_cost(action_card(prm, a), trump)
                if cost < best_cost and (opening or cost < 16):
                    best, best_cost = a, cost
        return best if best >= 0 else buf[0]
    for i in range(n):
        a = buf[i]
        if a >= a_beat and a < a_tr:
            cost = card_cost(action_card(prm, a), trump)
        elif a >= a_tr and a < prm[core.A_SHOW]:
            cost = 100 + card_cost(action_card(prm, a), trump)
            if cost >= 116:
                continue
        else:
            continue
        if cost < best_cost:
            best, best_cost = a, cost
    if save and best_cost < 100 and best_cost >= 16 + SAVE_RANK \
            and r.talon_end - r.talon_top > SAVE_TALON:
        return TAKE
    return best if best >= 0 else TAKE



@njit(cache=True)
def advance(r, prm, action, buf, log):
    """core.step, returning only the number of legal moves that follow."""
    n, _ = core.step(r, prm, action, buf, log)
    return n


@njit(cache=True)
def playout(r, prm, n, buf, log, policy):
    """Play on with playout policy ``policy`` (a ``PLAYOUT_*`` id: random, greedy,
    saving, expert, expert with card counting), n legal moves in buf.

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
    if policy == PLAYOUT_RANDOM:
        return buf[core.rng_below(r, n)]
    if policy >= PLAYOUT_EXPERT:
        return expert_action(r, prm, buf, n, policy == PLAYOUT_EXPERT_COUNT)
    return greedy_action(r, prm, buf, n, policy == PLAYOUT_SAVING)


@njit(cache=True)
def greedy_at(st, prm, view, cards, buf):
    """The greedy policy's move in a determinization of the view (game 0 of ``st``);
    -1 if the view cannot be determinized. Meant for fully known positions."""
    r = st[0]
    if not determinize(r, prm, view, cards):
        return -1
    n = core.legal_actions(r, prm, buf)
    return greedy_action(r, prm, buf, n) if n > 0 else -1
