"""Rollouts on Ray actors (``ray.actors > 0``): the learner stays in the driver.

Each ``RolloutWorker`` actor owns ``env.num_envs / actors`` games (its own ``Arena``:
vector env, opponents, heuristics) and a copy of the policy, and keeps them alive between
rollouts, so games run on across updates as in the local path. Once per update the
driver puts the weights (and the pool snapshots the opponents draw) into the object store
once; every actor collects ``num_steps`` steps with ``agents.rollout.collect_rollout`` and
returns its slice of the rollout, which ``RayRollouts.collect`` writes into the driver's
``Rollout`` (the batch is the local one, in shape and meaning: ``ppo_update`` is unchanged).

Faults are Ray's: actors are created with ``max_restarts`` and ``max_task_retries``, so
an actor whose process dies is restarted (its games start afresh) and the rollout it was
collecting is collected again by the new process. The driver notices the new process id,
counts the restart, and carries on; the step count and the checkpoints live in the driver.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import torch

from .ppo import PPONet
from .ppo_config import ConfigError, TrainConfig, config_from_dict
from .rollout import Arena, Rollout, RolloutStats, collect_rollout
from .selfplay import Pool, SnapshotPlayer, make_player


def actor_seed(seed: int, update: int, index: int) -> int:
    """The seed of actor ``index``'s games, from the run's seed (reproducible runs for a
    fixed actor count; a resumed run draws new deals, as the local path does)."""
    return int(np.random.SeedSequence([seed, update, index]).generate_state(1, np.uint64)[0])


def connect(cfg: TrainConfig) -> None:
    """Start Ray in this process or join ``ray.address`` (nothing if Ray is running), and
    check that it has the CPUs the actors need.

    Raises:
        ConfigError: the cluster cannot be reached, or is too small for the actors.
    """
    import ray

    r = cfg.ray
    if not ray.is_initialized():
        try:
            # "local": a new Ray in this process, even where a `ray start` cluster runs
            ray.init(address=r.address or "local", include_dashboard=False,
                     log_to_driver=False, configure_logging=False)
        except Exception as e:  # ConnectionError, RuntimeError, AuthenticationError, ...
            hint = ("; the cluster asks for its token: RAY_AUTH_MODE=token in the environment"
                    if _mentions(e, "token") else "")
            raise ConfigError(f"ray.address={r.address!r}: cannot start or join Ray: "
                              f"{str(e).splitlines()[0]}{hint}") from None
    cpus, need = ray.cluster_resources().get("CPU", 0), r.actors * r.num_cpus_per_actor
    if cpus < need:
        raise ConfigError(f"ray.actors={r.actors} with ray.num_cpus_per_actor="
                          f"{r.num_cpus_per_actor} need {need} CPUs, the Ray cluster has "
                          f"{cpus:g}")


def _mentions(e: BaseException | None, word: str) -> bool:
    """Whether ``e`` or an exception it was raised from mentions ``word``."""
    seen = 0
    while e is not None and seen < 10:
        if word in str(e).lower():
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


class _Tally:
    """Stands in for the pool inside an actor: keeps the results for the driver's pool."""

    def __init__(self):
        self.index: list[np.ndarray] = []
        self.won: list[np.ndarray] = []

    def record(self, index: np.ndarray, learner_won: np.ndarray) -> None:
        self.index.append(np.asarray(index, np.int64))
        self.won.append(np.asarray(learner_won, np.bool_))


class RolloutWorker:
    """One actor's games, opponents and policy copy (``ray.remote`` wraps it)."""

    def __init__(self, cfg: dict, index: int, seed: int):
        cfg = config_from_dict(cfg)
        r = cfg.ray
        share = dataclasses.replace(cfg.env, num_envs=cfg.env.num_envs // r.actors,
                                    num_threads=min(cfg.env.num_threads, r.num_cpus_per_actor))
        self.cfg = dataclasses.replace(cfg, env=share)
        torch.set_num_threads(min(cfg.torch_threads, r.num_cpus_per_actor))
        torch.manual_seed(seed % 2**63)
        self.net = PPONet(cfg.rules, cfg.network)
        self.net.eval()
        self.arena = Arena(self.cfg, seed)
        venv = self.arena.venv
        state_size = venv.single_state_space.shape[0] if self.net.global_critic else None
        self.ro = Rollout(cfg.ppo.num_steps, share.num_envs,
                          venv.single_observation_space.shape[0], state_size=state_size)
        self.snap_nets = [PPONet(cfg.rules, cfg.network)
                          for _ in range(cfg.selfplay.active_snapshots)]
        self.heuristics = [make_player(s, cfg.rules, venv) for s in cfg.selfplay.heuristics]

    def pid(self) -> int:
        return os.getpid()

    def collect(self, weights: dict, index: list[int], *states: dict) -> dict:
        """Load the weights and the snapshots (pool ``index``, ``states``), play
        ``num_steps`` steps; the rollout slice as numpy arrays."""
        self.net.load_state_dict(weights)
        snaps = []
        for net, i, state in zip(self.snap_nets, index, states, strict=False):
            net.load_state_dict(state)
            snaps.append(SnapshotPlayer(net, i))
        self.arena.set_players(snaps + self.heuristics, len(snaps))
        tally = _Tally()
        st = collect_rollout(self.arena, self.net, self.ro, tally)
        ro = self.ro
        out = {k: getattr(ro, k).numpy() for k in ("obs", "ids", "counts", "pos", "logp",
                                                    "value")}
        out.update(learner=ro.learner, reward=ro.reward, done=ro.done, nxt=ro.nxt,
                   stats=st, pid=os.getpid(),
                   tally=(np.concatenate(tally.index or [np.zeros(0, np.int64)]),
                          np.concatenate(tally.won or [np.zeros(0, np.bool_)])))
        if ro.state is not None:
            out["state"] = ro.state.numpy()
        return out


class RayRollouts:
    """The actors of a run, seen from the driver."""

    def __init__(self, cfg: TrainConfig, update: int):
        import ray

        connect(cfg)
        r = cfg.ray
        remote = ray.remote(num_cpus=r.num_cpus_per_actor, max_restarts=r.max_restarts,
                            max_task_retries=r.max_restarts)(RolloutWorker)
        data = cfg.to_dict()
        self.ray, self.share = ray, cfg.env.num_envs // r.actors
        self.actors = [remote.remote(data, k, actor_seed(cfg.seed, update, k))
                       for k in range(r.actors)]
        self.pids = ray.get([a.pid.remote() for a in self.actors])
        self.restarts = 0

    def collect(self, net: PPONet, snapshots: list[tuple[int, dict]], ro: Rollout,
                pool: Pool) -> RolloutStats:
        """One rollout on every actor into ``ro``; the pool gets the snapshot results."""
        ray = self.ray
        weights = ray.put({k: v.detach().cpu().clone() for k, v in net.state_dict().items()})
        index = [i for i, _ in snapshots]
        # Ray resolves references passed as arguments, not those nested in a list.
        states = [ray.put(s) for _, s in snapshots]
        parts = ray.get([a.collect.remote(weights, index, *states) for a in self.actors])
        return self._merge(parts, ro, pool)

    def _merge(self, parts: list[dict], ro: Rollout, pool: Pool) -> RolloutStats:
        ro.clear()
        width = max(p["ids"].shape[2] for p in parts)
        if width > ro.ids.shape[2]:
            ro.ids = torch.zeros(ro.t, ro.b, width, dtype=torch.int64)
        stats = RolloutStats()
        for k, p in enumerate(parts):
            sl, w = slice(k * self.share, (k + 1) * self.share), p["ids"].shape[2]
            for name in ("obs", "counts", "pos", "logp", "value", "state"):
                if name in p:
                    getattr(ro, name)[:, sl].numpy()[:] = p[name]
            ro.ids[:, sl, :w].numpy()[:] = p["ids"]
            ro.ids[:, sl, w:] = 0
            for name in ("learner", "reward", "done"):
                getattr(ro, name)[:, sl] = p[name]
            nxt = p["nxt"]
            linked = nxt >= 0
            ro.nxt[:, sl] = np.where(linked, nxt // self.share * ro.b + k * self.share
                                     + nxt % self.share, -1)
            self._add_stats(stats, p["stats"], len(parts))
            if len(p["tally"][0]):
                pool.record(*p["tally"])
            if p["pid"] != self.pids[k]:  # Ray restarted the actor: fresh games there
                self.pids[k] = p["pid"]
                self.restarts += 1
        return stats

    @staticmethod
    def _add_stats(total: RolloutStats, part: RolloutStats, n: int) -> None:
        total.t_env += part.t_env / n  # the actors run side by side: their mean time
        total.t_infer += part.t_infer / n
        total.t_other += part.t_other / n
        total.game_lengths.extend(part.game_lengths)
        total.cut += part.cut
        for kind, (g, w) in part.results.items():
            acc = total.results.setdefault(kind, [0, 0])
            acc[0], acc[1] = acc[0] + g, acc[1] + w

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
