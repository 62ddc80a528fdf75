"""The numba core: the only implementation of the rules in the product.

State is a ``State`` of arrays with a leading batch axis ``B``; card sets are
``uint64`` masks (layout in ``cards.py``). Kernels are free ``@njit`` functions
over ``(st, g, ...)`` where ``g`` is the game index in the batch; the rule
options and action offsets arrive as the ``prm`` int64 array built by
``kernel_params``. Random numbers come from an explicit per-game ``uint64``
state (splitmix64), never a global.

Protocol (RULES.md section 4): a round alternates attack volleys
(``ATTACK``) and defence (``DEFEND``). ``step`` applies one action and then
every forced move (a player with exactly one legal move is not asked), and
returns the number of legal actions of the next player, which it writes into
``buf``; ``0`` means the game is over.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .actions import ActionLayout
from .cards import BEATS, NUM_CARDS, RANK_MASK, SUIT_MASK
from .rules import TABLE_SLOTS, VARIANTS, Rules

MAX_PLAYERS = 8
ATTACK, DEFEND, OVER = 0, 1, 2
PROSTOY, PODKIDNOY, PEREVODNOY = 0, 1, 2
NO_SEAT = -1

# prm indices
P_N, P_HAND, P_LOW, P_DECK, P_VARIANT, P_NEIGHBORS = 0, 1, 2, 3, 4, 5
P_MAXA, P_FRMA, P_SHOW, A_PLAY, A_BEAT, A_TRANSFER, A_SHOW, A_N = 6, 7, 8, 9, 10, 11, 12, 13
NUM_PRM = 14

ONE = np.uint64(1)
ZERO = np.uint64(0)


class State(NamedTuple):
    """A batch of games. Scalars per game are ``int32[B]`` unless noted."""

    hands: np.ndarray  # uint64[B, P]
    known: np.ndarray  # uint64[B, P]: cards everyone saw arrive in (or shown from) a hand
    talon: np.ndarray  # int8[B, 52]: card ids, talon[g, top:end] top first
    talon_top: np.ndarray
    talon_end: np.ndarray
    discard: np.ndarray  # uint64[B]
    attack: np.ndarray  # int8[B, TABLE_SLOTS]: attack cards in play order
    cover: np.ndarray  # int8[B, TABLE_SLOTS]: covering card or -1
    n_attack: np.ndarray
    n_uncovered: np.ndarray
    table_ranks: np.ndarray  # uint64[B]: every card of a rank present on the table
    trump: np.ndarray  # suit
    trump_card: np.ndarray  # the face-up card (bottom of the talon), -1 if none
    attacker: np.ndarray
    defender: np.ndarray
    opener: np.ndarray  # main attacker when the round started
    to_act: np.ndarray
    phase: np.ndarray
    take: np.ndarray  # defender declared take
    limit: np.ndarray  # attack limit in force this round
    throwers: np.ndarray  # int32[B, P]: priority order
    n_throwers: np.ndarray
    thrower_idx: np.ndarray
    passes: np.ndarray  # passes since the last card was added
    shown: np.ndarray  # int32[B, P]: 1 if the player used `show` this round
    in_game: np.ndarray  # int32[B, P]
    out_order: np.ndarray  # int32[B, P]
    n_out: np.ndarray
    durak: np.ndarray  # seat, -1 while playing or on a draw
    rng: np.ndarray  # uint64[B]


def new_state(batch: int, num_players: int) -> State:
    """Allocate an all-empty batch (every game over until dealt)."""
    b, p = batch, num_players

    def i32(*shape, fill=0):
        return np.full(shape, fill, dtype=np.int32)

    return State(
        hands=np.zeros((b, p), np.uint64),
        known=np.zeros((b, p), np.uint64),
        talon=np.full((b, NUM_CARDS), -1, np.int8),
        talon_top=i32(b),
        talon_end=i32(b),
        discard=np.zeros(b, np.uint64),
        attack=np.full((b, TABLE_SLOTS), -1, np.int8),
        cover=np.full((b, TABLE_SLOTS), -1, np.int8),
        n_attack=i32(b),
        n_uncovered=i32(b),
        table_ranks=np.zeros(b, np.uint64),
        trump=i32(b),
        trump_card=i32(b, fill=-1),
        attacker=i32(b, fill=-1),
        defender=i32(b, fill=-1),
        opener=i32(b, fill=-1),
        to_act=i32(b, fill=-1),
        phase=i32(b, fill=OVER),
        take=i32(b),
        limit=i32(b),
        throwers=i32(b, p, fill=-1),
        n_throwers=i32(b),
        thrower_idx=i32(b),
        passes=i32(b),
        shown=i32(b, p),
        in_game=i32(b, p),
        out_order=i32(b, p, fill=-1),
        n_out=i32(b),
        durak=i32(b, fill=-1),
        rng=np.zeros(b, np.uint64),
    )


def kernel_params(rules: Rules) -> np.ndarray:
    lay = ActionLayout.of(rules)
    prm = np.zeros(NUM_PRM, np.int64)
    prm[P_N] = rules.num_players
    prm[P_HAND] = rules.hand_size
    prm[P_LOW] = rules.low_card
    prm[P_DECK] = rules.deck_size
    prm[P_VARIANT] = VARIANTS.index(rules.variant)
    prm[P_NEIGHBORS] = rules.throw_in == "neighbors"
    prm[P_MAXA] = rules.max_attack
    prm[P_FRMA] = rules.first_round_max_attack or 0
    prm[P_SHOW] = rules.transfer_show_trump
    prm[A_PLAY], prm[A_BEAT], prm[A_TRANSFER] = lay.play, lay.beat, lay.transfer
    prm[A_SHOW], prm[A_N] = lay.show, lay.n
    return prm


# ---------------------------------------------------------------- bit helpers


@njit(cache=True, inline="always")
def bit(c):
    return ONE << np.uint64(c)


@njit(cache=True, inline="always")
def low_card(m):
    return np.int64(trailing_zeros(m))


@njit(cache=True, inline="always")
def popcount(m):
    m = m - ((m >> np.uint64(1)) & np.uint64(0x5555555555555555))
    m = (m & np.uint64(0x3333333333333333)) + ((m >> np.uint64(2)) & np.uint64(0x3333333333333333))
    m = (m + (m >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((m * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def rng_next(st, g):
    """splitmix64 on the game's own RNG state."""
    s = st.rng[g] + np.uint64(0x9E3779B97F4A7C15)
    st.rng[g] = s
    z = (s ^ (s >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def rng_below(st, g, n):
    return np.int64(rng_next(st, g) % np.uint64(n))


# ---------------------------------------------------------------- seats


@njit(cache=True)
def next_in_game(st, g, p, n):
    """Next seat clockwise after p that is still in the game (p itself may have left)."""
    q = p
    for _ in range(n):
        q = (q + 1) % n
        if st.in_game[g, q]:
            return q
    return NO_SEAT


@njit(cache=True)
def hand_size(st, g, p):
    return popcount(st.hands[g, p])


@njit(cache=True)
def set_throwers(st, g, prm):
    n = prm[P_N]
    a, d = st.attacker[g], st.defender[g]
    st.throwers[g, 0] = a
    k = 1
    if prm[P_VARIANT] != PROSTOY:
        q = next_in_game(st, g, d, n)
        while q != d and q != NO_SEAT:
            if q != a:
                st.throwers[g, k] = q
                k += 1
                if prm[P_NEIGHBORS]:
                    break
            q = next_in_game(st, g, q, n)
    st.n_throwers[g] = k


@njit(cache=True)
def transfer_target(st, g, prm):
    """Next player after the defender who still holds a card, or -1."""
    n = prm[P_N]
    d = st.defender[g]
    q = next_in_game(st, g, d, n)
    while q != d and q != NO_SEAT:
        if st.hands[g, q] != ZERO:
            return q
        q = next_in_game(st, g, q, n)
    return NO_SEAT


# ---------------------------------------------------------------- legal actions


@njit(cache=True)
def _card_index(prm, c):
    return c - prm[P_LOW]


@njit(cache=True)
def _emit_cards(m, base, prm, buf, k):
    while m:
        c = low_card(m)
        m &= m - ONE
        buf[k] = base + c - prm[P_LOW]
        k += 1
    return k


@njit(cache=True)
def can_add_card(st, g):
    """Both attack limits allow one more attack card."""
    d = st.defender[g]
    return st.n_attack[g] < st.limit[g] and st.n_uncovered[g] < hand_size(st, g, d)


@njit(cache=True)
def legal_attack(st, g, prm, buf):
    hand = st.hands[g, st.to_act[g]]
    if st.n_attack[g] == 0:
        return _emit_cards(hand, prm[A_PLAY], prm, buf, 0)
    buf[0] = 0  # pass
    if not can_add_card(st, g):
        return 1
    return _emit_cards(hand & st.table_ranks[g], prm[A_PLAY], prm, buf, 1)


@njit(cache=True)
def legal_transfers(st, g, prm, buf, k):
    """transfer/show moves: only before any cover, towards a target with enough cards."""
    if prm[P_VARIANT] != PEREVODNOY or st.n_attack[g] != st.n_uncovered[g]:
        return k
    tgt = transfer_target(st, g, prm)
    if tgt == NO_SEAT:
        return k
    d = st.defender[g]
    same_rank = st.hands[g, d] & RANK_MASK[st.attack[g, 0] >> 2]
    room = hand_size(st, g, tgt)
    na = st.n_attack[g]
    if na + 1 <= st.limit[g] and room >= na + 1:
        k = _emit_cards(same_rank, prm[A_TRANSFER], prm, buf, k)
    if prm[P_SHOW] and st.shown[g, d] == 0 and room >= na:
        k = _emit_cards(same_rank & SUIT_MASK[st.trump[g]], prm[A_SHOW], prm, buf, k)
    return k


@njit(cache=True)
def legal_defend(st, g, prm, buf):
    buf[0] = 1  # take
    k = 1
    hand = st.hands[g, st.defender[g]]
    deck = prm[P_DECK]
    for i in range(st.n_attack[g]):
        if st.cover[g, i] < 0:
            a = st.attack[g, i]
            base = prm[A_BEAT] + (a - prm[P_LOW]) * deck
            k = _emit_cards(hand & BEATS[st.trump[g], a], base, prm, buf, k)
    return legal_transfers(st, g, prm, buf, k)


@njit(cache=True)
def legal_actions(st, g, prm, buf):
    """Write the legal action ids of the player to act into buf; return their count."""
    ph = st.phase[g]
    if ph == ATTACK:
        return legal_attack(st, g, prm, buf)
    if ph == DEFEND:
        return legal_defend(st, g, prm, buf)
    return 0


# ---------------------------------------------------------------- round flow


@njit(cache=True)
def start_volley(st, g):
    st.phase[g] = ATTACK
    st.thrower_idx[g] = 0
    st.passes[g] = 0
    st.to_act[g] = st.attacker[g]


@njit(cache=True)
def start_round(st, g, prm, attacker):
    n = prm[P_N]
    st.attacker[g] = attacker
    st.defender[g] = next_in_game(st, g, attacker, n)
    st.opener[g] = attacker
    st.n_attack[g] = 0
    st.n_uncovered[g] = 0
    st.table_ranks[g] = ZERO
    st.take[g] = 0
    for p in range(n):
        st.shown[g, p] = 0
    frma = prm[P_FRMA]
    st.limit[g] = frma if (frma > 0 and st.discard[g] == ZERO) else prm[P_MAXA]
    set_throwers(st, g, prm)
    start_volley(st, g)


@njit(cache=True)
def table_mask(st, g):
    m = ZERO
    for i in range(st.n_attack[g]):
        m |= bit(st.attack[g, i])
        if st.cover[g, i] >= 0:
            m |= bit(st.cover[g, i])
    return m


@njit(cache=True)
def draw_up(st, g, p, hand_n):
    while popcount(st.hands[g, p]) < hand_n and st.talon_top[g] < st.talon_end[g]:
        c = st.talon[g, st.talon_top[g]]
        st.talon_top[g] += 1
        st.hands[g, p] |= bit(c)
        if c == st.trump_card[g]:
            st.known[g, p] |= bit(c)


@njit(cache=True)
def draw_all(st, g, prm):
    """Opener first (or the player after him if he ended as defender), defender last."""
    n = prm[P_N]
    d = st.defender[g]
    first = st.opener[g]
    if first == d:
        first = next_in_game(st, g, first, n)
    p = first
    for _ in range(n):
        if st.in_game[g, p] and p != d:
            draw_up(st, g, p, prm[P_HAND])
        p = (p + 1) % n
    draw_up(st, g, d, prm[P_HAND])


@njit(cache=True)
def end_round(st, g, prm, taken):
    n = prm[P_N]
    d = st.defender[g]
    cards = table_mask(st, g)
    if taken:
        st.hands[g, d] |= cards
        st.known[g, d] |= cards
    else:
        st.discard[g] |= cards
    for i in range(st.n_attack[g]):
        st.attack[g, i] = -1
        st.cover[g, i] = -1
    st.n_attack[g] = 0
    st.n_uncovered[g] = 0
    draw_all(st, g, prm)
    if st.talon_top[g] >= st.talon_end[g]:
        for p in range(n):
            if st.in_game[g, p] and st.hands[g, p] == ZERO:
                st.in_game[g, p] = 0
                st.out_order[g, st.n_out[g]] = p
                st.n_out[g] += 1
    left = 0
    last = NO_SEAT
    for p in range(n):
        if st.in_game[g, p]:
            left += 1
            last = p
    if left <= 1:
        st.phase[g] = OVER
        st.durak[g] = last
        st.to_act[g] = NO_SEAT
        st.attacker[g] = NO_SEAT
        st.defender[g] = NO_SEAT
        return
    nxt = d if not taken else next_in_game(st, g, d, n)
    if not st.in_game[g, nxt]:
        nxt = next_in_game(st, g, nxt, n)
    start_round(st, g, prm, nxt)


@njit(cache=True)
def end_volley(st, g, prm):
    if st.take[g]:
        end_round(st, g, prm, True)
    elif st.n_uncovered[g] == 0:
        end_round(st, g, prm, False)
    else:
        st.phase[g] = DEFEND
        st.to_act[g] = st.defender[g]


# ---------------------------------------------------------------- applying moves


@njit(cache=True)
def add_attack_card(st, g, c):
    k = st.n_attack[g]
    st.attack[g, k] = c
    st.cover[g, k] = -1
    st.n_attack[g] = k + 1
    st.n_uncovered[g] += 1
    st.table_ranks[g] |= RANK_MASK[c >> 2]


@njit(cache=True)
def remove_from_hand(st, g, p, c):
    st.hands[g, p] &= ~bit(c)
    st.known[g, p] &= ~bit(c)


@njit(cache=True)
def do_play(st, g, c):
    remove_from_hand(st, g, st.to_act[g], c)
    add_attack_card(st, g, c)
    st.passes[g] = 0


@njit(cache=True)
def do_pass(st, g, prm):
    st.passes[g] += 1
    if st.passes[g] >= st.n_throwers[g]:
        end_volley(st, g, prm)
        return
    st.thrower_idx[g] = (st.thrower_idx[g] + 1) % st.n_throwers[g]
    st.to_act[g] = st.throwers[g, st.thrower_idx[g]]


@njit(cache=True)
def do_beat(st, g, prm, a, b):
    remove_from_hand(st, g, st.defender[g], b)
    for i in range(st.n_attack[g]):
        if st.attack[g, i] == a:
            st.cover[g, i] = b
    st.n_uncovered[g] -= 1
    st.table_ranks[g] |= RANK_MASK[b >> 2]
    if st.n_uncovered[g] > 0:
        return
    if prm[P_VARIANT] == PROSTOY:
        end_round(st, g, prm, False)
    else:
        start_volley(st, g)


@njit(cache=True)
def do_take(st, g, prm):
    if prm[P_VARIANT] == PROSTOY:
        end_round(st, g, prm, True)
        return
    st.take[g] = 1
    start_volley(st, g)


@njit(cache=True)
def do_transfer(st, g, prm, c, show):
    d = st.defender[g]
    tgt = transfer_target(st, g, prm)
    if show:
        st.known[g, d] |= bit(c)
        st.shown[g, d] = 1
    else:
        remove_from_hand(st, g, d, c)
        add_attack_card(st, g, c)
    st.attacker[g] = d
    st.defender[g] = tgt
    set_throwers(st, g, prm)
    start_volley(st, g)


@njit(cache=True)
def apply_action(st, g, prm, action):
    """Apply one legal action (no check; see ``step``)."""
    low = prm[P_LOW]
    if action == 0:
        do_pass(st, g, prm)
    elif action == 1:
        do_take(st, g, prm)
    elif action < prm[A_BEAT]:
        do_play(st, g, action - prm[A_PLAY] + low)
    elif action < prm[A_TRANSFER]:
        i = action - prm[A_BEAT]
        do_beat(st, g, prm, i // prm[P_DECK] + low, i % prm[P_DECK] + low)
    elif action < prm[A_SHOW]:
        do_transfer(st, g, prm, action - prm[A_TRANSFER] + low, False)
    else:
        do_transfer(st, g, prm, action - prm[A_SHOW] + low, True)


@njit(cache=True)
def play_forced(st, g, prm, buf, log):
    """Apply forced moves until somebody has a choice.

    The first ``len(log)`` forced moves are written to ``log`` (int32[L, 2] of
    seat, action). Returns (legal actions now in buf, forced moves applied).
    """
    k = 0
    while True:
        n = legal_actions(st, g, prm, buf)
        if n != 1:
            return n, k
        if k < log.shape[0]:
            log[k, 0] = st.to_act[g]
            log[k, 1] = buf[0]
        k += 1
        apply_action(st, g, prm, buf[0])


@njit(cache=True)
def step(st, g, prm, action, buf, log):
    """Apply a legal action and every forced move after it.

    Returns:
        (number of legal actions now in buf, number of forced moves applied).
    """
    apply_action(st, g, prm, action)
    return play_forced(st, g, prm, buf, log)


# ---------------------------------------------------------------- dealing


@njit(cache=True)
def first_attacker(st, g, prm):
    """Lowest trump in hand; else lowest-ranked card, ties to the lowest seat."""
    n = prm[P_N]
    best, best_key = NO_SEAT, 1 << 20
    for p in range(n):
        if not st.in_game[g, p]:
            continue
        trumps = st.hands[g, p] & SUIT_MASK[st.trump[g]]
        if trumps:
            key = low_card(trumps) >> 2
        else:
            key = 100 + (low_card(st.hands[g, p]) >> 2)
        if key < best_key:
            best, best_key = p, key
    return best


@njit(cache=True)
def deal(st, g, prm, hands, talon, talon_len, discard, trump, trump_card, attacker):
    """Set game g to the start of a round: the one path for random and given deals.

    ``hands`` uint64[P]; ``talon`` int8[52] top first; ``attacker`` -1 picks by rule.
    """
    n = prm[P_N]
    for p in range(n):
        st.hands[g, p] = hands[p]
        st.known[g, p] = ZERO
        st.in_game[g, p] = 1 if hands[p] != ZERO else 0
        st.out_order[g, p] = -1
        st.shown[g, p] = 0
    for i in range(NUM_CARDS):
        st.talon[g, i] = talon[i] if i < talon_len else -1
    st.talon_top[g] = 0
    st.talon_end[g] = talon_len
    st.discard[g] = discard
    st.trump[g] = trump
    st.trump_card[g] = trump_card
    for i in range(st.attack.shape[1]):
        st.attack[g, i] = -1
        st.cover[g, i] = -1
    st.n_out[g] = 0
    st.durak[g] = NO_SEAT
    if attacker < 0:
        attacker = first_attacker(st, g, prm)
    start_round(st, g, prm, attacker)


@njit(cache=True)
def deal_random(st, g, prm):
    """Shuffle the deck with the game's RNG and deal it (RULES.md section 2)."""
    n, h, low = prm[P_N], prm[P_HAND], prm[P_LOW]
    size = NUM_CARDS - low
    deck = np.empty(NUM_CARDS, np.int8)
    for i in range(size):
        deck[i] = low + i
    for i in range(size - 1, 0, -1):
        j = rng_below(st, g, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands = np.zeros(n, np.uint64)
    for p in range(n):
        for i in range(p * h, (p + 1) * h):
            hands[p] |= bit(deck[i])
    talon = np.full(NUM_CARDS, -1, np.int8)
    rest = size - n * h
    for i in range(rest):
        talon[i] = deck[n * h + i]
    trump_card = deck[size - 1]
    trump = trump_card & 3
    face_up = trump_card if rest > 0 else -1
    deal(st, g, prm, hands, talon, rest, ZERO, trump, face_up, -1)


@njit(cache=True)
def rewards(st, g, prm, out):
    """RULES.md section 6 into out[P]: zeros until the game is over."""
    n = prm[P_N]
    for p in range(n):
        out[p] = 0.0
    if st.phase[g] != OVER or st.durak[g] < 0:
        return
    for p in range(n):
        out[p] = 1.0 / (n - 1)
    out[st.durak[g]] = -1.0


# ---------------------------------------------------------------- batched play


@njit(cache=True)
def seed_games(st, seeds):
    for g in range(seeds.shape[0]):
        st.rng[g] = np.uint64(seeds[g])
        rng_next(st, g)


@njit(cache=True)
def random_game(st, g, prm, buf, log):
    """Deal and play one game with uniformly random legal moves; return decisions."""
    deal_random(st, g, prm)
    n, _ = play_forced(st, g, prm, buf, log)
    decisions = 0
    while n > 0:
        a = buf[rng_below(st, g, n)]
        n, _ = step(st, g, prm, a, buf, log)
        decisions += 1
    return decisions
