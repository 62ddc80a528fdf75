"""Self-play PPO over ``VectorEnv``: rollout collection, per-seat GAE, the update, the loop.

Every entry of the vector env is one game seen from the seat to act. Each seat's
decisions form its own trajectory: while collecting, ``last[env, seat]`` holds the
rollout index of that seat's latest decision, so each new decision links the
previous one to itself (``nxt``), and a finished game writes every seat's reward
onto that seat's last decision (``done``). Moves of the other seats in between are
environment. A learner decision whose successor is not in the rollout yet is not
trained on; its value bootstraps its predecessor (truncated GAE).
"""

from __future__ import annotations

import os

# numba's and torch's OpenMP workers must not spin while the other one computes:
# with spinning workers on 2 cores, every torch op after an env step ran ~10x slower.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

from durak_env import Rules  # noqa: E402
from durak_env.vector import VectorEnv  # noqa: E402

from .expert_kernel import expert_actions  # noqa: E402
from .ppo import PPONet, legal_lists, legal_valid, load_checkpoint, save_checkpoint  # noqa: E402
from .ppo_config import TrainConfig, config_from_dict, dump_config, read_yaml  # noqa: E402
from .stats import wilson  # noqa: E402

LEARNER = 0


# ---------------------------------------------------------------- opponents


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
        self.agents: dict[int, object] = {}

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


# ---------------------------------------------------------------- rollout storage


class Rollout:
    """``[T, B]`` storage; ``ids``/``counts`` are the action masks as legal lists."""

    def __init__(self, t: int, b: int, obs_size: int, width: int = 32):
        self.t, self.b = t, b
        self.obs = torch.zeros(t, b, obs_size)
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
        obs, info = self.venv.reset(seed=seed)
        self.obs, self.mask, self.to_act = obs, info["action_mask"], info["to_act"]

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
        for k, pl in enumerate(self.players, 1):
            if isinstance(pl, HeuristicPlayer):
                pl.new_games(envs[slot == k])


@dataclass
class RolloutStats:
    t_env: float = 0.0
    t_infer: float = 0.0
    t_other: float = 0.0
    game_lengths: list = field(default_factory=list)
    results: dict = field(default_factory=dict)  # opponent kind -> [games, learner wins]


def _act_opponents(arena: Arena, actions, owner, ids, counts):
    for k, player in enumerate(arena.players, 1):
        rows = np.flatnonzero(owner == k)
        if len(rows):
            actions[rows] = player.act(arena.obs[rows], arena.mask[rows], ids[rows],
                                       counts[rows], rows, arena.rng)


def _game_ends(arena: Arena, ro: Rollout, pool: Pool, stats: RolloutStats, term, rew, info):
    ended = np.flatnonzero(term)
    if not len(ended):
        return
    arena.book.finish(ro, ended, rew)
    stats.game_lengths.extend(info["game_length"][ended].tolist())
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
        owner = arena.owner[arena.book.rows, arena.to_act]
        mine = np.flatnonzero(owner == LEARNER)
        t1 = time.perf_counter()
        with torch.inference_mode():
            rows = torch.from_numpy(mine)
            w = int(counts[mine].max()) if len(mine) else 1
            pos, logp, _, value = net.get_action_and_value(
                ro.obs[t, rows], ro.ids[t, rows, :w], legal_valid(ro.counts[t, rows], w))
            ro.pos[t, rows], ro.logp[t, rows], ro.value[t, rows] = pos, logp, value
        actions[mine] = ids[mine, pos.numpy()]
        _act_opponents(arena, actions, owner, ids, counts)
        ro.learner[t, mine] = True
        arena.book.record(ro, t, mine, arena.to_act[mine])
        t2 = time.perf_counter()
        obs, rew, term, _, info = arena.venv.step(actions)
        t3 = time.perf_counter()
        arena.obs, arena.mask, arena.to_act = obs, info["action_mask"], info["to_act"]
        _game_ends(arena, ro, pool, stats, term, rew, info)
        t4 = time.perf_counter()
        stats.t_env += t3 - t2
        stats.t_infer += t2 - t1
        stats.t_other += (t1 - t0) + (t4 - t3)
    return stats


# ---------------------------------------------------------------- GAE and the update


def compute_gae(value: np.ndarray, reward: np.ndarray, done: np.ndarray, nxt: np.ndarray,
                trainable: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's own trajectory, linked by ``nxt`` (flat index or -1).

    All arrays are ``[T, B]``; ``nxt`` always points to a later row. A trainable
    decision either ends its seat's game (``done``, reward attached) or links to a
    next decision; an untrainable successor only bootstraps with its value.

    Returns:
        (advantages, returns), ``[T, B]``, zero where not trainable.
    """
    t_len, b = value.shape
    v, nx, tr = value.reshape(-1), nxt.reshape(-1), trainable.reshape(-1)
    adv = np.zeros(t_len * b, np.float32)
    for t in range(t_len - 1, -1, -1):
        s = slice(t * b, (t + 1) * b)
        n = nx[s]
        has = n >= 0
        next_v = np.where(has, v[n], 0.0)
        next_a = np.where(has & tr[n], adv[n], 0.0)
        delta = reward[t] + gamma * next_v * ~done[t] - v[s]
        adv[s] = np.where(tr[s], delta + gamma * lam * next_a * ~done[t], 0.0)
    adv = adv.reshape(t_len, b)
    return adv, np.where(trainable, adv + value, 0.0).astype(np.float32)


def ppo_update(net: PPONet, opt: torch.optim.Optimizer, batch: dict, cfg, rng) -> dict:
    """Clipped-surrogate PPO epochs over minibatches of the learner's samples."""
    n = len(batch["adv"])
    clipfracs, stats = [], {}
    for _ in range(cfg.update_epochs):
        perm = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, cfg.minibatch_size):
            mb = perm[start:start + cfg.minibatch_size]
            w = int(batch["counts"][mb].max())
            _, newlogp, entropy, newv = net.get_action_and_value(
                batch["obs"][mb], batch["ids"][mb, :w], legal_valid(batch["counts"][mb], w),
                batch["pos"][mb])
            logratio = newlogp - batch["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            adv = batch["adv"][mb]
            if cfg.norm_adv and len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio,
                                -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            v_loss = _value_loss(newv, batch["ret"][mb], batch["value"][mb], cfg)
            ent = entropy.mean()
            loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
        if cfg.target_kl is not None and approx_kl > cfg.target_kl:
            break
    stats.update(policy_loss=pg_loss.item(), value_loss=v_loss.item(), entropy=ent.item(),
                 approx_kl=approx_kl.item(), clipfrac=float(np.mean(clipfracs)))
    return stats


def _value_loss(newv, ret, oldv, cfg):
    if not cfg.clip_vloss:
        return 0.5 * ((newv - ret) ** 2).mean()
    clipped = oldv + (newv - oldv).clamp(-cfg.clip_coef, cfg.clip_coef)
    return 0.5 * torch.max((newv - ret) ** 2, (clipped - ret) ** 2).mean()


def make_batch(ro: Rollout, adv: np.ndarray, ret: np.ndarray, trainable: np.ndarray) -> dict:
    """The trainable samples as flat ``b_`` tensors."""
    idx = torch.from_numpy(np.flatnonzero(trainable.reshape(-1)))
    w = int(ro.counts.reshape(-1)[idx].max()) if len(idx) else 1
    return {
        "obs": ro.obs.reshape(-1, ro.obs.shape[-1])[idx],
        "ids": ro.ids.reshape(-1, ro.ids.shape[-1])[idx, :w],
        "counts": ro.counts.reshape(-1)[idx],
        "pos": ro.pos.reshape(-1)[idx],
        "logp": ro.logp.reshape(-1)[idx],
        "value": ro.value.reshape(-1)[idx],
        "adv": torch.from_numpy(adv.reshape(-1))[idx],
        "ret": torch.from_numpy(ret.reshape(-1))[idx],
    }


def explained_variance(y_pred: torch.Tensor, y_true: torch.Tensor) -> float:
    var_y = y_true.var().item()
    return float("nan") if var_y == 0 else 1.0 - (y_true - y_pred).var().item() / var_y


# ---------------------------------------------------------------- evaluation


@torch.inference_mode()
def evaluate(net: PPONet, rules: Rules, spec: str, games: int, seed: int = 12345,
             greedy: bool = True, num_threads: int | None = None) -> dict:
    """Play ``games`` games (one per env, the learner's seat alternating) against ``spec``."""
    venv = VectorEnv(rules, games, seed=seed, num_threads=num_threads, copy=False)
    obs, info = venv.reset(seed=seed)
    mask, to_act = info["action_mask"], info["to_act"]
    seat = np.arange(games) % rules.num_players
    result = np.zeros(games)
    finished = np.zeros(games, np.bool_)
    opp, rng = make_player(spec, rules, venv), np.random.default_rng(seed)
    while not finished.all():
        ids, counts = legal_lists(mask)
        mine = to_act == seat
        actions = RandomPlayer().act(None, None, ids, counts, None, rng)
        rows = np.flatnonzero(mine & ~finished)
        if len(rows):
            valid = legal_valid(torch.from_numpy(counts[rows]), ids.shape[1])
            pos, _, _, _ = net.get_action_and_value(
                torch.from_numpy(obs[rows]), torch.from_numpy(ids[rows]), valid, greedy=greedy)
            actions[rows] = ids[rows, pos.numpy()]
        rows = np.flatnonzero(~mine & ~finished)
        if len(rows):
            actions[rows] = opp.act(obs[rows], mask[rows], ids[rows], counts[rows], rows, rng)
        obs, rew, term, _, info = venv.step(actions)
        mask, to_act = info["action_mask"], info["to_act"]
        new = term & ~finished
        result[new] = rew[new, seat[new]]
        finished |= term
    wins, losses = int((result > 0).sum()), int((result < 0).sum())
    lo, hi = wilson(wins, games)
    return {"opponent": spec, "games": games, "wins": wins, "losses": losses,
            "draws": games - wins - losses, "winrate": wins / games, "ci95": [lo, hi]}


# ---------------------------------------------------------------- the training loop


def run_name(cfg: TrainConfig) -> str:
    return f"{cfg.exp_name}__{cfg.seed}__{int(time.time())}"


class Trainer:
    """Wires arena, rollout, GAE, update, pool, evaluation, logging and checkpoints."""

    def __init__(self, cfg: TrainConfig, run_dir: Path, resume: bool = False):
        self.cfg, self.run_dir = cfg, Path(run_dir)
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        self.net = PPONet(cfg.rules, cfg.network)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.ppo.lr, eps=1e-5)
        self.pool = Pool()
        self.update, self.global_step, self.elapsed = 0, 0, 0.0
        self.last_eval: dict = {}
        self.history: list[dict] = []
        if resume:
            self._resume()
        self.rng = np.random.default_rng([cfg.seed, self.update])
        self.arena = Arena(cfg, cfg.seed + 7919 * self.update)
        steps = cfg.ppo.num_steps * cfg.env.num_envs
        self.num_updates = max(1, math.ceil(cfg.ppo.total_timesteps / steps))
        self.ro = Rollout(cfg.ppo.num_steps, cfg.env.num_envs, self.net.trunk[0].in_features)
        self.snap_nets = [PPONet(cfg.rules, cfg.network)
                          for _ in range(cfg.selfplay.active_snapshots)]
        self.heuristics = [make_player(s, cfg.rules, self.arena.venv)
                           for s in cfg.selfplay.heuristics]

    def _resume(self):
        ck = self.run_dir / "checkpoints" / "latest.pt"
        self.net, data = load_checkpoint(ck, self.cfg.rules)
        self.net.train()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=self.cfg.ppo.lr, eps=1e-5)
        self.opt.load_state_dict(data["optimizer"])
        self.update, self.global_step = data["update"], data["global_step"]
        self.elapsed = data.get("elapsed", 0.0)
        self.pool = Pool(**data["pool"])
        self.history = data.get("history", [])

    def _players(self) -> list:
        snaps = []
        if self.pool.states and self.cfg.selfplay.pool_share > 0:
            picks = self.pool.sample(len(self.snap_nets), self.cfg.selfplay.pool_sampling, self.rng)
            for net, i in zip(self.snap_nets, picks, strict=True):
                net.load_state_dict(self.pool.states[i])
                snaps.append(SnapshotPlayer(net, int(i)))
        return snaps + self.heuristics, len(snaps)

    def train_step(self) -> dict:
        """One rollout and one update; returns the scalars to log."""
        cfg = self.cfg
        if cfg.ppo.anneal_lr:
            frac = 1.0 - self.update / self.num_updates
            self.opt.param_groups[0]["lr"] = frac * cfg.ppo.lr
        t0 = time.perf_counter()
        self.net.eval()
        self.arena.set_players(*self._players())
        st = collect_rollout(self.arena, self.net, self.ro, self.pool)
        t1 = time.perf_counter()
        tr = self.ro.trainable()
        adv, ret = compute_gae(self.ro.value.numpy(), self.ro.reward, self.ro.done, self.ro.nxt,
                               tr, cfg.ppo.gamma, cfg.ppo.gae_lambda)
        batch = make_batch(self.ro, adv, ret, tr)
        self.net.train()
        losses = ppo_update(self.net, self.opt, batch, cfg.ppo, self.rng)
        t2 = time.perf_counter()
        self.update += 1
        self.global_step += self.ro.t * self.ro.b
        self.elapsed += t2 - t0
        if self.update % cfg.selfplay.snapshot_every == 0 or not self.pool.states:
            self.pool.add(self.net, cfg.selfplay.pool_size)
        return self._scalars(st, losses, batch, t2 - t0, t1 - t0, t2 - t1)

    def _scalars(self, st: RolloutStats, losses, batch, dt, t_roll, t_upd) -> dict:
        out = {f"losses/{k}": v for k, v in losses.items()}
        out["losses/explained_variance"] = explained_variance(batch["value"], batch["ret"])
        out["charts/SPS"] = self.ro.t * self.ro.b / dt
        out["charts/learning_rate"] = self.opt.param_groups[0]["lr"]
        out["charts/learner_samples"] = len(batch["adv"])
        if st.game_lengths:
            out["charts/game_length"] = float(np.mean(st.game_lengths))
        for kind, (g, w) in st.results.items():
            if g:
                out[f"charts/winrate_vs_{kind}"] = w / g
        out["charts/pool_size"] = len(self.pool.states)
        out.update({"perf/rollout_s": t_roll, "perf/update_s": t_upd, "perf/env_s": st.t_env,
                    "perf/inference_s": st.t_infer, "perf/bookkeeping_s": st.t_other})
        if "charts/winrate_vs_pool" in out:
            w = min(max(out["charts/winrate_vs_pool"], 1e-3), 1 - 1e-3)
            out["charts/elo_vs_pool"] = 400 * math.log10(w / (1 - w))
        return out

    def evaluate_all(self, games: int) -> dict:
        res = {}
        for spec in self.cfg.eval.opponents:
            n = games if spec == "random" else min(games, self.cfg.eval.heuristic_games)
            res[spec] = evaluate(self.net, self.cfg.rules, spec, n,
                                 seed=self.cfg.seed * 1000 + 17, greedy=self.cfg.eval.greedy,
                                 num_threads=self.cfg.env.num_threads)
        self.last_eval = res
        return res

    def save(self, name: str = "latest.pt") -> Path:
        path = self.run_dir / "checkpoints" / name
        save_checkpoint(path, self.net, self.opt, self.cfg.to_dict(), extra={
            "update": self.update, "global_step": self.global_step, "elapsed": self.elapsed,
            "pool": self.pool.state(), "history": self.history})
        return path


def start_run(cfg: TrainConfig) -> Path:
    run_dir = Path(cfg.logging.runs_dir) / run_name(cfg)
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    dump_config(cfg, run_dir / "config.yaml")
    return run_dir


def resume_config(run_dir: Path, overrides: list[str]) -> TrainConfig:
    run_dir = Path(run_dir)
    if not (run_dir / "checkpoints" / "latest.pt").is_file():
        raise FileNotFoundError(f"{run_dir} is not a run directory with checkpoints/latest.pt")
    return config_from_dict(read_yaml(run_dir / "config.yaml"), overrides)


def train(cfg: TrainConfig, run_dir: Path, resume: bool = False) -> dict:
    """Run (or continue) training; returns the final evaluation."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    trainer = Trainer(cfg, run_dir, resume)
    writer = SummaryWriter(str(run_dir))
    bar = tqdm(total=trainer.num_updates * trainer.ro.t * trainer.ro.b, initial=trainer.global_step,
               unit="step", unit_scale=True, disable=not cfg.logging.progress, dynamic_ncols=True)
    speed = _SpeedLog()
    while trainer.update < trainer.num_updates:
        scalars = trainer.train_step()
        speed.add(scalars)
        if trainer.update % cfg.logging.log_every == 0:
            for k, v in scalars.items():
                writer.add_scalar(k, v, trainer.global_step)
        if cfg.eval.every and trainer.update % cfg.eval.every == 0 \
                and trainer.update < trainer.num_updates:
            _log_eval(trainer, writer, trainer.evaluate_all(cfg.eval.games))
        if trainer.update % cfg.logging.checkpoint_every == 0:
            trainer.save()
        bar.update(trainer.ro.t * trainer.ro.b)
        bar.set_postfix(_postfix(scalars, trainer.last_eval), refresh=False)
    bar.close()
    final = trainer.evaluate_all(cfg.eval.final_games) if cfg.eval.final_games else {}
    _log_eval(trainer, writer, final)
    trainer.save()
    trainer.save("final.pt")
    writer.close()
    summary = {"global_step": trainer.global_step, "updates": trainer.update,
               "train_seconds": trainer.elapsed, "final_eval": final, "speed": speed.summary()}
    (run_dir / "final_eval.json").write_text(json.dumps(summary, indent=2))
    return summary


class _SpeedLog:
    """``charts/SPS`` and the time split over a run, for the summary line.

    The first update (numba and torch warm-up) is left out of both.
    """

    PARTS = ("env", "inference", "bookkeeping", "update")

    def __init__(self):
        self.sps: list[float] = []
        self.seconds = dict.fromkeys(self.PARTS, 0.0)
        self.seen = 0

    def add(self, scalars: dict) -> None:
        self.seen += 1
        if self.seen == 1:
            return
        self.sps.append(scalars["charts/SPS"])
        for part in self.PARTS:
            self.seconds[part] += scalars[f"perf/{part}_s"]

    def summary(self) -> dict:
        if not self.sps:
            return {}
        total = sum(self.seconds.values()) or 1.0
        return {"sps_median": float(np.median(self.sps)),
                "time_share": {k: v / total for k, v in self.seconds.items()}}


def _log_eval(trainer: Trainer, writer, res: dict) -> None:
    rec = {"global_step": trainer.global_step}
    for spec, r in res.items():
        writer.add_scalar(f"eval/winrate_vs_{spec}", r["winrate"], trainer.global_step)
        writer.add_scalar(f"eval/winrate_vs_{spec}_lo", r["ci95"][0], trainer.global_step)
        writer.add_scalar(f"eval/winrate_vs_{spec}_hi", r["ci95"][1], trainer.global_step)
        rec[spec] = r["winrate"]
    trainer.history.append(rec)


def _postfix(scalars: dict, last_eval: dict) -> dict:
    out = {"SPS": f"{scalars['charts/SPS']:.0f}"}
    for spec, r in last_eval.items():
        out[spec] = f"{r['winrate']:.2f}"
    return out
