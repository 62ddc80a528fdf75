"""Statistics of the tournament: Wilson intervals and Bradley-Terry ratings on the Elo scale."""

from __future__ import annotations

import math

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054
# A game that has asked for more decisions than this is stopped and scored a draw: with
# more than two players, deterministic players can repeat a cycle of bouts forever (the
# rules have no move limit). Tournaments and evaluations during training both use it.
MAX_DECISIONS = 5_000


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n`` (``(0, 1)`` when ``n == 0``)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1.0 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def bradley_terry(wins: np.ndarray, prior: float = 1e-3, iters: int = 100
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood Bradley-Terry strengths with standard errors.

    ``P(i beats j) = 1 / (1 + exp(theta_j - theta_i))``. Strengths are centred
    (they sum to zero); standard errors come from the inverse Fisher information
    (the negated Hessian of the log-likelihood) in that gauge. A tiny Gaussian
    prior keeps the fit finite when one player never loses.

    Args:
        wins: ``wins[i, j]`` = decided games that i won against j.
        prior: precision of a zero-mean Gaussian prior on each strength.

    Returns:
        ``(theta, se)`` in natural-log units; multiply by ``ELO_PER_NAT`` for Elo.
    """
    w = np.asarray(wins, np.float64)
    k = w.shape[0]
    n = w + w.T
    theta = np.zeros(k)
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = w.sum(1) - (n * p).sum(1) - prior * theta
        info = _fisher(n, p, prior)
        step = np.linalg.pinv(info) @ grad
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    cov = np.linalg.pinv(_fisher(n, p, prior))
    centre = np.eye(k) - 1.0 / k
    cov = centre @ cov @ centre.T
    return theta, np.sqrt(np.clip(np.diag(cov), 0.0, None))


def _fisher(n, p, prior):
    q = n * p * (1.0 - p)
    info = -q
    np.fill_diagonal(info, q.sum(1) - np.diag(q) + prior)
    return info
