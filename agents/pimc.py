"""Sampled exact search (two players): perfect-information Monte Carlo over the
end-game solver, and the move the exact searches choose.

Before the talon runs out, ``pimc_values`` rates each move by solving it exactly in a
few sampled deals; once every card is placed (``EndgameSolver.applies``) the solver
decides alone. ``searched_move`` is how ``expert`` and ``ppo`` use them;
``agents.ismcts`` uses both to narrow its tree search.
"""

from __future__ import annotations

import time

import numpy as np

from .determinize import determinize_at, view_array
from .endgame import UNKNOWN, EndgameSolver


def pimc_values(solver: EndgameSolver, view: np.ndarray, order: list[int], samples: int,
                nodes: int, rng: np.random.Generator, cards: np.ndarray,
                deadline: float | None = None) -> np.ndarray | None:
    """Perfect-information Monte Carlo with exact search (two players).

    Deals the unseen cards of ``view`` at random (``determinize``: the face-up trump
    stays at the talon's bottom) ``samples`` times, seeded from ``rng`` only, and solves
    every action of ``order`` in each deal with the end-game search (+1 win, 0 draw or
    ``nodes`` reached, -1 loss).

    Args:
        deadline: a ``time.perf_counter()`` time; after the first deal, no deal is
            started that would end past it by the time the longest deal so far took
            (None: all ``samples`` deals). Every action is solved in the same deals,
            so totals over fewer deals still compare.

    Returns:
        The summed values, one per action of ``order``; None if the view cannot be
        determinized.
    """
    solver.st["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
    total = np.zeros(len(order), np.int64)
    longest, now = 0.0, time.perf_counter()
    for i in range(samples):
        if deadline is not None and i > 0 and now + longest >= deadline:
            break
        if not determinize_at(solver.st, 0, solver.prm, view, cards):
            return None
        values = solver.root_values(order, nodes)
        total += np.where(values == UNKNOWN, 0, values)
        last, now = now, time.perf_counter()
        longest = max(longest, now - last)
    return total


def search_applies(solver: EndgameSolver | None, v, pimc_talon: int) -> bool:
    """Whether ``searched_move`` decides in the position seen in ``v``: the end-game
    solver applies, or 1 to ``pimc_talon`` cards are left in the talon (two players)."""
    return solver is not None and (solver.applies(v) or 0 < v.talon_size <= pimc_talon)


def searched_move(solver: EndgameSolver, v, order: list[int], samples: int, nodes: int,
                  rng: np.random.Generator, cards: np.ndarray) -> int:
    """The exact searches' move where ``search_applies``, for a player whose own
    choices in preference order are ``order``: the end-game solver's move once every
    card is placed, otherwise the best ``pimc_values`` total; ties, a position the solver
    gives up on and one that cannot be determinized go to the earliest in ``order``.
    ``expert`` and ``ppo`` decide so; ``ismcts`` searches its tree instead of settling
    for a tie or a proven loss."""
    if solver.applies(v):
        a = solver.solve(v, order)
        return order[0] if a is None else int(a)
    total = pimc_values(solver, view_array(v), order, samples, nodes, rng, cards)
    return order[0] if total is None else order[int(np.argmax(total))]
