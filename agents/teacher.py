"""Teacher labels for the learned player: ``expert``'s moves without playing it in Python.

``expert_rules`` labels every position of a batch in one numba call
(``agents.expert_kernel.expert_actions``); ``SearchLabeler`` replaces the label by
``expert``'s exact searches wherever they apply (two players: the end-game solver once
every card is placed, the sampled exact search with 1 to ``pimc_talon`` talon cards),
reading the observation only, as ``expert`` and ``ppo`` do (``agents.pimc.searched_move``).
Imitation (``agents.imitation``) clones these labels; distillation during PPO
(``agents.distill``) labels the learner's own positions with the searches.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from durak_env import Rules
from durak_env.cards import NUM_CARDS
from durak_env.observation import observation_layout

from .determinize import view_array
from .endgame import UNKNOWN, EndgameSolver
from .pimc import pimc_values, search_applies, searched_move
from .view import fast_decode

LABEL_TT_BITS = 20
"""The labeler's solver keeps a transposition table of 2**20 entries (8 MB) across the
positions it labels, where ``expert``'s keeps 2**16 for one game: successive positions of
one game reuse the searches of the ones before, and far more of them stay in the table."""


@dataclass
class SearchConfig:
    """``expert``'s exact searches as a teacher (two players only; its defaults)."""

    endgame_nodes: int = 50000
    """Node cap of the end-game solver per move (0: no search labels)."""
    pimc_talon: int = 3
    """Sampled exact search with 1 to this many cards in the talon (0: off)."""
    pimc_samples: int = 8
    """Random deals of the unseen cards per sampled search."""
    pimc_nodes: int = 1000
    """Node cap per move and deal of the sampled search."""

    def validate(self) -> None:
        for key in ("endgame_nodes", "pimc_talon", "pimc_samples", "pimc_nodes"):
            v = getattr(self, key)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"search.{key} must be an integer >= 0, got {v!r}")


class SearchLabeler:
    """``expert``'s searched move for single positions, where a search applies.

    Args:
        rules: the rules; with more than two players no search applies.
        cfg: node caps and the talon range of the searches.
        seed: seed of the sampled deals.
        threads: ``label_rows`` labels with that many solvers side by side (the solver
            releases the GIL): row ``g`` always by solver ``g % threads``, the others'
            deals seeded ``seed + 1``, ``seed + 2``, ...; a run stays the same from the
            same seed.
    """

    def __init__(self, rules: Rules, cfg: SearchConfig, seed: int = 0, threads: int = 1):
        self.rules, self.cfg = rules, cfg
        self._helpers = [SearchLabeler(rules, cfg, seed + i) for i in range(1, threads)]
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self.solver = None
        if rules.num_players == 2 and cfg.endgame_nodes > 0:
            self.solver = EndgameSolver(rules, cfg.endgame_nodes, last_card=True,
                                        cheap_first=True, tt_bits=LABEL_TT_BITS)
        self.rng = np.random.default_rng(seed)
        self._cards = np.zeros(NUM_CARDS, np.int64)
        lay = {p.name: p for p in observation_layout(rules)}
        self._talon_at, self._tcard = lay["talon_size"].offset, lay["trump_card"]

    @property
    def active(self) -> bool:
        return self.solver is not None

    @property
    def max_talon(self) -> int:
        """The most talon cards with which a search applies (the solver's own: the face-up
        trump alone; the sampled search's: ``pimc_talon``)."""
        return max(self.cfg.pimc_talon, 1)

    def candidates(self, obs: np.ndarray) -> np.ndarray:
        """Bool ``[B]``: rows whose talon is small enough for a search to apply (a cheap
        pre-filter on the observation; ``label`` decides exactly)."""
        if not self.active:
            return np.zeros(len(obs), np.bool_)
        talon = np.rint(obs[:, self._talon_at] * self.rules.hand_size)
        return talon <= self.max_talon

    def label(self, obs: np.ndarray, legal: list[int], first: int) -> int | None:
        """The searched move of one position (ties go to ``first``, then ``legal``
        order), or None where no search applies."""
        if not self.active or len(legal) < 2:
            return None
        v = fast_decode(obs, self.rules)
        if not search_applies(self.solver, v, self.cfg.pimc_talon):
            return None
        order = [int(first)] + [int(a) for a in legal if a != first]
        return searched_move(self.solver, v, order, self.cfg.pimc_samples, self.cfg.pimc_nodes,
                             self.rng, self._cards)

    def label_set(self, obs: np.ndarray, legal: list[int]) -> np.ndarray | None:
        """Every best move of one position, as a bool mask over ``legal``: with every card
        placed, the moves of the best proven value (all moves solved); with 1 to
        ``pimc_talon`` talon cards, the moves of the best total over the sampled deals.
        None where no search applies, or where the solver leaves unsettled whether an
        unsolved move beats the best solved one."""
        if not self.active or len(legal) < 2:
            return None
        v = fast_decode(obs, self.rules)
        if not search_applies(self.solver, v, self.cfg.pimc_talon):
            return None
        if self.solver.applies(v):
            self.solver.load(v)
            values = self.solver.root_values(legal, self.cfg.endgame_nodes)
            known = values != UNKNOWN
            if not known.any():
                return None
            best = values[known].max()
            if best < 1 and not known.all():
                return None
            return known & (values == best)
        total = pimc_values(self.solver, view_array(v), legal, self.cfg.pimc_samples,
                            self.cfg.pimc_nodes, self.rng, self._cards)
        return None if total is None else total == total.max()

    def label_rows(self, obs: np.ndarray, ids: np.ndarray, counts: np.ndarray,
                   first: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Searched moves of ``rows`` (``-1`` where no search applies)."""
        if self._pool is not None and len(rows) > 1:
            labelers = [self, *self._helpers]
            parts = [rows % len(labelers) == i for i in range(len(labelers))]
            jobs = [(part, self._pool.submit(lab._label_serial, obs, ids, counts, first,
                                             rows[part]))
                    for lab, part in zip(labelers, parts, strict=True) if part.any()]
            out = np.full(len(rows), -1, np.int64)
            for part, job in jobs:
                out[part] = job.result()
            return out
        return self._label_serial(obs, ids, counts, first, rows)

    def _label_serial(self, obs, ids, counts, first, rows) -> np.ndarray:
        out = np.full(len(rows), -1, np.int64)
        for i, g in enumerate(rows):
            a = self.label(obs[g], ids[g, : counts[g]].tolist(), int(first[g]))
            if a is not None:
                out[i] = a
        return out

    def reset(self) -> None:
        for lab in (self, *self._helpers):
            if lab.solver is not None:
                lab.solver.reset()
