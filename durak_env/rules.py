"""The rule options of a game (docs/rules.md), validated, and their kernel encoding."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .cards import DECK_SIZES, deck_low_card

VARIANTS = ("prostoy", "podkidnoy", "perevodnoy")
THROW_IN = ("all", "neighbors")
MAX_PLAYERS_FOR_DECK = {24: 4, 36: 6, 52: 8}
# At most 26 attack cards fit on the table of a 52-card deck (each needs a cover or a taker).
TABLE_SLOTS = 26

# The kernels read the rules, and the action offsets of ``ActionLayout``, from one int64
# array built by ``core.kernel_params``; these are its slots.
P_N, P_HAND, P_LOW, P_DECK, P_VARIANT, P_NEIGHBORS = 0, 1, 2, 3, 4, 5
P_MAXA, P_FRMA, P_SHOW, A_PLAY, A_BEAT, A_TRANSFER, A_SHOW, A_N = 6, 7, 8, 9, 10, 11, 12, 13
NUM_PRM = 14


@dataclass(frozen=True)
class Rules:
    """Every option of docs/rules.md. Invalid values raise ``ValueError`` naming the field.

    Attributes:
        num_players: 2..6 with 36 cards, 2..8 with 52, 2..4 with 24.
        deck_size: 24 (9..A), 36 (6..A) or 52 (2..A).
        hand_size: cards dealt and drawn up to; ``num_players * hand_size <= deck_size``.
        variant: ``"prostoy"`` (only the opener throws, one volley), ``"podkidnoy"``
            (everybody throws in), ``"perevodnoy"`` (podkidnoy plus transfers).
        throw_in: ``"all"`` players or only the ``"neighbors"`` of the defender.
        max_attack: most attack cards in one round.
        first_round_max_attack: limit for rounds that start before the first bito,
            or ``None`` to use ``max_attack`` throughout.
        transfer_show_trump: in perevodnoy, allow transferring by showing the trump of
            the attack rank.
    """

    num_players: int = 2
    deck_size: int = 36
    hand_size: int = 6
    variant: str = "podkidnoy"
    throw_in: str = "all"
    max_attack: int = 6
    first_round_max_attack: int | None = None
    transfer_show_trump: bool = False

    def __post_init__(self):
        self._plain_python()
        _check_int("deck_size", self.deck_size, 0, 10**9)
        if self.deck_size not in DECK_SIZES:
            raise ValueError(f"deck_size must be one of {DECK_SIZES}, got {self.deck_size!r}")
        top = MAX_PLAYERS_FOR_DECK[self.deck_size]
        _check_int("num_players", self.num_players, 2, top, f"with deck_size={self.deck_size}")
        _check_int("hand_size", self.hand_size, 1, self.deck_size // self.num_players,
                   f"so that {self.num_players} hands fit in {self.deck_size} cards")
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        if self.throw_in not in THROW_IN:
            raise ValueError(f"throw_in must be one of {THROW_IN}, got {self.throw_in!r}")
        _check_int("max_attack", self.max_attack, 1, TABLE_SLOTS)
        if self.first_round_max_attack is not None:
            _check_int("first_round_max_attack", self.first_round_max_attack, 1, TABLE_SLOTS)
        if not isinstance(self.transfer_show_trump, bool | np.bool_):
            raise ValueError(
                f"transfer_show_trump must be a bool, got {self.transfer_show_trump!r}"
            )
        if self.transfer_show_trump and self.variant != "perevodnoy":
            raise ValueError(
                "transfer_show_trump=True needs variant='perevodnoy', "
                f"got variant={self.variant!r}"
            )

    def _plain_python(self):
        """numpy scalars become Python ints and bools, so that records serialise as JSON
        and equal rules compare and hash equal."""
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.bool_):
                object.__setattr__(self, f.name, bool(v))
            elif isinstance(v, np.integer):
                object.__setattr__(self, f.name, int(v))

    @classmethod
    def from_dict(cls, d: dict) -> Rules:
        """Build from a mapping, rejecting unknown keys by name."""
        valid = [f.name for f in dataclasses.fields(cls)]
        unknown = [k for k in d if k not in valid]
        if unknown:
            raise ValueError(f"unknown rules field(s) {unknown}; valid fields: {valid}")
        return cls(**d)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def low_card(self) -> int:
        return deck_low_card(self.deck_size)


def _check_int(field, value, lo, hi, why=""):
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{field} must be an int, got {value!r}")
    if not lo <= value <= hi:
        extra = f" {why}" if why else ""
        raise ValueError(f"{field} must be in {lo}..{hi}{extra}, got {value}")
