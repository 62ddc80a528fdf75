"""Rollout collection for self-play PPO over ``VectorEnv``.

Every entry of the vector env is one game seen from the seat to act. Each seat's
decisions form its own trajectory: while collecting, ``last[env, seat]`` holds the
rollout index of that seat's latest decision, so each new decision links the
previous one to itself (``nxt``), and a finished game writes every seat's reward
onto that seat's last decision (``done``). Moves of the other seats in between are
environment. A learner decision whose successor is not in the rollout yet is not
trained on; its value bootstraps its predecessor (truncated GAE).

With ``ppo.endgame_cut_nodes`` (two players) a game also ends where every card is placed
and the exact solver proves its value (``EndgameCut``): that value is the reward, and the
env deals that game anew (``VectorEnv.reset`` with a ``reset_mask``).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import torch

from durak_env.vector import VectorEnv

from .endgame import EndgameSolver
from .ppo import PPONet, legal_lists, legal_valid
from .ppo_config import TrainConfig
from .selfplay import Pool
from .view import fast_decode

# ``Arena.owner`` of the seats the learner plays (k >= 1: the opponent in slot k).
LEARNER = 0


# ---------------------------------------------------------------- rollout storage


class Rollout:
    """``[T, B]`` storage; ``ids``/``counts`` are the action masks as legal lists."""

    def __init__(self, t: int, b: int, obs_size: int, width: int = 32,
                 state_size: int | None = None):
        self.t, self.b = t, b
        self.obs = torch.zeros(t, b, obs_size)
        # global states for a global critic (``network.critic: global``), else None
        self.state = None if state_size is None else torch.zeros(t, b, state_size)
        self.ids = torch.zeros(t, b, width, dtype=torch.int64)
        self.counts = torch.zeros(t, b, dtype=torch.int64)
        self.pos = torch.zeros(t, b, dtype=torch.int64)
        self.logp = torch.zeros(t, b)
        self.value = torch.zeros(t, b)
        self.learner = np.zeros((t, b), np.bool_)
        self.reward = np.zeros((t, b), np.float32)
        self.done = np.zeros((t, b), np.bool_)
        self.nxt = np.full((t, b), -1, np.int64)

    def clear(self) -> None:
        self.learner[:] = False
        self.reward[:] = 0.0
        self.done[:] = False
        self.nxt[:] = -1

    def put(self, t: int, obs: np.ndarray, ids: np.ndarray, counts: np.ndarray) -> None:
        w = ids.shape[1]
        if w > self.ids.shape[2]:  # a wider legal list than ever before: grow
            grown = torch.zeros(self.t, self.b, max(w, 2 * self.ids.shape[2]), dtype=torch.int64)
            grown[:, :, : self.ids.shape[2]] = self.ids
            self.ids = grown
        self.obs[t].numpy()[:] = obs
        self.ids[t, :, :w].copy_(torch.from_numpy(ids))
        self.ids[t, :, w:] = 0
        self.counts[t].copy_(torch.from_numpy(counts))

    def trainable(self) -> np.ndarray:
        """Learner decisions whose outcome (next own decision or the game's end) is known."""
        return self.learner & (self.done | (self.nxt >= 0))


class SeatBook:
    """Per env and seat, the rollout index of the seat's latest learner decision."""

    def __init__(self, b: int, p: int):
        self.last = np.full((b, p), -1, np.int64)
        self.rows = np.arange(b)

    def record(self, ro: Rollout, t: int, envs: np.ndarray, seats: np.ndarray) -> None:
        idx = t * ro.b + envs
        prev = self.last[envs, seats]
        linked = prev >= 0
        ro.nxt.reshape(-1)[prev[linked]] = idx[linked]
        self.last[envs, seats] = idx

    def finish(self, ro: Rollout, ended: np.ndarray, rewards: np.ndarray) -> None:
        last = self.last[ended]
        have = last >= 0
        ro.reward.reshape(-1)[last[have]] = rewards[ended][have]
        ro.done.reshape(-1)[last[have]] = True
        self.last[ended] = -1


# ---------------------------------------------------------------- solved ends


class EndgameCut:
    """The value of each game at its first position where every card is placed (two
    players), solved exactly from the observation of the seat to act.

    Each game is tried once, at that first position; a game whose value the solver does
    not prove within ``nodes`` per move plays on. With ``threads`` > 1 the games are
    solved by that many solvers side by side (the solver releases the GIL), game ``g``
    always by solver ``g % threads``, so that a run is the same from the same seed."""

    def __init__(self, rules, b: int, nodes: int, threads: int = 1):
        self.rules = rules
        self.solvers = [EndgameSolver(rules, nodes, last_card=True, cheap_first=True)
                        for _ in range(max(1, threads))]
        self._pool = ThreadPoolExecutor(len(self.solvers)) if len(self.solvers) > 1 else None
        self.tried = np.zeros(b, np.bool_)  # this game has had its one try
        self.solved = self.unproven = 0

    def new_games(self, envs: np.ndarray) -> None:
        self.tried[envs] = False

    def values(self, venv: VectorEnv, obs: np.ndarray, mask: np.ndarray,
               to_act: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games to end now and every seat's reward in them (float32[n, 2])."""
        st = venv.batch.st
        placed = st["talon_end"] - st["talon_top"] <= 1
        envs = np.flatnonzero(placed & ~self.tried)
        self.tried[envs] = True
        k = len(self.solvers)
        parts = [(self.solvers[i], envs[envs % k == i], obs, mask, to_act) for i in range(k)]
        done = (list(self._pool.map(self._solve, *zip(*parts, strict=True)))
                if self._pool is not None and len(envs) > 1 else [self._solve(*a) for a in parts])
        ended = np.array([g for part in done for g, _ in part[0]], np.int64)
        rewards = np.array([r for part in done for _, r in part[0]], np.float32).reshape(-1, 2)
        self.unproven += sum(part[1] for part in done)
        self.solved += len(ended)
        order = np.argsort(ended, kind="stable")
        return ended[order], rewards[order]

    def _solve(self, solver: EndgameSolver, envs, obs, mask, to_act) -> tuple[list, int]:
        """Solve ``envs`` with one solver: ([(game, rewards)], how many went unproven)."""
        out, unproven = [], 0
        for g in envs:
            v = fast_decode(obs[g], self.rules)
            if not solver.applies(v):
                continue
            if solver.solve(v, np.flatnonzero(mask[g]).tolist()) is None:
                unproven += 1
                continue
            r = np.zeros(2, np.float32)
            r[to_act[g]], r[1 - to_act[g]] = solver.value, -solver.value
            out.append((int(g), r))
        return out, unproven


# ---------------------------------------------------------------- self-play state


class Arena:
    """The vector env with, per env, which seats the learner plays and who plays the rest."""

    def __init__(self, cfg: TrainConfig, seed: int):
        self.cfg, self.rng = cfg, np.random.default_rng(seed)
        self.venv = VectorEnv(cfg.rules, cfg.env.num_envs, seed=seed,
                              num_threads=cfg.env.num_threads, copy=False)
        b, p = cfg.env.num_envs, cfg.rules.num_players
        self.owner = np.zeros((b, p), np.int64)  # 0 learner, k >= 1 opponent slot k
        self.learner_seat = np.full(b, -1, np.int64)  # -1: the learner plays every seat
        self.players: list = []
        self.book = SeatBook(b, p)
        self.cut: EndgameCut | None = None
        self.set_cut(cfg.ppo.endgame_cut_nodes)
        self.greedy_expert = False  # the learner's end-game expert plays greedily
        obs, info = self.venv.reset(seed=seed)
        self.obs, self.mask, self.to_act = obs, info["action_mask"], info["to_act"]

    def set_cut(self, nodes: int) -> None:
        """End each game at its first position with every card placed whose value the
        solver proves within ``nodes`` per move (0: no cut); a game already past that
        position is tried where it stands."""
        b = self.cfg.env.num_envs
        self.cut = EndgameCut(self.cfg.rules, b, nodes, self.cfg.env.num_threads) if nodes else None

    def set_players(self, players: list, n_snap: int) -> None:
        """Opponent slots 1.. for this rollout; the first ``n_snap`` are snapshots."""
        self.players, self.n_snap = players, n_snap
        self.assign(np.arange(self.cfg.env.num_envs))

    def assign(self, envs: np.ndarray) -> None:
        s, p = self.cfg.selfplay, self.cfg.rules.num_players
        shares = np.array([s.self_share, s.pool_share if self.n_snap else 0.0,
                           s.heuristic_share if len(self.players) > self.n_snap else 0.0])
        kind = self.rng.choice(3, size=len(envs), p=shares / shares.sum())
        slot = np.where(kind == 1, 1 + self.rng.integers(0, max(self.n_snap, 1), len(envs)),
                        1 + self.n_snap + self.rng.integers(
                            0, max(len(self.players) - self.n_snap, 1), len(envs)))
        slot = np.where(kind == 0, LEARNER, slot)
        seat = np.where(kind == 0, -1, self.rng.integers(0, p, len(envs)))
        self.owner[envs] = slot[:, None]
        mine = seat >= 0
        self.owner[envs[mine], seat[mine]] = LEARNER
        self.learner_seat[envs] = seat
        if self.cut is not None:
            self.cut.new_games(envs)
        for k, pl in enumerate(self.players, 1):
            if hasattr(pl, "new_games"):
                pl.new_games(envs[slot == k])


@dataclass
class RolloutStats:
    t_env: float = 0.0
    t_infer: float = 0.0
    t_other: float = 0.0
    game_lengths: list = field(default_factory=list)  # of the games played out
    cut: int = 0  # games ended by their solved value (``EndgameCut``)
    results: dict = field(default_factory=dict)  # opponent kind -> [games, learner wins]


def _act_opponents(arena: Arena, actions, owner, ids, counts):
    for k, player in enumerate(arena.players, 1):
        rows = np.flatnonzero(owner == k)
        if len(rows):
            actions[rows] = player.act(arena.obs[rows], arena.mask[rows], ids[rows],
                                       counts[rows], rows, arena.rng)


def _game_ends(arena: Arena, ro: Rollout, pool: Pool, stats: RolloutStats, term, rew,
               lengths=None):
    """Book the games ended where ``term``: rewards ``rew[B, P]``, their ``lengths``
    (None: cut short, not counted)."""
    ended = np.flatnonzero(term)
    if not len(ended):
        return
    arena.book.finish(ro, ended, rew)
    if lengths is not None:
        stats.game_lengths.extend(lengths[ended].tolist())
    seat = arena.learner_seat[ended]
    vs = ended[seat >= 0]
    won = rew[vs, seat[seat >= 0]] > 0
    slot = arena.owner[vs, (seat[seat >= 0] + 1) % arena.cfg.rules.num_players]
    for k, player in enumerate(arena.players, 1):
        sel = slot == k
        kind = "pool" if k <= arena.n_snap else "heuristic"
        g = stats.results.setdefault(kind, [0, 0])
        g[0], g[1] = g[0] + int(sel.sum()), g[1] + int(won[sel].sum())
        if player.pool_index >= 0 and sel.any():
            pool.record(np.full(int(sel.sum()), player.pool_index), won[sel])
    arena.assign(ended)


def _cut_solved(arena: Arena, ro: Rollout, pool: Pool, stats: RolloutStats) -> None:
    """End the games whose value ``arena.cut`` proves now, and deal them anew."""
    ended, rewards = arena.cut.values(arena.venv, arena.obs, arena.mask, arena.to_act)
    if not len(ended):
        return
    b = ro.b
    term = np.zeros(b, np.bool_)
    term[ended] = True
    rew = np.zeros((b, 2), np.float32)
    rew[ended] = rewards
    stats.cut += len(ended)
    _game_ends(arena, ro, pool, stats, term, rew)
    obs, info = arena.venv.reset(options={"reset_mask": term})
    arena.obs, arena.mask, arena.to_act = obs, info["action_mask"], info["to_act"]


def collect_rollout(arena: Arena, net: PPONet, ro: Rollout, pool: Pool) -> RolloutStats:
    """Step the env ``T`` times; store the learner's decisions with their links and rewards."""
    stats, b = RolloutStats(), ro.b
    ro.clear()
    arena.book.last[:] = -1
    actions = np.zeros(b, np.int64)
    for t in range(ro.t):
        t0 = time.perf_counter()
        ids, counts = legal_lists(arena.mask)
        ro.put(t, arena.obs, ids, counts)
        if ro.state is not None:
            ro.state[t].numpy()[:] = arena.venv.state()
        owner = arena.owner[arena.book.rows, arena.to_act]
        mine = np.flatnonzero(owner == LEARNER)
        t1 = time.perf_counter()
        with torch.inference_mode():
            rows = torch.from_numpy(mine)
            w = int(counts[mine].max()) if len(mine) else 1
            pos, logp, _, value = net.get_action_and_value(
                ro.obs[t, rows], ro.ids[t, rows, :w], legal_valid(ro.counts[t, rows], w),
                state=None if ro.state is None else ro.state[t, rows],
                greedy_expert=arena.greedy_expert)
            ro.pos[t, rows], ro.logp[t, rows], ro.value[t, rows] = pos, logp, value
        actions[mine] = ids[mine, pos.numpy()]
        _act_opponents(arena, actions, owner, ids, counts)
        ro.learner[t, mine] = True
        arena.book.record(ro, t, mine, arena.to_act[mine])
        t2 = time.perf_counter()
        obs, rew, term, _, info = arena.venv.step(actions)
        t3 = time.perf_counter()
        arena.obs, arena.mask, arena.to_act = obs, info["action_mask"], info["to_act"]
        _game_ends(arena, ro, pool, stats, term, rew, info["game_length"])
        if arena.cut is not None:
            _cut_solved(arena, ro, pool, stats)
        t4 = time.perf_counter()
        stats.t_env += t3 - t2
        stats.t_infer += t2 - t1
        stats.t_other += (t1 - t0) + (t4 - t3)
    return stats
