"""Per-agent and per-pair tallies and Bradley-Terry ratings of a tournament's results."""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

import numpy as np

from ..stats import ELO_PER_NAT, bradley_terry, wilson
from .play import GameResult


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def add(self, w: int, lo: int, d: int):
        self.games += 1
        self.wins += w
        self.losses += lo
        self.draws += d

    def row(self) -> dict:
        decided = self.wins + self.losses
        wl, wh = wilson(self.wins, decided)
        ll, lh = wilson(self.losses, self.games)
        return {
            **dataclasses.asdict(self),
            "win_rate": self.wins / decided if decided else float("nan"),
            "win_rate_lo": wl, "win_rate_hi": wh,
            "durak_rate": self.losses / self.games if self.games else float("nan"),
            "durak_rate_lo": ll, "durak_rate_hi": lh,
        }


@dataclass
class Timing:
    """One agent's thinking time over all its seats and games."""

    moves: int = 0  # decisions asked
    think_s: float = 0.0  # seconds spent deciding them
    think_max_s: float = 0.0  # the longest single decision

    def add(self, moves: int, think_s: float, think_max_s: float):
        self.moves += moves
        self.think_s += think_s
        self.think_max_s = max(self.think_max_s, think_max_s)

    def row(self) -> dict:
        return {
            "ms_per_move": 1000 * self.think_s / self.moves if self.moves else float("nan"),
            "max_ms_per_move": 1000 * self.think_max_s,
        }


@dataclass
class Summary:
    specs: list[str]
    agents: list[Tally]
    pairs: dict[tuple[int, int], Tally] = field(default_factory=dict)
    elo: np.ndarray | None = None
    elo_se: np.ndarray | None = None
    mean_decisions: float = 0.0
    timing: list[Timing] = field(default_factory=list)  # per agent


def summarize(specs: list[str], results: list[GameResult]) -> Summary:
    """Per-agent and per-pair tallies and Bradley-Terry ratings (see the
    ``agents.tournament`` docstring)."""
    k = len(specs)
    agents = [Tally() for _ in range(k)]
    timing = [Timing() for _ in range(k)]
    pairs = {(i, j): Tally() for i in range(k) for j in range(k) if i != j}
    for r in results:
        for s, i in enumerate(r.seats):
            agents[i].add(int(r.durak >= 0 and r.durak != s), int(r.durak == s), int(r.durak < 0))
            if r.moves:
                timing[i].add(r.moves[s], r.think_s[s], r.think_max_s[s])
        for s, t in itertools.permutations(range(len(r.seats)), 2):
            i, j = r.seats[s], r.seats[t]
            if i != j:
                pairs[i, j].add(int(r.durak == t), int(r.durak == s),
                                int(r.durak not in (s, t)))
    wins = np.zeros((k, k))
    for (i, j), t in pairs.items():
        wins[i, j] = t.wins
    theta, se = bradley_terry(wins)
    mean_dec = float(np.mean([r.decisions for r in results])) if results else 0.0
    return Summary(specs, agents, {p: t for p, t in pairs.items() if t.games},
                   theta * ELO_PER_NAT, se * ELO_PER_NAT, mean_dec, timing)
