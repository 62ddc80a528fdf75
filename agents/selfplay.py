"""Self-play opponents of the PPO learner and the pool of its past snapshots.

Every player acts for a set of games of a ``VectorEnv`` at once:
``act(obs, mask, ids, counts, rows, rng)`` gets the rows of the games where it is to
act (``ids``/``counts``: the legal actions as lists) and returns one action per row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from durak_env import Rules
from durak_env.vector import VectorEnv

from .expert_kernel import expert_actions
from .ppo import PPONet, legal_valid


class SnapshotPlayer:
    """A frozen copy of the learner; batched sampling from its policy."""

    def __init__(self, net: PPONet, pool_index: int = -1):
        self.net, self.pool_index = net, pool_index

    @torch.inference_mode()
    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
        pos, _, _, _ = self.net.get_action_and_value(torch.from_numpy(obs),
                                                     torch.from_numpy(ids), valid)
        return ids[np.arange(len(ids)), pos.numpy()]


class RandomPlayer:
    """Uniform over the legal actions, vectorized."""

    pool_index = -1

    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        pos = (rng.random(len(counts)) * counts).astype(np.int64)
        return ids[np.arange(len(ids)), pos]


class HeuristicPlayer:
    """A registry agent (``act(obs, mask, rng)`` per observation), one instance per env."""

    pool_index = -1

    def __init__(self, spec: str, rules: Rules):
        from .registry import make_agent

        self.spec, self.rules, self.make = spec, rules, make_agent
        self.agents: dict[int, object] = {0: make_agent(spec, rules)}  # a bad spec fails here

    def new_games(self, envs: np.ndarray) -> None:
        for e in envs:
            agent = self.agents.get(int(e))
            if agent is not None:
                agent.reset()

    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        out = np.empty(len(rows), np.int64)
        for i, e in enumerate(rows):
            agent = self.agents.get(int(e))
            if agent is None:
                agent = self.agents[int(e)] = self.make(self.spec, self.rules)
            out[i] = agent.act(obs[i], mask[i], rng)
        return out


class ExpertRulesPlayer:
    """The ``expert_rules`` agent for every game of a ``VectorEnv`` in one numba call
    (``agents.expert_kernel.expert_actions``: card counting from public information only)."""

    pool_index = -1

    def __init__(self, venv: VectorEnv):
        self.batch = venv.batch

    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        b, out = self.batch, np.empty(len(rows), np.int64)
        expert_actions(b.st, b.prm, b.buf, b.n_legal, np.asarray(rows, np.int64), out)
        return out


def make_player(spec: str, rules: Rules, venv: VectorEnv | None = None):
    """The opponent named ``spec``; ``expert_rules`` is batched inside ``venv`` if given."""
    if spec.strip() == "random":
        return RandomPlayer()
    if spec.strip() == "expert_rules" and venv is not None:
        return ExpertRulesPlayer(venv)
    return HeuristicPlayer(spec, rules)


@dataclass
class Pool:
    """Past snapshots of the learner with how often the learner beat each one."""

    states: list[dict] = field(default_factory=list)
    games: list[float] = field(default_factory=list)
    wins: list[float] = field(default_factory=list)

    def add(self, net: PPONet, size: int) -> None:
        self.states.append({k: v.detach().clone() for k, v in net.state_dict().items()})
        self.games.append(0.0)
        self.wins.append(0.0)
        if len(self.states) > size:  # keep the first snapshot as an anchor
            for lst in (self.states, self.games, self.wins):
                del lst[1]

    def sample(self, k: int, how: str, rng: np.random.Generator) -> list[int]:
        if how == "uniform":
            w = np.ones(len(self.states))
        else:  # prioritized fictitious self-play: hard opponents more often
            rate = (np.array(self.wins) + 1) / (np.array(self.games) + 2)
            w = (1.0 - rate) ** 2 + 1e-3
        return list(rng.choice(len(self.states), size=k, p=w / w.sum()))

    def record(self, index: np.ndarray, learner_won: np.ndarray) -> None:
        for i, won in zip(index, learner_won, strict=True):
            self.games[i] += 1
            self.wins[i] += won

    def state(self) -> dict:
        return {"states": self.states, "games": self.games, "wins": self.wins}
