"""Checking a given deal: the one path by which a position enters the engine from outside.

``Game.from_deal``, the environments' ``reset(options={"deal": ...})`` and game records
all describe a start-of-round position by the same keywords, ``DEAL_KEYS``; ``check_deal``
turns them into card ids and masks, or raises ``ValueError`` naming the field that is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import deck_mask, format_card, format_mask, mask_of, parse_card, parse_suit, suit_of

# The keywords of a deal (``Game.from_deal``'s arguments after ``rules``), in order.
DEAL_KEYS = ("hands", "talon", "discard", "trump", "first_attacker")


def _parse_cards(field: str, cards) -> list[int]:
    if isinstance(cards, str) or not isinstance(cards, Sequence):
        raise ValueError(f"{field} must be a list of cards, got {cards!r}")
    try:
        return [parse_card(c) for c in cards]
    except ValueError as e:
        raise ValueError(f"{field}: {e}") from None


def check_deal(rules, hands, talon, discard, trump, first_attacker) -> dict:
    """Validate a deal (the ``DEAL_KEYS``) into card ids: hands and discard as masks, the talon
    as ids top first, the trump suit and the face-up card (-1 if none).

    Raises:
        ValueError: naming the field that makes the position invalid.
    """
    n = rules.num_players
    if isinstance(hands, str) or not isinstance(hands, Sequence) or len(hands) != n:
        got = len(hands) if isinstance(hands, Sequence) else hands
        raise ValueError(f"hands must be a list of {n} hands (num_players={n}), got {got!r}")
    hand_ids = [_parse_cards(f"hands[{p}]", h) for p, h in enumerate(hands)]
    talon_ids = _parse_cards("talon", talon)
    discard_ids = _parse_cards("discard", discard)
    _check_partition(rules, hand_ids, talon_ids, discard_ids)
    holding = [p for p, h in enumerate(hand_ids) if h]
    if talon_ids and len(holding) < n:
        empty = [p for p in range(n) if p not in holding]
        raise ValueError(
            f"hands: seats {empty} have no cards, which is allowed only once the talon is empty"
        )
    if len(holding) < 2:
        raise ValueError(f"hands: at least two hands must hold cards, got {len(holding)}")
    trump_card = talon_ids[-1] if talon_ids else -1
    trump_id = _check_trump(trump, trump_card)
    if first_attacker is not None:
        if isinstance(first_attacker, bool) or not isinstance(first_attacker, int | np.integer):
            raise ValueError(
                f"first_attacker must be a seat number or None, got {first_attacker!r}"
            )
        if first_attacker not in holding:
            raise ValueError(
                f"first_attacker={first_attacker} is not a seat in the game "
                f"(seats holding cards: {holding})"
            )
    return {
        "hands": [mask_of(h) for h in hand_ids],
        "talon": talon_ids,
        "discard": mask_of(discard_ids),
        "trump": trump_id,
        "trump_card": trump_card,
    }


def _check_partition(rules, hand_ids, talon_ids, discard_ids):
    deck = deck_mask(rules.deck_size)
    seen: dict[int, str] = {}
    places = [(f"hands[{p}]", h) for p, h in enumerate(hand_ids)]
    for where, ids in places + [("talon", talon_ids), ("discard", discard_ids)]:
        field = where.split("[")[0]
        for c in ids:
            if not deck >> c & 1:
                raise ValueError(
                    f"{field}: {format_card(c)} is not in the {rules.deck_size}-card deck"
                )
            if c in seen:
                raise ValueError(f"{field}: {format_card(c)} appears twice (also in {seen[c]})")
            seen[c] = where
    missing = deck & ~mask_of(seen)
    if missing:
        raise ValueError(
            "hands, talon and discard must partition the deck; "
            f"missing: {' '.join(format_mask(missing))}"
        )


def _check_trump(trump, trump_card) -> int:
    if trump is None:
        if trump_card < 0:
            raise ValueError("trump must be given when the talon is empty")
        return suit_of(trump_card)
    try:
        suit = parse_suit(trump)
    except ValueError as e:
        raise ValueError(f"trump: {e}") from None
    if trump_card >= 0 and suit != suit_of(trump_card):
        raise ValueError(
            f"trump={trump!r} contradicts the face-up card {format_card(trump_card)} "
            "at the bottom of the talon"
        )
    return suit
