"""Search distilled into the policy during PPO (expert iteration).

After each rollout, up to ``labels_per_update`` of the learner's own decisions where
``expert``'s exact searches apply (two players, few or no cards in the talon) are
labelled with the searched move (``agents.teacher.SearchLabeler``, from the
observation only), in a background thread while the update and the next rollout run;
they join the buffer after that rollout, whether or not the thread finished early, so
that a run is the same from the same seed. The labelled positions go into a ring
buffer; every PPO minibatch adds ``coef`` times the
masked cross-entropy of a sample of them beside the PPO loss. Labels are legal moves by
construction: the search picks among the position's legal list.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch

from durak_env import Rules
from durak_env.batch import legal_width
from durak_env.symmetry import SuitSymmetry

from .teacher import SearchConfig, SearchLabeler


@dataclass
class DistillConfig:
    """Expert iteration: the exact searches' moves as a supervised loss during PPO."""

    coef: float = 0.0
    """Weight of the cross-entropy on search-labelled positions (0: off)."""
    labels_per_update: int = 64
    """Learner positions labelled by the searches after each rollout (at most)."""
    buffer_size: int = 20000
    """Labelled positions kept (the oldest are replaced)."""
    minibatch_size: int = 256
    """Labelled positions per PPO minibatch."""
    background: bool = True
    """Label in a background thread while training goes on (False: label in line)."""
    augment: bool = False
    """Show every sampled labelled position under a random suit renaming
    (``durak_env.symmetry``)."""
    target: str = "move"
    """``move``: the searched move is the label (cross-entropy); ``set``: every best move
    is (all legal moves solved), and the loss is minus the log of the probability the
    policy puts on that set, so the policy is free among equally good moves."""
    prefer: str = "chosen"
    """Which equally good move becomes the label: ``chosen`` (the move the learner played,
    tried first by the search) or ``greedy`` (its most likely move, so that a greedy
    policy whose move is already best is never pushed toward another best move)."""


class Distiller:
    """The labelling thread and the buffer of labelled positions."""

    def __init__(self, rules: Rules, search: SearchConfig, cfg: DistillConfig, obs_size: int,
                 seed: int):
        self.cfg = cfg
        self.labeler = SearchLabeler(rules, search, seed)
        self.sym = SuitSymmetry(rules) if cfg.augment else None
        n = cfg.buffer_size
        self.obs = np.zeros((n, obs_size), np.float32)
        self.ids = np.zeros((n, legal_width(rules)), np.int64)  # no legal list is wider
        self.counts = np.ones(n, np.int64)
        self.good = np.zeros((n, legal_width(rules)), np.bool_)  # the label(s) per position
        self.size, self.head, self.labelled = 0, 0, 0
        self.agree: list[float] = []
        self._pool = ThreadPoolExecutor(1) if cfg.background else None
        self._job: Future | None = None

    @property
    def active(self) -> bool:
        return self.cfg.coef > 0 and self.labeler.active

    def submit(self, obs: np.ndarray, ids: np.ndarray, counts: np.ndarray, chosen: np.ndarray,
               greedy: np.ndarray, rng: np.random.Generator) -> None:
        """Queue up to ``labels_per_update`` of these learner decisions for labelling
        (``chosen``: the action the learner played, ``greedy``: its most likely one)."""
        self.collect(wait=True)  # the previous rollout's labels, always: runs stay reproducible
        rows = np.flatnonzero(self.labeler.candidates(obs) & (counts > 1))
        if not len(rows):
            return
        rows = rng.permutation(rows)[: self.cfg.labels_per_update]
        first = greedy if self.cfg.prefer == "greedy" else chosen
        job = (obs[rows].copy(), ids[rows].copy(), counts[rows].copy(), first[rows].copy(),
               greedy[rows].copy())
        if self._pool is None:
            self._add(*self._label(*job))
        else:
            self._job = self._pool.submit(self._label, *job)

    def _label(self, obs, ids, counts, first, greedy):
        """The labelled rows, each with a bool mask over its legal list (``good``)."""
        good = np.zeros(ids.shape, np.bool_)
        if self.cfg.target == "set":
            ok = np.zeros(len(obs), np.bool_)
            for i in range(len(obs)):
                found = self.labeler.label_set(obs[i], ids[i, : counts[i]].tolist())
                if found is not None:
                    ok[i], good[i, : counts[i]] = True, found
        else:
            found = self.labeler.label_rows(obs, ids, counts, first, np.arange(len(obs)))
            ok = found >= 0
            good[ok] = ids[ok] == found[ok, None]
            good &= np.arange(ids.shape[1]) < counts[:, None]  # not the padding
        return obs[ok], ids[ok], counts[ok], good[ok], greedy[ok]

    def collect(self, wait: bool = False) -> None:
        """Move a finished (with ``wait``: the pending) labelling job into the buffer."""
        if self._job is not None and (wait or self._job.done()):
            job, self._job = self._job, None
            self._add(*job.result())

    def _add(self, obs, ids, counts, good, greedy) -> None:
        n = len(good)
        if n:  # the learner's most likely move was already a labelled one
            is_greedy = ids == greedy[:, None]
            is_greedy &= np.arange(ids.shape[1]) < counts[:, None]
            self.agree.append(float(np.mean((good & is_greedy).any(1))))
        w = ids.shape[1]
        for i in range(n):
            h = self.head
            self.obs[h] = obs[i]
            self.ids[h] = 0
            self.ids[h, :w] = ids[i, :w]
            self.counts[h] = counts[i]
            self.good[h] = False
            self.good[h, :w] = good[i, :w]
            self.head = (h + 1) % len(self.good)
            self.size = min(self.size + 1, len(self.good))
        self.labelled += n

    def sample(self, rng: np.random.Generator) -> tuple[torch.Tensor, ...] | None:
        """A minibatch (obs, ids, counts, good) of labelled positions; ``good`` marks the
        label(s) in each legal list."""
        if self.size == 0:
            return None
        rows = rng.integers(0, self.size, min(self.cfg.minibatch_size, self.size))
        w = int(self.counts[rows].max())
        obs, ids = self.obs[rows], self.ids[rows, :w]
        if self.sym is not None:
            obs, ids, _ = self.sym.rename(rng, obs, ids)
        return (torch.from_numpy(obs), torch.from_numpy(ids),
                torch.from_numpy(self.counts[rows]), torch.from_numpy(self.good[rows, :w]))

    def stats(self) -> dict:
        """``distill/`` scalars: positions labelled so far, buffer size, and how often the
        learner's most likely move was already the searched one (recent labels)."""
        out = {"distill/labelled": float(self.labelled), "distill/buffer": float(self.size)}
        if self.agree:
            out["distill/agreement"] = float(np.mean(self.agree[-20:]))
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
