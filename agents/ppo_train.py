"""Self-play PPO training: the ``Trainer`` (rollout, GAE, update, snapshot pool,
evaluation, logging, checkpoints) and ``train``, the loop ``train.py`` runs.

The parts live in ``agents.selfplay`` (opponents, snapshot pool), ``agents.rollout``
(the vector env and the per-seat trajectories) and ``agents.ppo_update`` (GAE and the
PPO update).
"""

from __future__ import annotations

import os

# numba's and torch's OpenMP workers must not spin while the other one computes:
# on few cores, spinning workers make every torch op after an env step many times slower.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import dataclasses  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from durak_env import Rules  # noqa: E402
from durak_env.atomic import write_text  # noqa: E402
from durak_env.vector import VectorEnv  # noqa: E402

from .distill import Distiller  # noqa: E402
from .ppo import PLAY_SETTINGS, PPONet, legal_valid, load_checkpoint, save_checkpoint  # noqa: E402
from .ppo_config import (  # noqa: E402
    ConfigError,
    TrainConfig,
    config_from_dict,
    dump_config,
    read_yaml,
)
from .ppo_update import (  # noqa: E402
    add_ref_logp,
    compute_gae,
    explained_variance,
    make_batch,
    ppo_update,
)
from .rollout import Arena, Rollout, RolloutStats, collect_rollout  # noqa: E402
from .selfplay import EndgameHandoff, Pool, SnapshotPlayer, make_player, play_against  # noqa: E402
from .stats import wilson  # noqa: E402

# ---------------------------------------------------------------- evaluation


@torch.inference_mode()
def evaluate(net: PPONet, rules: Rules, spec: str, games: int, seed: int = 12345,
             greedy: bool = True, num_threads: int | None = None) -> dict:
    """Play ``games`` games (one per env, the learner's seat alternating) against ``spec``.

    A game still running after ``MAX_DECISIONS`` decisions (deterministic players can
    cycle forever with more than two seats) is stopped and counted as a draw, as the
    tournament does; ``unfinished`` counts them.
    """
    result, finished = play_against(net, rules, spec, games, seed, greedy, num_threads)
    wins, losses = int((result > 0).sum()), int((result < 0).sum())
    lo, hi = wilson(wins, games)
    return {"opponent": spec, "games": games, "wins": wins, "losses": losses,
            "draws": games - wins - losses, "unfinished": int((~finished).sum()),
            "winrate": wins / games, "ci95": [lo, hi]}


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
        self.ref: PPONet | None = None
        self.on_eval: Callable[[dict], None] | None = None
        if resume:
            self._resume()
        self.rng = np.random.default_rng([cfg.seed, self.update])
        # the fine-tuning updates after the end-game stage are numbered after the PPO ones
        self.num_updates, self.finetune_updates = stage_updates(cfg)
        self.actors = None  # the Ray actors that collect the rollouts (ray.actors > 0)
        if cfg.ray.actors:
            from .ray_rollout import RayRollouts

            self.arena, venv = None, VectorEnv(cfg.rules, 1)  # the spaces only
            self.actors = RayRollouts(cfg, self.update)
        else:
            self.arena = Arena(cfg, (cfg.seed + 7919 * self.update) % 2**64)  # a seed stays one
            venv = self.arena.venv
        state_size = venv.single_state_space.shape[0] if self.net.global_critic else None
        self.ro = Rollout(cfg.ppo.num_steps, cfg.env.num_envs,
                          venv.single_observation_space.shape[0], state_size=state_size)
        # the local path's opponents (the actors have their own)
        self.snap_nets, self.heuristics = [], []
        if self.actors is None:
            self.snap_nets = [PPONet(cfg.rules, cfg.network)
                              for _ in range(cfg.selfplay.active_snapshots)]
            self.heuristics = [make_player(s, cfg.rules, venv) for s in cfg.selfplay.heuristics]
        self.distiller = Distiller(cfg.rules, cfg.search, cfg.distill, self.ro.obs.shape[-1],
                                   cfg.seed)

    @property
    def imitation_path(self) -> Path:
        return self.run_dir / "checkpoints" / "imitation.pt"

    def imitate(self, writer=None) -> dict | None:
        """The imitation stage (``imitation.positions > 0``), once per run: clone the
        teacher, save ``checkpoints/imitation.pt`` and ``imitation.json``, and keep the
        clone as the KL reference. A resumed run loads the clone instead."""
        from .imitation import clone, generate_positions
        from .teacher import SearchLabeler

        cfg = self.cfg
        if cfg.imitation.positions == 0:
            return None
        if self.update > 0 and not self.imitation_path.is_file():
            return None  # a run adopted past its imitation stage (agents.finetune)
        if self.imitation_path.is_file():
            if cfg.ppo.kl_coef:
                self.ref = load_checkpoint(self.imitation_path, cfg.rules)[0]
            return None
        t0 = time.perf_counter()
        im = cfg.imitation
        labeler = (SearchLabeler(cfg.rules, cfg.search, cfg.seed, threads=cfg.env.num_threads)
                   if im.search else None)
        data = generate_positions(cfg.rules, im.positions, im, labeler, cfg.seed + 1,
                                  with_state=self.net.global_critic,
                                  num_threads=cfg.env.num_threads,
                                  progress=cfg.logging.progress)
        t_data = time.perf_counter() - t0

        def log(rep):
            if writer is not None:
                for k in ("agreement", "agreement_searched", "ce", "value_loss"):
                    writer.add_scalar(f"imitation/{k}", rep[k], rep["epoch"])

        rep = clone(self.net, data, im, cfg.seed, progress=cfg.logging.progress, log=log)
        rep.update(data_seconds=t_data, seconds=time.perf_counter() - t0,
                   positions=len(data), searched_share=float(data.searched.mean()))
        self.elapsed += rep["seconds"]
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.ppo.lr, eps=1e-5)
        save_checkpoint(self.imitation_path, self.net, None, cfg.to_dict(),
                        extra={"imitation": {k: v for k, v in rep.items() if k != "history"}})
        (self.run_dir / "imitation.json").write_text(json.dumps(rep, indent=2))
        if cfg.ppo.kl_coef:
            self.ref = load_checkpoint(self.imitation_path, cfg.rules)[0]
        self.save()  # a run killed from here on resumes after the imitation stage
        return rep

    def endgame_stage(self, writer=None) -> dict | None:
        """The end-game stage (``endgame.games > 0``), once per run, after PPO: fit the
        end-game expert to solved positions (``agents.endgame_expert``), save the
        checkpoint and ``endgame.json``. After each round the checkpoint, the labelled
        positions (``endgame_data.npz``) and the report so far (``endgame_rounds.json``)
        are saved, so a run killed during the stage resumes after its last finished round;
        a resumed run whose stage is over skips it."""
        from .endgame_expert import load_positions, run_stage, save_positions, write_report

        cfg = self.cfg
        data_path = self.run_dir / "endgame_data.npz"
        rounds_path = self.run_dir / "endgame_rounds.json"
        finished = (self.run_dir / "endgame.json").exists() or not rounds_path.exists()
        if cfg.endgame.games == 0 or (self.net.endgame.active and finished):
            return None
        done = None
        if rounds_path.exists():  # killed during the stage: go on after the last round
            report = json.loads(rounds_path.read_text())
            data = load_positions(data_path, self.net)
            # positions of a round whose report was not written yet are played again
            keep = data["game"] < len(report["rounds"]) * cfg.endgame.games
            done = {"report": report, "data": {k: v[keep] for k, v in data.items()}}
        base = self.global_step

        def log(epoch, loss, blunders):
            if writer is not None:
                writer.add_scalar("endgame/loss", loss, base + epoch)
                writer.add_scalar("endgame/heldout_blunders", blunders, base + epoch)

        def on_round(report, data):
            self.save()  # the expert of this round first: the report says which round it is
            save_positions(data_path, data)
            write_report(rounds_path, report)

        rep = run_stage(self.net, cfg.endgame, cfg.search, cfg.seed, cfg.env.num_threads,
                        progress=cfg.logging.progress, log=log, done=done, on_round=on_round)
        self.elapsed += rep["seconds"]  # the checkpoints of the rounds count none of it
        write_report(self.run_dir / "endgame.json", rep)
        self.save()  # a run killed from here on resumes after the end-game stage
        return rep

    @property
    def all_updates(self) -> int:
        return self.num_updates + self.finetune_updates

    @property
    def distilling(self) -> bool:
        """Whether the search labels reach trainable weights. Not in fine-tuning when the
        frozen end-game expert plays every position a search applies to
        (``network.endgame_talon`` >= ``search.pimc_talon``): there the loss would be a
        constant, so the labelling and the loss are skipped."""
        if not self.distiller.active:
            return False
        return not (self.net.expert_frozen
                    and self.net.endgame.talon >= self.distiller.labeler.max_talon)

    def start_finetune(self) -> None:
        """Enter the fine-tuning updates (``endgame.finetune_timesteps``): the fitted
        end-game expert is frozen (the PPO and distillation losses reach the main head
        only), with ``endgame.finetune_cut_nodes`` the games end where every card is
        placed, with ``endgame.handoff`` the heuristic opponents hand the expert their
        end game, and with ``endgame.finetune_greedy`` the expert plays greedily for the
        learner and its snapshots. Entering them, the optimizer and the snapshot pool start
        afresh (PPO's snapshots hold no fitted expert, and its learning rate has decayed to
        0), as ``agents.finetune`` starts a finished checkpoint. Called again on a resumed
        run, which keeps the fine-tuning's own."""
        if self.net.endgame is None or not self.net.endgame.active:
            raise RuntimeError("fine-tuning needs a fitted end-game expert")
        for p in self.net.endgame.parameters():
            p.requires_grad_(False)
        if self.update == self.num_updates:
            self.opt = torch.optim.Adam(self.net.parameters(), lr=self.cfg.endgame.finetune_lr,
                                        eps=1e-5)
            self.pool = Pool()
        nodes = self.cfg.endgame.finetune_cut_nodes
        if nodes and self.arena is not None:
            self.arena.set_cut(nodes)
        if self.arena is not None:
            self.arena.greedy_expert = self.cfg.endgame.finetune_greedy
        if self.cfg.endgame.finetune_symmetries:
            for net in (self.net, *self.snap_nets):
                net.endgame.set_symmetries(self.cfg.endgame.finetune_symmetries)
        if self.cfg.endgame.handoff and self.actors is None:
            self.heuristics = [h if isinstance(h, EndgameHandoff) else EndgameHandoff(h, self.net)
                               for h in self.heuristics]

    def learning_rate(self) -> float:
        """``ppo.lr`` over the PPO updates, ``endgame.finetune_lr`` over the fine-tuning
        ones, each decayed linearly to 0 over its own updates with ``ppo.anneal_lr``."""
        cfg = self.cfg
        if self.update < self.num_updates:
            lr, done, total = cfg.ppo.lr, self.update, self.num_updates
        else:
            lr, done = cfg.endgame.finetune_lr, self.update - self.num_updates
            total = self.finetune_updates
        return lr * (1.0 - done / total) if cfg.ppo.anneal_lr else lr

    def kl_coef(self) -> float:
        p = self.cfg.ppo
        if not p.kl_decay_updates:
            return p.kl_coef
        return p.kl_coef * max(0.0, 1.0 - self.update / p.kl_decay_updates)

    def _resume(self):
        ck = self.run_dir / "checkpoints" / "latest.pt"
        self.net, data = load_checkpoint(ck, self.cfg.rules)
        self.net.train()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=self.cfg.ppo.lr, eps=1e-5)
        if data.get("optimizer") is not None:  # none between PPO and fine-tuning (save)
            self.opt.load_state_dict(data["optimizer"])
        self.update, self.global_step = data["update"], data["global_step"]
        self.elapsed = data.get("elapsed", 0.0)
        self.pool = Pool(**data.get("pool", {}))
        self.history = data.get("history", [])

    def _picks(self) -> list[int]:
        """The pool snapshots this rollout's opponents play."""
        if self.pool.states and self.cfg.selfplay.pool_share > 0:
            n, how = self.cfg.selfplay.active_snapshots, self.cfg.selfplay.pool_sampling
            return [int(i) for i in self.pool.sample(n, how, self.rng)]
        return []

    def _players(self) -> list:
        snaps = []
        for net, i in zip(self.snap_nets, self._picks(), strict=False):
            net.load_state_dict(self.pool.states[i])
            snaps.append(SnapshotPlayer(net, i, self.arena.greedy_expert))
        return snaps + self.heuristics, len(snaps)

    def _collect(self) -> RolloutStats:
        if self.actors is None:
            self.arena.set_players(*self._players())
            return collect_rollout(self.arena, self.net, self.ro, self.pool)
        snaps = [(i, self.pool.states[i]) for i in self._picks()]
        return self.actors.collect(self.net, snaps, self.ro, self.pool)

    def close(self) -> None:
        """Stop the distiller's thread and the rollout actors."""
        self.distiller.close()
        if self.actors is not None:
            self.actors.close()

    def train_step(self) -> dict:
        """One rollout and one update; returns the scalars to log."""
        cfg = self.cfg
        if cfg.ppo.anneal_lr or self.update >= self.num_updates:
            self.opt.param_groups[0]["lr"] = self.learning_rate()
        t0 = time.perf_counter()
        self.net.eval()
        st = self._collect()
        if self.distilling:
            self._submit_labels()
        t1 = time.perf_counter()
        tr = self.ro.trainable()
        adv, ret = compute_gae(self.ro.value.numpy(), self.ro.reward, self.ro.done, self.ro.nxt,
                               tr, cfg.ppo.gamma, cfg.ppo.gae_lambda)
        batch = make_batch(self.ro, adv, ret, tr)
        self.net.train()
        if self.ref is not None and self.kl_coef() > 0:
            add_ref_logp(batch, self.ref)
        losses = ppo_update(self.net, self.opt, batch, cfg.ppo, self.rng, kl_coef=self.kl_coef(),
                            distiller=self.distiller if self.distilling else None)
        t2 = time.perf_counter()
        self.update += 1
        self.global_step += self.ro.t * self.ro.b
        self.elapsed += t2 - t0
        if self.update % cfg.selfplay.snapshot_every == 0 or not self.pool.states:
            self.pool.add(self.net, cfg.selfplay.pool_size)
        return self._scalars(st, losses, batch, t2 - t0, t1 - t0, t2 - t1)

    @torch.inference_mode()
    def _submit_labels(self) -> None:
        """Hand this rollout's learner decisions to the distiller (it labels a few), but
        for those a frozen end-game expert plays."""
        ro = self.ro
        rows = torch.from_numpy(np.flatnonzero(ro.learner.reshape(-1)))
        frozen = self.net.frozen_rows(ro.obs.reshape(-1, ro.obs.shape[-1])[rows])
        if frozen is not None:
            rows = rows[~frozen]
        obs = ro.obs.reshape(-1, ro.obs.shape[-1])[rows]
        ids, counts = ro.ids.reshape(-1, ro.ids.shape[-1])[rows], ro.counts.reshape(-1)[rows]
        chosen = ids.gather(1, ro.pos.reshape(-1)[rows][:, None]).squeeze(1)
        w = int(counts.max()) if len(counts) else 1
        greedy_pos, *_ = self.net.get_action_and_value(obs, ids[:, :w], legal_valid(counts, w),
                                                       greedy=True)
        greedy = ids.gather(1, greedy_pos[:, None]).squeeze(1)
        self.distiller.submit(obs.numpy(), ids.numpy(), counts.numpy(), chosen.numpy(),
                              greedy.numpy(), self.rng)

    def _scalars(self, st: RolloutStats, losses, batch, dt, t_roll, t_upd) -> dict:
        out = {f"losses/{k}": v for k, v in losses.items()}
        out["charts/kl_coef"] = self.kl_coef()
        if self.distilling:
            out.update(self.distiller.stats())
        out["losses/explained_variance"] = explained_variance(batch["value"], batch["ret"])
        out["charts/SPS"] = self.ro.t * self.ro.b / dt
        out["charts/learning_rate"] = self.opt.param_groups[0]["lr"]
        out["charts/learner_samples"] = len(batch["adv"])
        if st.game_lengths:
            out["charts/game_length"] = float(np.mean(st.game_lengths))
        # the share of games ended by their solved value (Ray's actors cut in their arenas)
        if self.cfg.ppo.endgame_cut_nodes or (self.arena and self.arena.cut is not None):
            out["charts/cut_share"] = st.cut / max(st.cut + len(st.game_lengths), 1)
        for kind, (g, w) in st.results.items():
            if g:
                out[f"charts/winrate_vs_{kind}"] = w / g
        out["charts/pool_size"] = len(self.pool.states)
        if self.actors is not None:
            out["charts/actor_restarts"] = self.actors.restarts
        out.update({"perf/rollout_s": t_roll, "perf/update_s": t_upd, "perf/env_s": st.t_env,
                    "perf/inference_s": st.t_infer, "perf/bookkeeping_s": st.t_other})
        if "charts/winrate_vs_pool" in out:
            w = min(max(out["charts/winrate_vs_pool"], 1e-3), 1 - 1e-3)
            out["charts/elo_vs_pool"] = 400 * math.log10(w / (1 - w))
        return out

    def evaluate_all(self, games: int) -> dict:
        """Evaluate the learner against ``eval.opponents``, its expert (if any) playing as
        the checkpoint will (``network.endgame_symmetries``)."""
        expert = self.net.endgame
        played = self.cfg.network.endgame_symmetries
        if expert is None or expert.symmetries == played:
            return self._evaluate_all(games)
        rollout_symmetries = expert.symmetries
        expert.set_symmetries(played)
        try:
            return self._evaluate_all(games)
        finally:
            expert.set_symmetries(rollout_symmetries)

    def _evaluate_all(self, games: int) -> dict:
        res = {}
        for spec in self.cfg.eval.opponents:
            batched = spec.strip() in ("random", "expert_rules")
            n = games if batched else min(games, self.cfg.eval.heuristic_games)
            res[spec] = evaluate(self.net, self.cfg.rules, spec, n,
                                 seed=(self.cfg.seed * 1000 + 17) % 2**64,
                                 greedy=self.cfg.eval.greedy,
                                 num_threads=self.cfg.env.num_threads)
        self.last_eval = res
        return res

    @property
    def between_stages(self) -> bool:
        """Whether the run is past its PPO updates with fine-tuning still ahead (the
        end-game stage): fine-tuning starts a new optimizer and pool, so the old ones are
        no longer needed."""
        return between_stages(self.cfg, self.update)

    def save(self, name: str = "latest.pt") -> Path:
        """Write the checkpoint. Between the stages it holds no optimizer or pool: the
        weights only, a few MB that a long run can carry from machine to machine."""
        path = self.run_dir / "checkpoints" / name
        extra = {"update": self.update, "global_step": self.global_step,
                 "elapsed": self.elapsed, "history": self.history}
        bare = self.between_stages
        if not bare:
            extra["pool"] = self.pool.state()
        save_checkpoint(path, self.net, None if bare else self.opt, self.cfg.to_dict(), extra)
        return path


def stage_updates(cfg: TrainConfig) -> tuple[int, int]:
    """The number of PPO updates and of fine-tuning updates of a run of ``cfg``."""
    steps = cfg.ppo.num_steps * cfg.env.num_envs
    return (max(1, math.ceil(cfg.ppo.total_timesteps / steps)),
            math.ceil(cfg.endgame.finetune_timesteps / steps))


def between_stages(cfg: TrainConfig, update: int) -> bool:
    """Whether a run of ``cfg`` at ``update`` is past its PPO updates with fine-tuning
    still ahead (in its end-game stage)."""
    ppo, finetune = stage_updates(cfg)
    return finetune > 0 and update == ppo


def start_run(cfg: TrainConfig) -> Path:
    run_dir = Path(cfg.logging.runs_dir) / run_name(cfg)
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
    dump_config(cfg, run_dir / "config.yaml")
    return run_dir


# Sections a resumed run cannot change: the checkpoint's network was built for them.
FIXED_ON_RESUME = ("rules", "network")


def resume_config(run_dir: Path, overrides: list[str]) -> TrainConfig:
    """The config of a run to continue, with ``overrides``; nothing is written.

    Raises:
        FileNotFoundError: ``run_dir`` has no ``checkpoints/latest.pt``.
        ConfigError: an override of a ``FIXED_ON_RESUME`` section that changes it, a
            checkpoint that does not load for the run's rules and network, or one without
            the optimizer state its update needs.
    """
    run_dir = Path(run_dir)
    latest = run_dir / "checkpoints" / "latest.pt"
    if not latest.is_file():
        raise FileNotFoundError(f"{run_dir} is not a run directory with checkpoints/latest.pt")
    data = read_yaml(run_dir / "config.yaml")
    run, cfg = config_from_dict(data), config_from_dict(data, overrides)
    for section in FIXED_ON_RESUME:
        was, now = getattr(run, section), getattr(cfg, section)
        if was != now:
            diff = [f"{section}.{k}: {v!r} -> {getattr(now, k)!r}"
                    for k, v in dataclasses.asdict(was).items() if getattr(now, k) != v]
            raise ConfigError(f"a resumed run cannot change its {section} "
                              f"({'; '.join(diff)}): start a new run instead")
    _, ck = checkpoint_for(latest, cfg, "config.yaml")
    update = int(ck.get("update", 0))
    if ck.get("optimizer") is None and not between_stages(cfg, update):
        raise ConfigError(f"{latest} holds no optimizer state, which update {update} of this "
                          f"run needs (only a checkpoint between the PPO updates and "
                          f"fine-tuning may go without): not a checkpoint this run wrote")
    return cfg


def checkpoint_for(path: Path, cfg: TrainConfig, source: str,
                   play_settings: bool = False) -> tuple[PPONet, dict]:
    """The checkpoint at ``path`` (``load_checkpoint``), which must fit ``cfg``'s rules and
    network (``source`` names the config in the error). With ``play_settings``, the
    network's settings that hold no weights (``agents.ppo.PLAY_SETTINGS``) may differ:
    the returned network takes the config's.

    Raises:
        ConfigError: it does not load for the rules, or holds another network.
    """
    try:
        net, data = load_checkpoint(path, cfg.rules)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    want = cfg.network
    if play_settings and net.cfg != want and dataclasses.replace(
            net.cfg, **{k: getattr(want, k) for k in PLAY_SETTINGS}) == want:
        weights = net.state_dict()
        net = PPONet(net.rules, dataclasses.replace(want))
        net.load_state_dict(weights)
        net.eval()
    if net.cfg != want:
        raise ConfigError(f"{path} holds a network {net.cfg}, but {source} says {want}")
    return net, data


def train(cfg: TrainConfig, run_dir: Path, resume: bool = False,
          on_eval: Callable[[dict], None] | None = None) -> dict:
    """Run (or continue) training; returns the final evaluation.

    ``on_eval`` gets every evaluation's ``evals.jsonl`` record as it is written (the
    sweeps report them to Ray Tune)."""
    from torch.utils.tensorboard import SummaryWriter

    trainer = Trainer(cfg, run_dir, resume)
    trainer.on_eval = on_eval
    writer = SummaryWriter(str(run_dir))
    rep = trainer.imitate(writer)
    if rep is not None:
        print(f"imitation: {rep['positions']} positions ({rep['searched_share']:.0%} searched), "
              f"held-out agreement with the teacher {rep['agreement']:.3f} "
              f"(searched positions {rep['agreement_searched']:.3f}, chance {rep['chance']:.3f}) "
              f"in {rep['seconds']:.0f} s", flush=True)
        if cfg.eval.every:
            _log_eval(trainer, writer, trainer.evaluate_all(cfg.eval.games))
    speed = _SpeedLog()
    run_updates(trainer, writer, speed, trainer.num_updates)
    rep = trainer.endgame_stage(writer)
    if rep is not None:
        last = rep["rounds"][-1]
        print(f"end game: {last['positions']} solved positions, held-out blunders "
              f"{rep['blunders_before']:.3f} -> {rep['blunders_after']:.3f} "
              f"in {rep['seconds']:.0f} s", flush=True)
    if trainer.finetune_updates:
        trainer.start_finetune()
        run_updates(trainer, writer, speed, trainer.all_updates, desc="fine-tune")
    final = trainer.evaluate_all(cfg.eval.final_games) if cfg.eval.final_games else {}
    _log_eval(trainer, writer, final)
    trainer.save()
    trainer.save("final.pt")
    trainer.close()
    writer.close()
    summary = {"global_step": trainer.global_step, "updates": trainer.update,
               "train_seconds": trainer.elapsed, "final_eval": final, "speed": speed.summary()}
    if trainer.actors is not None:
        summary["actor_restarts"] = trainer.actors.restarts
    write_text(run_dir / "final_eval.json", json.dumps(summary, indent=2))
    return summary


def run_updates(trainer: Trainer, writer, speed: _SpeedLog, until: int, desc: str = "ppo"):
    """Train until update ``until`` with logging, evaluations and checkpoints."""
    from tqdm import tqdm

    cfg = trainer.cfg
    first = trainer.num_updates if until > trainer.num_updates else 0
    steps = trainer.ro.t * trainer.ro.b
    bar = tqdm(total=(until - first) * steps, initial=max(0, trainer.update - first) * steps,
               unit="step", unit_scale=True, disable=not cfg.logging.progress,
               dynamic_ncols=True, desc=desc)
    while trainer.update < until:
        scalars = trainer.train_step()
        speed.add(scalars)
        if trainer.update % cfg.logging.log_every == 0:
            for k, v in scalars.items():
                writer.add_scalar(k, v, trainer.global_step)
        if cfg.eval.every and trainer.update % cfg.eval.every == 0 \
                and trainer.update < trainer.all_updates:
            _log_eval(trainer, writer, trainer.evaluate_all(cfg.eval.games))
        if trainer.update % cfg.logging.checkpoint_every == 0:
            trainer.save()
        bar.update(steps)
        bar.set_postfix(_postfix(scalars, trainer.last_eval), refresh=False)
    bar.close()


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
    """Log an evaluation to TensorBoard, the history and ``evals.jsonl`` (one line per
    evaluation: step, wall-clock seconds of training so far, and per opponent the win
    rate, its interval and the games; ``agents.strength`` reads it)."""
    rec = {"global_step": trainer.global_step, "update": trainer.update,
           "elapsed": trainer.elapsed}
    for spec, r in res.items():
        writer.add_scalar(f"eval/winrate_vs_{spec}", r["winrate"], trainer.global_step)
        writer.add_scalar(f"eval/winrate_vs_{spec}_lo", r["ci95"][0], trainer.global_step)
        writer.add_scalar(f"eval/winrate_vs_{spec}_hi", r["ci95"][1], trainer.global_step)
        rec[spec] = r["winrate"]
        rec.setdefault("detail", {})[spec] = {"ci95": r["ci95"], "games": r["games"]}
    trainer.history.append(rec)
    with open(trainer.run_dir / "evals.jsonl", "a") as f:
        f.write(json.dumps(rec) + "\n")
    if trainer.on_eval is not None and res:
        trainer.on_eval(rec)


def _postfix(scalars: dict, last_eval: dict) -> dict:
    out = {"SPS": f"{scalars['charts/SPS']:.0f}"}
    for spec, r in last_eval.items():
        out[spec] = f"{r['winrate']:.2f}"
    return out
