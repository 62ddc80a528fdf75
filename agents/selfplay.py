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
from .ppo import PPONet, legal_lists, legal_valid
from .stats import MAX_DECISIONS


class SnapshotPlayer:
    """A frozen copy of the learner; batched sampling from its policy (``greedy_expert``:
    its end-game expert plays its most likely move, ``endgame.finetune_greedy``)."""

    def __init__(self, net: PPONet, pool_index: int = -1, greedy_expert: bool = False):
        self.net, self.pool_index, self.greedy_expert = net, pool_index, greedy_expert

    @torch.inference_mode()
    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
        pos, _, _, _ = self.net.get_action_and_value(torch.from_numpy(obs),
                                                     torch.from_numpy(ids), valid,
                                                     greedy_expert=self.greedy_expert)
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


class EndgameHandoff:
    """``player`` with the positions that ``net``'s end-game expert plays handed to the
    expert (greedy): a heuristic's middle game with a near-solver end game, the way
    ``expert`` plays (``endgame.handoff``). Before the expert is fitted, ``player`` alone."""

    pool_index = -1

    def __init__(self, player, net: PPONet):
        self.player, self.net = player, net

    def new_games(self, envs: np.ndarray) -> None:
        if hasattr(self.player, "new_games"):
            self.player.new_games(envs)

    def act(self, obs, mask, ids, counts, rows, rng) -> np.ndarray:
        out = self.player.act(obs, mask, ids, counts, rows, rng)
        expert = self.net.endgame
        if expert is None or not expert.active:
            return out
        mine = np.flatnonzero(expert.plays(obs))
        if len(mine):
            w = int(counts[mine].max())
            with torch.inference_mode():
                logits = expert.logits(torch.from_numpy(obs[mine]),
                                       torch.from_numpy(ids[mine, :w]),
                                       legal_valid(torch.from_numpy(counts[mine]), w))
            out[mine] = ids[mine, logits.argmax(1).numpy()]
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
        """Snapshot ``net``. A tensor equal to the last snapshot's (the end-game expert's
        before it is fitted, and while it is frozen) is that snapshot's, not a copy: the
        pool, and a checkpoint that holds it, keep one of each."""
        last = self.states[-1] if self.states else {}
        state = {}
        for k, v in net.state_dict().items():
            prev = last.get(k)
            same = prev is not None and prev.shape == v.shape and torch.equal(prev, v)
            state[k] = prev if same else v.detach().clone()
        self.states.append(state)
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


def play_against(net: PPONet, rules: Rules, spec: str, games: int, seed: int = 12345,
                 greedy: bool = True, num_threads: int | None = None, on_decision=None,
                 both_seats: bool = False, bar=None) -> tuple[np.ndarray, np.ndarray]:
    """``games`` games of ``net`` (seat ``g % num_players`` in game ``g``) against the
    player ``spec`` in one ``VectorEnv``: the learner's reward per game (0 where
    unfinished) and whether each game finished within ``MAX_DECISIONS``.

    Args:
        greedy: the learner plays its most likely move; else it samples, from a stream of
            its own seeded by ``seed`` (torch's global generator is left as it was).
        on_decision: called as ``on_decision(obs, ids, counts, rows, actions)`` at every
            step, before the step, with the rows of the learner's live games where it is
            to act (every live game with ``both_seats``) and the actions chosen.
        bar: a progress bar, updated by the games that end.
    """
    venv = VectorEnv(rules, games, seed=seed, num_threads=num_threads, copy=False)
    obs, info = venv.reset(seed=seed)
    mask, to_act = info["action_mask"], info["to_act"]
    seat = np.arange(games) % rules.num_players
    result = np.zeros(games)
    finished = np.zeros(games, np.bool_)
    opp, rng = make_player(spec, rules, venv), np.random.default_rng(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for _ in range(MAX_DECISIONS):
            if finished.all():
                break
            ids, counts = legal_lists(mask)
            mine = to_act == seat
            actions = RandomPlayer().act(None, None, ids, counts, None, rng)
            rows = np.flatnonzero(mine & ~finished)
            if len(rows):
                with torch.inference_mode():
                    valid = legal_valid(torch.from_numpy(counts[rows]), ids.shape[1])
                    pos, _, _, _ = net.get_action_and_value(
                        torch.from_numpy(obs[rows]), torch.from_numpy(ids[rows]), valid,
                        greedy=greedy)
                actions[rows] = ids[rows, pos.numpy()]
            theirs = np.flatnonzero(~mine & ~finished)
            if len(theirs):
                actions[theirs] = opp.act(obs[theirs], mask[theirs], ids[theirs],
                                          counts[theirs], theirs, rng)
            if on_decision is not None:
                live = np.flatnonzero(~finished) if both_seats else rows
                if len(live):
                    on_decision(obs, ids, counts, live, actions)
            obs, rew, term, _, info = venv.step(actions)
            mask, to_act = info["action_mask"], info["to_act"]
            new = term & ~finished
            result[new] = rew[new, seat[new]]
            finished |= term
            if bar is not None:
                bar.update(int(new.sum()))
    return result, finished
