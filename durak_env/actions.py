"""Action ids: a fixed ``Discrete(n)`` space per ``Rules``, built from named offsets.

With ``D = deck_size`` and ``i(c) = card id - lowest card id of the deck``:

=================  ===========================  =====================================
block              ids                          move
=================  ===========================  =====================================
``PASS``           ``0``                        ``pass``
``TAKE``           ``1``                        ``take``
``play``           ``play + i(c)``              ``play C``: open, add or throw in C
``beat``           ``beat + i(a) * D + i(b)``   ``beat A B``: cover attack card A with B
``transfer``       ``transfer + i(c)``          ``transfer C`` (perevodnoy only)
``show``           ``show + i(c)``              ``show C`` (``transfer_show_trump`` only)
=================  ===========================  =====================================

Blocks that the rules cannot use are empty, so ``n`` is
``2 + D + D*D`` for prostoy/podkidnoy, ``+ D`` for perevodnoy and ``+ D`` more
with ``transfer_show_trump`` (36 cards: 1334, 1370, 1406).

Kernels decode with ``action_kind``, ``action_card`` and ``beaten_card``, which read the
same offsets from the kernel parameters (``core.kernel_params``).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np
from numba import njit

from .cards import NO_CARD, format_card, parse_card
from .rules import A_BEAT, A_PLAY, A_SHOW, A_TRANSFER, P_DECK, P_LOW, Rules

PASS = 0
TAKE = 1
# The block an action id belongs to, as ``ActionLayout.unpack`` and ``action_kind`` give it.
K_PASS, K_TAKE, K_PLAY, K_BEAT, K_TRANSFER, K_SHOW = 0, 1, 2, 3, 4, 5
VERBS = ("pass", "take", "play", "beat", "transfer", "show")  # indexed by kind


class IllegalMoveError(ValueError):
    """A move that is malformed or not legal in the current position."""


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of the action blocks for one ``Rules``; see the module docstring."""

    deck_size: int
    low_card: int
    play: int
    beat: int
    transfer: int
    show: int
    n: int

    @classmethod
    def of(cls, rules: Rules) -> ActionLayout:
        d = rules.deck_size
        play = 2
        beat = play + d
        transfer = beat + d * d
        show = transfer + (d if rules.variant == "perevodnoy" else 0)
        n = show + (d if rules.transfer_show_trump else 0)
        return cls(d, rules.low_card, play, beat, transfer, show, n)

    def _index(self, card: int) -> int:
        i = card - self.low_card
        if not 0 <= i < self.deck_size:
            raise IllegalMoveError(f"{format_card(card)} is not in the {self.deck_size}-card deck")
        return i

    def encode(self, move: str) -> int:
        """Action id of a move string such as ``"beat 7C KC"`` (any accepted spelling).

        Raises:
            IllegalMoveError: if the string is not a well-formed move for this layout.
        """
        if not isinstance(move, str):
            raise IllegalMoveError(f"a move must be a string such as 'play 7C', got {move!r}")
        words = move.split()
        if not words:
            raise IllegalMoveError("empty move; expected e.g. 'play 7C', 'beat 7C KC', 'take'")
        verb, args = words[0].lower(), words[1:]
        arity = {"pass": 0, "take": 0, "play": 1, "transfer": 1, "show": 1, "beat": 2}
        if verb not in arity:
            raise IllegalMoveError(
                f"unknown move {words[0]!r} in {move!r}; moves are "
                "pass, take, play C, beat A B, transfer C, show C"
            )
        if len(args) != arity[verb]:
            raise IllegalMoveError(f"{verb!r} takes {arity[verb]} card(s), got {move!r}")
        try:
            cards = [self._index(parse_card(a)) for a in args]
        except IllegalMoveError:
            raise
        except ValueError as e:
            raise IllegalMoveError(f"malformed move {move!r}: {e}") from None
        kind = VERBS.index(verb)
        if (kind == K_TRANSFER and self.transfer == self.show) or (
                kind == K_SHOW and self.show == self.n):
            raise IllegalMoveError(f"{verb!r} is not a move under these rules: {move!r}")
        return self.pack(kind, *(self.low_card + i for i in cards))

    def decode(self, action: int) -> str:
        """Canonical move string of an action id.

        Raises:
            IllegalMoveError: if the id is not an int in ``0..n-1``.
        """
        kind, card, cover = self.unpack(self.check_id(action))
        return VERBS[kind] + "".join(" " + format_card(c) for c in (card, cover) if c != NO_CARD)

    def unpack(self, a: int) -> tuple[int, int, int]:
        """``(kind, card, cover)`` of a valid action id: its block (``K_PASS`` ...
        ``K_SHOW``), the card it plays, transfers or shows (for ``beat`` the attack card)
        and for ``beat`` the covering card; ``NO_CARD`` where there is none."""
        low = self.low_card
        if a == PASS:
            return K_PASS, NO_CARD, NO_CARD
        if a == TAKE:
            return K_TAKE, NO_CARD, NO_CARD
        if a < self.beat:
            return K_PLAY, low + a - self.play, NO_CARD
        if a < self.transfer:
            i, j = divmod(a - self.beat, self.deck_size)
            return K_BEAT, low + i, low + j
        if a < self.show:
            return K_TRANSFER, low + a - self.transfer, NO_CARD
        return K_SHOW, low + a - self.show, NO_CARD

    def pack(self, kind: int, card: int = NO_CARD, cover: int = NO_CARD) -> int:
        """The action id of ``(kind, card, cover)``, the inverse of ``unpack`` (cards in the
        deck, a kind these rules have)."""
        if kind == K_PASS:
            return PASS
        if kind == K_TAKE:
            return TAKE
        i = card - self.low_card
        if kind == K_PLAY:
            return self.play + i
        if kind == K_BEAT:
            return self.beat + i * self.deck_size + cover - self.low_card
        return (self.transfer if kind == K_TRANSFER else self.show) + i

    def check_id(self, action) -> int:
        """Return ``action`` as an int, or raise if it is not a valid id."""
        if isinstance(action, bool | np.bool_):
            raise IllegalMoveError(f"an action id must be an int, got {action!r}")
        try:  # ints, numpy integers and 0-d integer arrays; not 1-element arrays or lists
            a = operator.index(action)
        except TypeError:
            raise IllegalMoveError(f"an action id must be an int, got {action!r}") from None
        if not 0 <= a < self.n:
            raise IllegalMoveError(f"action id {a} is out of range 0..{self.n - 1}")
        return a


# ---------------------------------------------------------------- inside kernels


@njit(cache=True, inline="always")
def action_kind(prm, a):
    """The block of action id ``a``: ``K_PASS``, ``K_TAKE``, ``K_PLAY``, ... ``K_SHOW``."""
    if a == PASS:
        return K_PASS
    if a == TAKE:
        return K_TAKE
    if a < prm[A_BEAT]:
        return K_PLAY
    if a < prm[A_TRANSFER]:
        return K_BEAT
    if a < prm[A_SHOW]:
        return K_TRANSFER
    return K_SHOW


@njit(cache=True, inline="always")
def action_card(prm, a):
    """The card an action puts down or shows (a beat's covering card); ``NO_CARD`` for
    pass and take."""
    if a < prm[A_PLAY]:
        return NO_CARD
    if a < prm[A_BEAT]:
        return a - prm[A_PLAY] + prm[P_LOW]
    if a < prm[A_TRANSFER]:
        return (a - prm[A_BEAT]) % prm[P_DECK] + prm[P_LOW]
    if a < prm[A_SHOW]:
        return a - prm[A_TRANSFER] + prm[P_LOW]
    return a - prm[A_SHOW] + prm[P_LOW]


@njit(cache=True, inline="always")
def beaten_card(prm, a):
    """The attack card that beat action ``a`` covers."""
    return (a - prm[A_BEAT]) // prm[P_DECK] + prm[P_LOW]
