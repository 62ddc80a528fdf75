"""The paired-deal schedule of a tournament (see ``agents.tournament``)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Match:
    """One game of the schedule: ``seats[s]`` is the index of the agent in seat s."""

    index: int
    deal: int
    seats: tuple[int, ...]


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1, np.uint64)[0] >> 1)


def schedule(num_agents: int, num_players: int, games: int) -> list[Match]:
    """The paired-deal schedule described in the ``agents.tournament`` docstring."""
    if num_agents < 2 and num_players == 2:
        raise ValueError("a two-player tournament needs at least two agents")
    out: list[Match] = []
    if num_players == 2:
        deals = math.ceil(games / 2)
        for i, j in itertools.combinations(range(num_agents), 2):
            for k in range(deals):
                for seats in ((i, j), (j, i)):
                    out.append(Match(len(out), k, seats))
        return out
    deals = math.ceil(games / num_players)
    subsets = list(itertools.combinations(range(num_agents), num_players))
    for k in range(deals):
        if num_agents <= num_players:
            lineup = [(k + s) % num_agents for s in range(num_players)]
        else:
            lineup = list(subsets[k % len(subsets)])
        for rot in range(num_players):
            seats = tuple(lineup[(s + rot) % num_players] for s in range(num_players))
            out.append(Match(len(out), k, seats))
    return out
