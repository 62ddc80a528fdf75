"""The suit symmetry of Durak: relabelling the four suits maps a game onto another game.

No rule tells one suit from another except through the trump, so renaming the suits by a
permutation ``s`` (suit ``i`` becomes ``s[i]``, the trump suit included) turns every
position into one whose legal moves, outcomes and values are those of the original with
the cards renamed. Learning code uses this to see each labelled position in up to 24
guises (data augmentation), the way AlphaZero used the board's symmetries.

``SuitSymmetry`` holds, for each of the 24 permutations, a gather index for the
observation (``obs[:, obs_index[k]]`` is the permuted observation), one for the global
state, and a map of action ids (``action_map[k][a]`` is the permuted action).
``tests/engine/test_symmetry.py`` checks them against the engine: a game dealt with
renamed suits and played with renamed moves shows the renamed observation and mask at
every step.

Ranks have a symmetry of their own once some are out of play. A rule compares two ranks
only for order (a higher card of the suit beats) or equality (cards of a rank on the table
may be added, or transferred to); a rank whose four cards are all in the discard takes no
further part. Relabelling the ranks so that those still in play keep their order turns a
position into one with the same legal moves and values, whatever ranks the discarded ones
were. ``RankPacking`` maps each observation to one representative of its class: the dead
ranks lowest, the live ones above them in their order. The end-game expert reads positions
so (``network.endgame_pack_ranks``): late in a game several ranks are usually dead, and
one packed position stands for every placement of their gaps.
"""

from __future__ import annotations

import itertools

import numpy as np

from .actions import ActionLayout
from .cards import NUM_SUITS
from .observation import observation_layout, observation_size, state_size
from .rules import Rules

# Observation pieces that are card vectors (``deck_size`` long, or several of them), the
# pieces that are one-hot suits, and the ones no suit renaming touches. Every piece of the
# layout is in exactly one of the three (asserted), so a new piece needs a decision here.
CARD_PIECES = frozenset({"hand", "attack_uncovered", "attack_covered", "covering", "discard",
                         "known", "unseen", "own_known", "trump_card"})
SUIT_PIECES = frozenset({"trump_suit"})
PLAIN_PIECES = frozenset({"hand_size", "in_game", "talon_size", "attacker", "defender",
                          "to_act", "opener", "phase", "take", "n_attack", "limit", "passes",
                          "shown"})


class SuitSymmetry:
    """Gather indices and action maps of the 24 suit permutations for ``rules``.

    Permutation 0 is the identity. ``perms[k]`` is the permutation itself
    (suit ``i`` becomes ``perms[k][i]``).
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        d = rules.deck_size
        self.perms = np.array(list(itertools.permutations(range(NUM_SUITS))), np.int64)
        k = len(self.perms)
        o, s = observation_size(rules), state_size(rules)
        lay = ActionLayout.of(rules)
        self.obs_index = np.tile(np.arange(o), (k, 1))
        self.state_index = np.tile(np.arange(s), (k, 1))
        self.action_map = np.tile(np.arange(lay.n), (k, 1))
        idx = np.arange(d)
        for j, p in enumerate(self.perms):
            card = (idx // NUM_SUITS) * NUM_SUITS + p[idx % NUM_SUITS]  # card index i -> new
            src = np.empty(d, np.int64)
            src[card] = idx  # new position card[i] reads old position i
            for piece in observation_layout(rules):
                if piece.name in CARD_PIECES:
                    for b in range(piece.offset, piece.offset + piece.size, d):
                        self.obs_index[j, b:b + d] = b + src
                elif piece.name in SUIT_PIECES:
                    suit_src = np.argsort(p)
                    self.obs_index[j, piece.offset:piece.offset + NUM_SUITS] = (
                        piece.offset + suit_src)
                elif piece.name not in PLAIN_PIECES:
                    raise AssertionError(f"observation piece {piece.name!r} is not classified "
                                         f"for the suit symmetry")
            self.state_index[j, :o] = self.obs_index[j]
            for b in range(o, s, d):  # every hand, then the talon order: card vectors
                self.state_index[j, b:b + d] = b + src
            amap = self.action_map[j]
            amap[lay.play:lay.play + d] = lay.play + card
            amap[lay.beat:lay.beat + d * d] = (lay.beat + card[:, None] * d + card[None, :]).ravel()
            if lay.show > lay.transfer:
                amap[lay.transfer:lay.transfer + d] = lay.transfer + card
            if lay.n > lay.show:
                amap[lay.show:lay.show + d] = lay.show + card

    def __len__(self) -> int:
        return len(self.perms)

    def rename(self, rng: np.random.Generator, obs: np.ndarray, ids: np.ndarray,
               state: np.ndarray | None = None):
        """Each row of a batch under its own random renaming: ``(obs, ids, state)``."""
        k = rng.integers(0, len(self), len(obs))
        return (self.observations(obs, k), self.actions(ids, k),
                None if state is None else self.states(state, k))

    def observations(self, obs: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Row ``i`` of ``obs`` [B, obs_size] under permutation ``k[i]``."""
        return np.take_along_axis(obs, self.obs_index[k], axis=1)

    def states(self, state: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Row ``i`` of the global ``state`` [B, state_size] under permutation ``k[i]``."""
        return np.take_along_axis(state, self.state_index[k], axis=1)

    def actions(self, ids: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Action ids ``ids`` [B, ...] of row ``i`` under permutation ``k[i]``."""
        ids = np.asarray(ids)
        flat = ids.reshape(len(ids), -1)
        return np.take_along_axis(self.action_map[k], flat, axis=1).reshape(ids.shape)


class RankPacking:
    """The dead ranks (every card in the discard) moved below the live ones, per position.

    ``card_maps(obs)`` gives each row's relabelling of the cards: a card keeps its suit,
    and its rank becomes its place among the dead ranks, or the number of dead ranks plus
    its place among the live ones. Applied to the observation's card pieces and to action
    ids (``pack``), it is the same for every position that differs only in where the gaps
    of the dead ranks lie (``tests/engine/test_symmetry.py`` plays such pairs of games in
    the engine). A position with no dead rank is left as it is.
    """

    def __init__(self, rules: Rules):
        self.rules = rules
        d = self.d = rules.deck_size
        self.ranks = d // NUM_SUITS
        self.layout = ActionLayout.of(rules)
        pieces = {p.name: p for p in observation_layout(rules)}
        self._discard = pieces["discard"].offset
        self._blocks = [b for p in pieces.values() if p.name in CARD_PIECES
                        for b in range(p.offset, p.offset + p.size, d)]
        self._size = observation_size(rules)
        idx = np.arange(d)
        self._rank, self._suit = idx // NUM_SUITS, idx % NUM_SUITS
        lay = self.layout  # blocks of one card each: play, transfer, show
        self._single = [(s, e) for s, e in ((lay.play, lay.beat), (lay.transfer, lay.show),
                                            (lay.show, lay.n)) if e > s]

    def card_maps(self, obs: np.ndarray) -> np.ndarray:
        """``[B, deck_size]``: the new index of every card index, row by row."""
        dead = (obs[:, self._discard:self._discard + self.d] > 0.5).reshape(
            len(obs), self.ranks, NUM_SUITS).all(2)
        live = ~dead
        rank = np.where(dead, np.cumsum(dead, 1) - dead,
                        dead.sum(1, keepdims=True) + np.cumsum(live, 1) - live)
        return rank[:, self._rank] * NUM_SUITS + self._suit

    def observations(self, obs: np.ndarray, maps: np.ndarray) -> np.ndarray:
        """``obs`` [B, obs_size] with row ``i``'s cards moved by ``maps[i]``."""
        src = np.empty_like(maps)
        np.put_along_axis(src, maps, np.arange(self.d)[None, :].repeat(len(maps), 0), axis=1)
        index = np.tile(np.arange(self._size), (len(obs), 1))
        for b in self._blocks:
            index[:, b:b + self.d] = b + src
        return np.take_along_axis(obs, index, axis=1)

    def actions(self, ids: np.ndarray, maps: np.ndarray) -> np.ndarray:
        """Action ids ``ids`` [B, W] with row ``i``'s cards moved by ``maps[i]``."""
        ids = np.asarray(ids)
        out = ids.copy()
        for s, e in self._single:
            on = (ids >= s) & (ids < e)
            out = np.where(on, s + np.take_along_axis(maps, np.where(on, ids - s, 0), 1), out)
        d, beat = self.d, self.layout.beat
        on = (ids >= beat) & (ids < beat + d * d)
        rel = np.where(on, ids - beat, 0)
        pair = (np.take_along_axis(maps, rel // d, 1) * d
                + np.take_along_axis(maps, rel % d, 1))
        return np.where(on, beat + pair, out)

    def pack(self, obs: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The packed observations ``[B, obs_size]`` and action ids ``[B, W]``."""
        maps = self.card_maps(obs)
        return self.observations(obs, maps), self.actions(ids, maps)
