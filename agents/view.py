"""What an agent reads: a fast observation decoder and the legal moves of a mask.

``durak_env.decode`` is the reference decoder; ``fast_decode`` returns the same
``ObsView`` (a test checks them against each other) with one ``packbits`` over the
card pieces instead of one Python loop per piece, because agents decode at every
decision of every tournament game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from durak_env import ActionLayout, ObsView, Rules, observation_layout
from durak_env.actions import K_BEAT, K_PASS, K_PLAY, K_SHOW, K_TAKE, K_TRANSFER
from durak_env.core import OVER

_CARD_PIECES = ("hand", "attack_uncovered", "attack_covered", "covering", "discard", "known",
                "unseen", "own_known")


class _Decoder:
    """Precomputed offsets of one ``Rules``' observation layout."""

    def __init__(self, rules: Rules):
        self.n, self.d, self.h, self.low = (
            rules.num_players, rules.deck_size, rules.hand_size, rules.low_card)
        self.off = {p.name: p.offset for p in observation_layout(rules)}
        names = [p.name for p in observation_layout(rules)]
        if tuple(names[: len(_CARD_PIECES)]) != _CARD_PIECES or self.off["hand"] != 0:
            raise RuntimeError("observation layout changed: update agents/view.py")
        self.card_end = self.off["own_known"] + self.d

    def _seat(self, obs, name, size):
        o = self.off[name]
        v = obs[o : o + size]
        i = int(v.argmax())
        return i if v[i] > 0.5 else -1

    def _count(self, obs, name):
        return int(round(float(obs[self.off[name]]) * self.h))

    def __call__(self, obs: np.ndarray) -> ObsView:
        n, d, low, o = self.n, self.d, self.low, self.off
        bits = np.packbits(obs[: self.card_end] > 0.5, bitorder="little")
        big = int.from_bytes(bits.tobytes(), "little")
        full = (1 << d) - 1
        parts = []
        for _ in range(5 + n - 1 + 2):
            parts.append((big & full) << low)
            big >>= d
        hs = obs[o["hand_size"] : o["hand_size"] + n] * self.h
        tc = obs[o["trump_card"] : o["trump_card"] + d]
        tci = int(tc.argmax())
        phase = self._seat(obs, "phase", 2)
        return ObsView(
            hand=parts[0], attack_uncovered=parts[1], attack_covered=parts[2],
            covering=parts[3], discard=parts[4], known=[0] + parts[5:-2],
            unseen=parts[-2], own_known=parts[-1],
            hand_size=[int(x) for x in np.rint(hs)],
            in_game=[bool(x > 0.5) for x in obs[o["in_game"] : o["in_game"] + n]],
            talon_size=self._count(obs, "talon_size"),
            trump=self._seat(obs, "trump_suit", 4),
            trump_card=low + tci if tc[tci] > 0.5 else -1,
            attacker=self._seat(obs, "attacker", n),
            defender=self._seat(obs, "defender", n),
            to_act=self._seat(obs, "to_act", n),
            opener=self._seat(obs, "opener", n),
            phase=OVER if phase < 0 else phase,
            take=bool(obs[o["take"]] > 0.5),
            n_attack=self._count(obs, "n_attack"),
            limit=self._count(obs, "limit"),
            passes=self._count(obs, "passes"),
            shown=[bool(x > 0.5) for x in obs[o["shown"] : o["shown"] + n]],
        )


@lru_cache(maxsize=64)
def _decoder(rules: Rules) -> _Decoder:
    return _Decoder(rules)


def fast_decode(obs: np.ndarray, rules: Rules) -> ObsView:
    """Same result as ``durak_env.decode(obs, rules)``, several times faster."""
    return _decoder(rules)(np.asarray(obs))


@dataclass
class Moves:
    """The legal moves of one mask, split by kind; cards are card ids.

    Attributes:
        ids: the legal action ids, ascending.
        can_pass, can_take: whether ``pass`` / ``take`` is legal.
        plays: cards that may be played (open, add, throw in).
        beats: ``(attack card, covering card)`` pairs.
        transfers, shows: cards for ``transfer`` / ``show``.
    """

    ids: list[int]
    can_pass: bool = False
    can_take: bool = False
    plays: list[int] = field(default_factory=list)
    beats: list[tuple[int, int]] = field(default_factory=list)
    transfers: list[int] = field(default_factory=list)
    shows: list[int] = field(default_factory=list)


class MoveCodec:
    """Action ids <-> (kind, cards) for one ``Rules`` (``ActionLayout.unpack``/``pack``)."""

    def __init__(self, rules: Rules):
        self.lay = ActionLayout.of(rules)
        self.low = rules.low_card

    def moves(self, mask: np.ndarray) -> Moves:
        ids = np.flatnonzero(mask).tolist()
        mv = Moves(ids)
        for a in ids:
            kind, card, cover = self.lay.unpack(a)
            if kind == K_PASS:
                mv.can_pass = True
            elif kind == K_TAKE:
                mv.can_take = True
            elif kind == K_PLAY:
                mv.plays.append(card)
            elif kind == K_BEAT:
                mv.beats.append((card, cover))
            elif kind == K_TRANSFER:
                mv.transfers.append(card)
            else:
                mv.shows.append(card)
        return mv

    def play(self, card: int) -> int:
        return self.lay.pack(K_PLAY, card)

    def beat(self, attack: int, cover: int) -> int:
        return self.lay.pack(K_BEAT, attack, cover)

    def transfer(self, card: int) -> int:
        return self.lay.pack(K_TRANSFER, card)

    def show(self, card: int) -> int:
        return self.lay.pack(K_SHOW, card)
