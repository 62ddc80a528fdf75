"""Cards: ids, 64-bit card-set masks, notation, and the precomputed tables.

This module is the only place that knows the card layout. A card id is
``rank * 4 + suit`` with ranks ``0..12`` for ``2..A`` and suits ``0..3`` for
``S C D H``; a set of cards is a ``uint64`` with bit ``id`` set. Because ranks
are the major key, each deck (24, 36, 52 cards) is a contiguous id range ending
at 51, and "lower id" sorts by rank first.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba.extending import register_jitable

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_NAMES = ("S", "C", "D", "H")
SUIT_SYMBOLS = ("♠", "♣", "♦", "♥")
NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = NUM_RANKS * NUM_SUITS
NO_CARD = -1

DECK_SIZES = (24, 36, 52)
# Lowest rank index of each deck: 24 cards are 9..A, 36 are 6..A, 52 are 2..A.
DECK_LOW_RANK = {24: 7, 36: 4, 52: 0}

_RANK_ALIASES = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": 8}
_SUIT_ALIASES = {name: i for i, name in enumerate(SUIT_NAMES)} | {
    sym: i for i, sym in enumerate(SUIT_SYMBOLS)
}


def card_id(rank: int, suit: int) -> int:
    return rank * NUM_SUITS + suit


# rank_of and suit_of also compile inside kernels (register_jitable); with four suits the
# division is a shift and the remainder a mask.
@register_jitable
def rank_of(card: int) -> int:
    """Rank index ``0..12`` (``2..A``) of a card id."""
    return card >> 2


@register_jitable
def suit_of(card: int) -> int:
    """Suit index ``0..3`` (``S C D H``) of a card id."""
    return card & 3


def deck_low_card(deck_size: int) -> int:
    """Id of the lowest card of a deck; the deck is ids ``low .. 51``."""
    return card_id(DECK_LOW_RANK[deck_size], 0)


def deck_mask(deck_size: int) -> int:
    return sum(1 << c for c in range(deck_low_card(deck_size), NUM_CARDS))


def parse_card(text: str) -> int:
    """Parse ``7C``, ``10h``, ``TH``, ``q♠`` into a card id.

    Raises:
        ValueError: if the text is not a card.
    """
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string such as '7C', got {text!r}")
    s = text.strip()
    if len(s) < 2:
        raise ValueError(f"not a card: {text!r} (expected rank then suit, e.g. '7C')")
    rank = _RANK_ALIASES.get(s[:-1].upper())
    suit = _SUIT_ALIASES.get(s[-1].upper())
    if rank is None or suit is None:
        raise ValueError(f"not a card: {text!r} (expected rank then suit, e.g. '7C', '10H')")
    return card_id(rank, suit)


def format_card(card: int) -> str:
    """Canonical notation of a card id, e.g. ``10H``."""
    return RANK_NAMES[rank_of(card)] + SUIT_NAMES[suit_of(card)]


def pretty_card(card: int) -> str:
    """The card with its Unicode suit symbol, e.g. ``10♥``."""
    return RANK_NAMES[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]


def parse_suit(text: str) -> int:
    suit = _SUIT_ALIASES.get(str(text).strip().upper())
    if suit is None:
        raise ValueError(f"not a suit: {text!r} (expected one of S, C, D, H)")
    return suit


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> list[int]:
    """Card ids in a mask, lowest first."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def format_mask(mask: int) -> list[str]:
    return [format_card(c) for c in cards_of(mask)]


def _build_tables():
    suit_mask = np.zeros(NUM_SUITS, dtype=np.uint64)
    rank_mask = np.zeros(NUM_RANKS, dtype=np.uint64)
    for c in range(NUM_CARDS):
        suit_mask[suit_of(c)] |= np.uint64(1 << c)
        rank_mask[rank_of(c)] |= np.uint64(1 << c)
    # BEATS[trump, a]: every card that beats attack card a when `trump` is the trump suit.
    beats = np.zeros((NUM_SUITS, NUM_CARDS), dtype=np.uint64)
    for t in range(NUM_SUITS):
        for a in range(NUM_CARDS):
            m = 0
            for b in range(NUM_CARDS):
                same_suit_higher = suit_of(b) == suit_of(a) and rank_of(b) > rank_of(a)
                trump_on_plain = suit_of(b) == t and suit_of(a) != t
                if same_suit_higher or trump_on_plain:
                    m |= 1 << b
            beats[t, a] = np.uint64(m)
    return suit_mask, rank_mask, beats


SUIT_MASK, RANK_MASK, BEATS = _build_tables()
