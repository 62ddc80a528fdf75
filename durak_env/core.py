"""The numba core: the only implementation of the rules in the product.

A batch of games is one record array ``st`` of ``STATE_DTYPE`` (leading batch
axis; per-seat fields sized ``MAX_PLAYERS``); card sets are ``uint64`` masks
(layout in ``cards.py``). Kernels are free ``@njit`` functions over one game's
record ``r = st[g]``: a record is passed as a single pointer, while a tuple of
arrays would be unboxed field by field at every call. The rule options and
action offsets arrive as the ``prm`` int64 array built by ``kernel_params``.
Random numbers come from an explicit per-game ``uint64`` state (splitmix64),
never a global. Python calls the ``*_at(st, g, ...)`` entry points; kernels that
loop over many core calls (the benchmark, the searches) first take their array
arguments through ``borrowed``, which keeps atomic reference counting off the hot path.

Protocol (docs/rules.md section 4): a round alternates attack volleys
(``ATTACK``) and defence (``DEFEND``). ``step`` applies one action and then
every forced move (a player with exactly one legal move is not asked), and
returns the number of legal actions of the next player, which it writes into
``buf``; ``0`` means the game is over.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from .actions import (
    K_BEAT,
    K_PASS,
    K_PLAY,
    K_SHOW,
    K_TAKE,
    PASS,
    TAKE,
    ActionLayout,
    action_card,
    action_kind,
    beaten_card,
)
from .cards import BEATS, NUM_CARDS, RANK_MASK, SUIT_MASK, rank_of, suit_of
from .rules import (  # noqa: F401 - the kernel-parameter slots, read as core.P_* / core.A_*
    A_BEAT,
    A_N,
    A_PLAY,
    A_SHOW,
    A_TRANSFER,
    NUM_PRM,
    P_DECK,
    P_FRMA,
    P_HAND,
    P_LOW,
    P_MAXA,
    P_N,
    P_NEIGHBORS,
    P_SHOW,
    P_VARIANT,
    TABLE_SLOTS,
    VARIANTS,
    Rules,
)

MAX_PLAYERS = 8
ATTACK, DEFEND, OVER = 0, 1, 2
PROSTOY, PODKIDNOY, PEREVODNOY = 0, 1, 2
NO_SEAT = -1

ONE = np.uint64(1)
ZERO = np.uint64(0)


def _state_dtype():
    i4, u8, p = np.int32, np.uint64, MAX_PLAYERS
    return np.dtype(
        [
            ("hands", u8, (p,)),  # card masks per seat
            ("known", u8, (p,)),  # cards everyone saw arrive in (or shown from) a hand
            ("discard", u8),
            ("table_ranks", u8),  # every card of a rank present on the table
            ("rng", u8),  # splitmix64 state
            ("talon", np.int8, (NUM_CARDS,)),  # card ids, talon[talon_top:talon_end], top first
            ("attack", np.int8, (TABLE_SLOTS,)),  # attack cards in play order
            ("cover", np.int8, (TABLE_SLOTS,)),  # covering card or -1
            ("throwers", i4, (p,)),  # priority order
            ("shown", i4, (p,)),  # 1 if the seat used `show` this round
            ("in_game", i4, (p,)),
            ("out_order", i4, (p,)),
            ("talon_top", i4),
            ("talon_end", i4),
            ("n_attack", i4),
            ("n_uncovered", i4),
            ("trump", i4),  # suit
            ("trump_card", i4),  # the face-up card (bottom of the talon), -1 if none
            ("attacker", i4),
            ("defender", i4),
            ("opener", i4),  # main attacker when the round started
            ("to_act", i4),
            ("phase", i4),
            ("take", i4),  # defender declared take
            ("limit", i4),  # attack limit in force this round
            ("n_throwers", i4),
            ("thrower_idx", i4),
            ("passes", i4),  # passes since the last card was added
            ("n_out", i4),
            ("durak", i4),  # seat, -1 while playing or on a draw
        ],
        align=True,
    )


STATE_DTYPE = _state_dtype()


def fresh_seed(bound: int = 1 << 63) -> int:
    """A seed in ``0..bound-1`` from the operating system's entropy, for when none is given."""
    return int(np.random.SeedSequence().entropy % bound)


def new_state(batch: int) -> np.ndarray:
    """Allocate a batch of games (a record array of ``STATE_DTYPE``), all over until dealt."""
    st = np.zeros(batch, STATE_DTYPE)
    for field in ("talon", "attack", "cover", "throwers", "out_order"):
        st[field] = -1
    for field in ("trump_card", "attacker", "defender", "opener", "to_act", "durak"):
        st[field] = -1
    st["phase"] = OVER
    return st


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


# ---------------------------------------------------------------- borrowed arrays


@intrinsic
def borrowed(typingctx, arr):
    """``arr`` without its reference count, for a kernel's own array arguments.

    Every call between kernels that passes an array otherwise updates the array's
    reference count with an atomic instruction, which on the engine's hot paths costs
    more than the game itself (``python -m durak_env.bench`` measures it). A parallel
    (``prange``) kernel's body already sees its arrays this way. Only for arguments of
    the kernel that borrows them (the caller keeps them alive for the call) and never
    for an array that leaves the kernel (returned or stored).
    """

    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        return ary._getvalue()

    return arr(arr), codegen


# ---------------------------------------------------------------- bit helpers


@njit(cache=True, inline="always")
def bit(c):
    return ONE << np.uint64(c)


@njit(cache=True, inline="always")
def deck_in_play(prm):
    """The mask of the cards in play: ids ``P_LOW`` up to the last card."""
    return ~(bit(prm[P_LOW]) - ONE) & (bit(NUM_CARDS) - ONE)


@njit(cache=True, inline="always")
def low_card(m):
    return np.int64(trailing_zeros(m))


@njit(cache=True, inline="always")
def popcount(m):
    m = m - ((m >> np.uint64(1)) & np.uint64(0x5555555555555555))
    m = (m & np.uint64(0x3333333333333333)) + ((m >> np.uint64(2)) & np.uint64(0x3333333333333333))
    m = (m + (m >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((m * np.uint64(0x0101010101010101)) >> np.uint64(56))


# splitmix64: the state advances by GOLDEN_GAMMA, the output is mix64 of the state.
GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def mix64(z):
    """The splitmix64 output mixer: a bijective 64-bit hash of ``z`` (uint64)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def rng_next(r):
    """splitmix64 on the game's own RNG state."""
    s = r.rng + GOLDEN_GAMMA
    r.rng = s
    return mix64(s)


@njit(cache=True, inline="always")
def rng_below(r, n):
    return np.int64(rng_next(r) % np.uint64(n))


# ---------------------------------------------------------------- seats


@njit(cache=True)
def next_in_game(r, p, n):
    """Next seat clockwise after p that is still in the game (p itself may have left)."""
    q = p
    for _ in range(n):
        q = (q + 1) % n
        if r.in_game[q]:
            return q
    return NO_SEAT


@njit(cache=True)
def hand_size(r, p):
    return popcount(r.hands[p])


@njit(cache=True)
def set_throwers(r, prm):
    """Priority order: the main attacker, then clockwise from the player after the
    defender (``neighbors``: only that player, unless he is the main attacker)."""
    n = prm[P_N]
    a, d = r.attacker, r.defender
    r.throwers[0] = a
    k = 1
    if prm[P_VARIANT] != PROSTOY:
        q = next_in_game(r, d, n)
        while q != d and q != NO_SEAT:
            if q != a:
                r.throwers[k] = q
                k += 1
            if prm[P_NEIGHBORS]:
                break
            q = next_in_game(r, q, n)
    r.n_throwers = k


@njit(cache=True)
def transfer_target(r, prm):
    """Next player after the defender who still holds a card, or -1."""
    n = prm[P_N]
    d = r.defender
    q = next_in_game(r, d, n)
    while q != d and q != NO_SEAT:
        if r.hands[q] != ZERO:
            return q
        q = next_in_game(r, q, n)
    return NO_SEAT


# ---------------------------------------------------------------- legal actions


@njit(cache=True)
def _emit_cards(m, base, prm, buf, k):
    while m:
        c = low_card(m)
        m &= m - ONE
        buf[k] = base + c - prm[P_LOW]
        k += 1
    return k


@njit(cache=True)
def can_add_card(r):
    """Both attack limits allow one more attack card."""
    d = r.defender
    return r.n_attack < r.limit and r.n_uncovered < hand_size(r, d)


@njit(cache=True)
def legal_attack(r, prm, buf):
    hand = r.hands[r.to_act]
    if r.n_attack == 0:
        return _emit_cards(hand, prm[A_PLAY], prm, buf, 0)
    buf[0] = PASS
    if not can_add_card(r):
        return 1
    return _emit_cards(hand & r.table_ranks, prm[A_PLAY], prm, buf, 1)


@njit(cache=True)
def legal_transfers(r, prm, buf, k):
    """transfer/show moves: only before any cover, towards a target with enough cards."""
    if prm[P_VARIANT] != PEREVODNOY or r.n_attack != r.n_uncovered:
        return k
    tgt = transfer_target(r, prm)
    if tgt == NO_SEAT:
        return k
    d = r.defender
    same_rank = r.hands[d] & RANK_MASK[rank_of(r.attack[0])]
    room = hand_size(r, tgt)
    na = r.n_attack
    if na + 1 <= r.limit and room >= na + 1:
        k = _emit_cards(same_rank, prm[A_TRANSFER], prm, buf, k)
    if prm[P_SHOW] and r.shown[d] == 0 and room >= na:
        k = _emit_cards(same_rank & SUIT_MASK[r.trump], prm[A_SHOW], prm, buf, k)
    return k


@njit(cache=True)
def legal_defend(r, prm, buf):
    buf[0] = TAKE
    k = 1
    hand = r.hands[r.defender]
    deck = prm[P_DECK]
    for i in range(r.n_attack):
        if r.cover[i] < 0:
            a = r.attack[i]
            base = prm[A_BEAT] + (a - prm[P_LOW]) * deck
            k = _emit_cards(hand & BEATS[r.trump, a], base, prm, buf, k)
    return legal_transfers(r, prm, buf, k)


@njit(cache=True)
def legal_actions(r, prm, buf):
    """Write the legal action ids of the player to act into buf; return their count."""
    ph = r.phase
    if ph == ATTACK:
        return legal_attack(r, prm, buf)
    if ph == DEFEND:
        return legal_defend(r, prm, buf)
    return 0


# ---------------------------------------------------------------- round flow


@njit(cache=True)
def start_volley(r):
    r.phase = ATTACK
    r.thrower_idx = 0
    r.passes = 0
    r.to_act = r.attacker


@njit(cache=True)
def start_round(r, prm, attacker):
    n = prm[P_N]
    r.attacker = attacker
    r.defender = next_in_game(r, attacker, n)
    r.opener = attacker
    r.n_attack = 0
    r.n_uncovered = 0
    r.table_ranks = ZERO
    r.take = 0
    for p in range(n):
        r.shown[p] = 0
    frma = prm[P_FRMA]
    r.limit = frma if (frma > 0 and r.discard == ZERO) else prm[P_MAXA]
    set_throwers(r, prm)
    start_volley(r)


@njit(cache=True)
def table_mask(r):
    m = ZERO
    for i in range(r.n_attack):
        m |= bit(r.attack[i])
        if r.cover[i] >= 0:
            m |= bit(r.cover[i])
    return m


@njit(cache=True)
def draw_up(r, p, hand_n):
    while popcount(r.hands[p]) < hand_n and r.talon_top < r.talon_end:
        c = r.talon[r.talon_top]
        r.talon_top += 1
        r.hands[p] |= bit(c)
        if c == r.trump_card:
            r.known[p] |= bit(c)


@njit(cache=True)
def draw_all(r, prm):
    """Opener first (or the player after him if he ended as defender), defender last."""
    n = prm[P_N]
    d = r.defender
    first = r.opener
    if first == d:
        first = next_in_game(r, first, n)
    p = first
    for _ in range(n):
        if r.in_game[p] and p != d:
            draw_up(r, p, prm[P_HAND])
        p = (p + 1) % n
    draw_up(r, d, prm[P_HAND])


@njit(cache=True)
def end_round(r, prm, taken):
    n = prm[P_N]
    d = r.defender
    cards = table_mask(r)
    if taken:
        r.hands[d] |= cards
        r.known[d] |= cards
    else:
        r.discard |= cards
    for i in range(r.n_attack):
        r.attack[i] = -1
        r.cover[i] = -1
    r.n_attack = 0
    r.n_uncovered = 0
    draw_all(r, prm)
    if r.talon_top >= r.talon_end:
        for p in range(n):
            if r.in_game[p] and r.hands[p] == ZERO:
                r.in_game[p] = 0
                r.out_order[r.n_out] = p
                r.n_out += 1
    left = 0
    last = NO_SEAT
    for p in range(n):
        if r.in_game[p]:
            left += 1
            last = p
    if left <= 1:
        r.phase = OVER
        r.durak = last
        r.to_act = NO_SEAT
        r.attacker = NO_SEAT
        r.defender = NO_SEAT
        return
    nxt = d if not taken else next_in_game(r, d, n)
    if not r.in_game[nxt]:
        nxt = next_in_game(r, nxt, n)
    start_round(r, prm, nxt)


@njit(cache=True)
def end_volley(r, prm):
    if r.take:
        end_round(r, prm, True)
    elif r.n_uncovered == 0:
        end_round(r, prm, False)
    else:
        r.phase = DEFEND
        r.to_act = r.defender


# ---------------------------------------------------------------- applying moves


@njit(cache=True)
def add_attack_card(r, c):
    k = r.n_attack
    r.attack[k] = c
    r.cover[k] = -1
    r.n_attack = k + 1
    r.n_uncovered += 1
    r.table_ranks |= RANK_MASK[rank_of(c)]


@njit(cache=True)
def remove_from_hand(r, p, c):
    r.hands[p] &= ~bit(c)
    r.known[p] &= ~bit(c)


@njit(cache=True)
def do_play(r, c):
    remove_from_hand(r, r.to_act, c)
    add_attack_card(r, c)
    r.passes = 0


@njit(cache=True)
def do_pass(r, prm):
    r.passes += 1
    if r.passes >= r.n_throwers:
        end_volley(r, prm)
        return
    r.thrower_idx = (r.thrower_idx + 1) % r.n_throwers
    r.to_act = r.throwers[r.thrower_idx]


@njit(cache=True)
def do_beat(r, prm, a, b):
    remove_from_hand(r, r.defender, b)
    for i in range(r.n_attack):
        if r.attack[i] == a:
            r.cover[i] = b
    r.n_uncovered -= 1
    r.table_ranks |= RANK_MASK[rank_of(b)]
    if r.n_uncovered > 0:
        return
    if prm[P_VARIANT] == PROSTOY:
        end_round(r, prm, False)
    else:
        start_volley(r)


@njit(cache=True)
def do_take(r, prm):
    if prm[P_VARIANT] == PROSTOY:
        end_round(r, prm, True)
        return
    r.take = 1
    start_volley(r)


@njit(cache=True)
def do_transfer(r, prm, c, show):
    d = r.defender
    tgt = transfer_target(r, prm)
    if show:
        r.known[d] |= bit(c)
        r.shown[d] = 1
    else:
        remove_from_hand(r, d, c)
        add_attack_card(r, c)
    r.attacker = d
    r.defender = tgt
    set_throwers(r, prm)
    start_volley(r)


@njit(cache=True)
def apply_action(r, prm, action):
    """Apply one legal action (no check; see ``step``)."""
    kind = action_kind(prm, action)
    if kind == K_PASS:
        do_pass(r, prm)
    elif kind == K_TAKE:
        do_take(r, prm)
    elif kind == K_PLAY:
        do_play(r, action_card(prm, action))
    elif kind == K_BEAT:
        do_beat(r, prm, beaten_card(prm, action), action_card(prm, action))
    else:
        do_transfer(r, prm, action_card(prm, action), kind == K_SHOW)


@njit(cache=True)
def play_forced(r, prm, buf, log):
    """Apply forced moves until somebody has a choice.

    The first ``len(log)`` forced moves are written to ``log`` (int32[L, 2] of
    seat, action). Returns (legal actions now in buf, forced moves applied).
    """
    k = 0
    while True:
        n = legal_actions(r, prm, buf)
        if n != 1:
            return n, k
        if k < log.shape[0]:
            log[k, 0] = r.to_act
            log[k, 1] = buf[0]
        k += 1
        apply_action(r, prm, buf[0])


@njit(cache=True)
def step(r, prm, action, buf, log):
    """Apply a legal action and every forced move after it.

    Returns:
        (number of legal actions now in buf, number of forced moves applied).
    """
    apply_action(r, prm, action)
    return play_forced(r, prm, buf, log)


# ---------------------------------------------------------------- dealing


@njit(cache=True)
def first_attacker(r, prm):
    """Lowest trump in hand; else lowest-ranked card, ties to the lowest seat."""
    n = prm[P_N]
    best, best_key = NO_SEAT, 1 << 20
    for p in range(n):
        if not r.in_game[p]:
            continue
        trumps = r.hands[p] & SUIT_MASK[r.trump]
        if trumps:  # noqa: SIM108
            key = rank_of(low_card(trumps))
        else:
            key = 100 + rank_of(low_card(r.hands[p]))
        if key < best_key:
            best, best_key = p, key
    return best


@njit(cache=True)
def _setup(r, prm, talon_len, discard, trump, trump_card, attacker):
    """Finish a deal whose hands and talon are in place: the path every deal takes."""
    n = prm[P_N]
    for p in range(MAX_PLAYERS):
        r.known[p] = ZERO
        r.in_game[p] = 1 if (p < n and r.hands[p] != ZERO) else 0
        r.out_order[p] = -1
        r.shown[p] = 0
    for i in range(talon_len, NUM_CARDS):
        r.talon[i] = -1
    r.talon_top = 0
    r.talon_end = talon_len
    r.discard = discard
    r.trump = trump
    r.trump_card = trump_card
    for i in range(TABLE_SLOTS):
        r.attack[i] = -1
        r.cover[i] = -1
    r.n_attack = 0
    r.n_uncovered = 0
    r.n_out = 0
    r.durak = NO_SEAT
    if attacker < 0:
        attacker = first_attacker(r, prm)
    start_round(r, prm, attacker)


@njit(cache=True)
def deal(r, prm, hands, talon, talon_len, discard, trump, trump_card, attacker):
    """Set a game to a given start-of-round position.

    ``hands`` uint64[P]; ``talon`` int8[>= talon_len] top first; ``trump_card`` the
    face-up card or -1; ``attacker`` -1 picks by the rule of docs/rules.md section 2.
    """
    for p in range(MAX_PLAYERS):
        r.hands[p] = hands[p] if p < prm[P_N] else ZERO
    for i in range(talon_len):
        r.talon[i] = talon[i]
    _setup(r, prm, talon_len, discard, trump, trump_card, attacker)


@njit(cache=True)
def deal_random(r, prm):
    """Shuffle the deck with the game's RNG and deal it (docs/rules.md section 2)."""
    n, h, low = prm[P_N], prm[P_HAND], prm[P_LOW]
    size = NUM_CARDS - low
    deck = r.talon  # shuffled in place, then the hands are taken off its top
    for i in range(size):
        deck[i] = low + i
    for i in range(size - 1, 0, -1):
        j = rng_below(r, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for p in range(MAX_PLAYERS):
        m = ZERO
        if p < n:
            for i in range(p * h, (p + 1) * h):
                m |= bit(deck[i])
        r.hands[p] = m
    last = deck[size - 1]
    rest = size - n * h
    for i in range(rest):
        deck[i] = deck[n * h + i]
    face_up = last if rest > 0 else -1
    _setup(r, prm, rest, ZERO, suit_of(last), face_up, -1)


@njit(cache=True)
def rewards(r, prm, out):
    """docs/rules.md section 6 into out[P]: zeros until the game is over."""
    n = prm[P_N]
    for p in range(n):
        out[p] = 0.0
    if r.phase != OVER or r.durak < 0:
        return
    for p in range(n):
        out[p] = 1.0 / (n - 1)
    out[r.durak] = -1.0


# ---------------------------------------------------------------- batched play


@njit(cache=True)
def seed_games(st, seeds):
    """Seed each game's RNG (splitmix64 needs no warm-up beyond one draw)."""
    for g in range(seeds.shape[0]):
        st[g].rng = np.uint64(seeds[g])
        rng_next(st[g])


@njit(cache=True)
def random_game(r, prm, buf, log):
    """Deal and play one game with uniformly random legal moves; return decisions."""
    deal_random(r, prm)
    n, _ = play_forced(r, prm, buf, log)
    decisions = 0
    while n > 0:
        a = buf[rng_below(r, n)]
        n, _ = step(r, prm, a, buf, log)
        decisions += 1
    return decisions


# ---------------------------------------------------------------- entry points from Python
# (a record passed from Python would be copied; these take the array and an index)


@njit(cache=True)
def step_at(st, g, prm, action, buf, log):
    return step(st[g], prm, action, buf, log)


@njit(cache=True)
def play_forced_at(st, g, prm, buf, log):
    return play_forced(st[g], prm, buf, log)


@njit(cache=True)
def legal_actions_at(st, g, prm, buf):
    return legal_actions(st[g], prm, buf)


@njit(cache=True)
def deal_at(st, g, prm, hands, talon, talon_len, discard, trump, trump_card, attacker):
    deal(st[g], prm, hands, talon, talon_len, discard, trump, trump_card, attacker)


@njit(cache=True)
def deal_random_at(st, g, prm):
    deal_random(st[g], prm)


@njit(cache=True)
def rewards_at(st, g, prm, out):
    rewards(st[g], prm, out)
