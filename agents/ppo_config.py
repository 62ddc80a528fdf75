"""Training configuration: YAML mapped onto typed dataclasses, unknown keys rejected.

``load_config(path, overrides)`` reads a YAML file (sections ``rules``, ``env``,
``network``, ``imitation``, ``ppo``, ``search``, ``distill``, ``endgame``, ``selfplay``,
``eval``,
``logging``, ``ray`` plus top-level ``exp_name``,
``seed``, ``torch_threads``), applies dotted ``key=value`` overrides and validates
every value. Each field's docstring (the string under it) documents it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

import numba
import yaml

from durak_env import Rules
from durak_env.atomic import write_text
from durak_env.checks import check_seed

from .distill import DistillConfig
from .imitation import ImitationConfig
from .ppo import NetworkConfig
from .teacher import SearchConfig


class ConfigError(ValueError):
    """A configuration file or override that cannot be used; the message says why."""


@dataclass
class EnvConfig:
    """The vector environment."""

    num_envs: int = 1024
    """Games stepped together (``VectorEnv`` batch size)."""
    num_threads: int = 2
    """numba threads for the environment kernels, and the exact solvers that run side by
    side where a training stage solves positions one by one (the imitation's search
    labels, the fine-tuning's cut)."""


@dataclass
class PPOConfig:
    """PPO hyper-parameters (CleanRL names)."""

    total_timesteps: int = 5_000_000
    """Environment steps (decisions of every seat, learner or not) to train for."""
    num_steps: int = 64
    """Vector steps per rollout; a rollout holds ``num_steps * num_envs`` decisions."""
    lr: float = 2.5e-4
    """Adam learning rate."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0 over the run."""
    gamma: float = 1.0
    """Discount per own decision (games are short and end with the only reward)."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    minibatch_size: int = 8192
    """Learner samples per gradient step."""
    update_epochs: int = 2
    """Passes over the rollout per update."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    clip_coef: float = 0.2
    """Surrogate clipping coefficient."""
    clip_vloss: bool = False
    """Clip the value loss like the policy (CleanRL option)."""
    ent_coef: float = 0.01
    """Entropy bonus coefficient."""
    vf_coef: float = 0.5
    """Value loss coefficient."""
    max_grad_norm: float = 0.5
    """Global gradient-norm clip."""
    target_kl: float | None = None
    """Stop the epochs of an update early when the approximate KL exceeds this."""
    kl_coef: float = 0.0
    """Weight of KL(cloned policy || policy) over the legal moves, a pull toward the
    imitation stage's policy (needs ``imitation.positions > 0``; 0: off)."""
    kl_decay_updates: int = 0
    """Decay ``kl_coef`` linearly to 0 over this many updates (0: keep it constant)."""
    endgame_cut_nodes: int = 0
    """Two players: end each game at its first position where every card is placed (talon
    empty, or only the face-up trump left) if the exact solver proves its value there
    within this node cap per move; that value is every seat's reward, so the returns of
    the moves before it carry none of the end game's noise and score the position as
    perfect play (``expert``'s) would. A position past the cap plays on. The learner then
    plays no such end game: meant for the fine-tuning after the end-game stage, whose
    frozen expert plays them (0: off; games are played out)."""


@dataclass
class EndgameConfig:
    """The end-game stage (two players; needs ``network.endgame_talon``). The labels come
    from the ``search`` section's searches and node caps."""

    games: int = 0
    """Games played per round to collect end-game positions (0: no end-game stage)."""
    rounds: int = 1
    """Collect-and-fit rounds; later rounds play with the expert fitted so far."""
    opponent: str = "expert_rules"
    """Who the policy plays while collecting (both seats' positions are kept)."""
    collect_talon: int | None = None
    """Keep new positions with at most this many talon cards only (None: every position
    the expert plays). E.g. 1 adds solved positions, which are cheap to label, to a
    refit of an expert that also plays 2-3 talon cards."""
    collect_min_talon: int = 0
    """Keep new positions with at least this many talon cards only (0: from the empty
    talon on). E.g. 1 skips the empty talon, whose positions are most of every game's end
    game, for a refit that wants more of the scarcer 1-3 talon-card positions."""
    epochs: int = 20
    """Passes over the positions per round."""
    lr: float = 1.0e-3
    anneal_lr: bool = False
    """Decay the learning rate linearly to 0 over each round's epochs."""
    minibatch_size: int = 512
    augment: bool = True
    """Show each position under a random suit renaming (``durak_env.symmetry``)."""
    holdout: float = 0.05
    """Share of the games whose positions are held out to measure blunders."""
    workers: int = 2
    """Solver processes."""
    pimc_samples: int = 0
    """Deals per sampled-search label of this stage (positions with 2 or 3 talon cards),
    in place of ``search.pimc_samples`` (0: that one). The stage labels far fewer positions
    than imitation and distillation, so it can afford more deals, hence less noisy labels."""
    solver_nodes: int = 0
    """Node cap per move of this stage's exact labels, in place of ``search.endgame_nodes``
    (0: that one). A position with a move past the cap and no proven win is dropped, and
    its solving was spent for nothing: a lower cap labels more positions per minute and
    drops more of the hardest."""
    finetune_timesteps: int = 0
    """PPO steps after the stage, with the fitted expert frozen: the main head learns the
    middle game toward end games that are played well on both sides (0: none)."""
    finetune_lr: float = 3.0e-4
    """Learning rate of those steps (decayed linearly to 0 with ``ppo.anneal_lr``)."""
    handoff: bool = True
    """During those steps, the heuristic opponents hand the positions the expert plays
    to the expert (greedy), so that the learner meets their middle game with a strong
    end game, as it meets ``expert``'s."""
    finetune_cut_nodes: int = 0
    """``ppo.endgame_cut_nodes`` for those steps only: their games end at the first
    position with every card placed, scored by the exact solver within this many nodes
    per move (0: they play on to the end, unless ``ppo.endgame_cut_nodes`` is set)."""
    finetune_greedy: bool = False
    """During those steps the frozen expert plays its most likely move for the learner and
    its snapshots, as it plays in a tournament, instead of sampling: the main head samples
    alone, and the end of each game is a function of the position the main head hands
    over."""
    finetune_symmetries: int = 0
    """During those steps the frozen expert averages this many suit renamings (1 to 24) for
    the learner, its snapshots and the handoff, in place of ``network.endgame_symmetries``
    (0: that one); the evaluations and the checkpoint's play keep the network's. Fewer
    renamings make the rollouts' expert cheaper."""


@dataclass
class SelfPlayConfig:
    """Who the learner plays against. Shares are per game and are normalised to sum 1."""

    self_share: float = 0.5
    """Games where the learner plays every seat (every seat's decisions are trained on)."""
    pool_share: float = 0.4
    """Games against a snapshot from the pool (the learner plays one seat)."""
    heuristic_share: float = 0.1
    """Games against a heuristic baseline (the learner plays one seat)."""
    heuristics: list[str] = field(default_factory=lambda: ["random"])
    """Agent specs (``agents.make_agent``) for the heuristic games, drawn uniformly.
    ``random`` and ``expert_rules`` (the expert's rules, card counting included, without
    its searches) act for all their games in one compiled call; any other spec acts one
    game at a time in Python (``expert`` so is too slow for rollouts)."""
    snapshot_every: int = 10
    """Add a snapshot of the learner to the pool every this many updates."""
    pool_size: int = 20
    """Most snapshots kept (the oldest are dropped, the first one is kept)."""
    pool_sampling: str = "prioritized"
    """``uniform`` or ``prioritized`` (snapshots that beat the learner more often are drawn
    more often)."""
    active_snapshots: int = 2
    """Snapshots drawn from the pool for each rollout (their inference is batched)."""


@dataclass
class EvalConfig:
    """Periodic evaluation (win rates with Wilson 95% intervals)."""

    every: int = 20
    """Evaluate every this many updates (0: only at the end)."""
    games: int = 512
    """Games per opponent in periodic evaluations (seats alternate)."""
    final_games: int = 2000
    """Games per opponent in the final evaluation."""
    opponents: list[str] = field(default_factory=lambda: ["random", "expert"])
    """Agent specs to evaluate against."""
    heuristic_games: int = 64
    """Cap on ``games`` and ``final_games`` for opponents other than ``random`` and
    ``expert_rules`` (both batched in numba): they act one observation at a time in
    Python (``expert`` searches too)."""
    greedy: bool = True
    """Evaluate the greedy (argmax) policy rather than sampling."""


@dataclass
class LoggingConfig:
    """Run directory, TensorBoard, checkpoints and the progress bar."""

    runs_dir: str = "runs"
    """Parent directory of the run directories ``{exp}__{seed}__{time}``."""
    checkpoint_every: int = 50
    """Save ``checkpoints/latest.pt`` every this many updates (and always at the end)."""
    progress: bool = True
    """Show a tqdm progress bar."""
    log_every: int = 1
    """Write the loss and speed charts every this many updates."""


@dataclass
class RayConfig:
    """Rollouts on Ray actors (``pip install -e ".[ray]"``); the learner stays here."""

    actors: int = 0
    """Rollout actors, each stepping ``env.num_envs / actors`` games with its own opponents
    and a copy of the policy (0: collect in this process, without Ray)."""
    address: str | None = None
    """Cluster to join (``ray.init(address=...)``, e.g. ``auto`` or ``127.0.0.1:6379``);
    None starts Ray in this process (even where a ``ray start`` cluster runs), unless this
    process already runs Ray."""
    num_cpus_per_actor: int = 1
    """CPUs Ray reserves for each actor; also its numba and torch threads (at most
    ``env.num_threads`` and ``torch_threads``)."""
    max_restarts: int = 3
    """Times Ray restarts an actor whose process died (its games start afresh, and the
    rollout it was collecting is collected again); also the task retries."""


@dataclass
class TrainConfig:
    """Everything a training run needs; ``config.yaml`` in the run directory."""

    exp_name: str = "ppo_durak"
    """Experiment name, the first part of the run directory name."""
    seed: int = 1
    """Seed of the environments, the network initialisation and the opponent draws."""
    torch_threads: int = 2
    """``torch.set_num_threads`` for inference and the update."""
    rules: Rules = field(default_factory=Rules)
    """Game rules (``durak_env.Rules`` fields)."""
    env: EnvConfig = field(default_factory=EnvConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    distill: DistillConfig = field(default_factory=DistillConfig)
    endgame: EndgameConfig = field(default_factory=EndgameConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)
    ray: RayConfig = field(default_factory=RayConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# ---------------------------------------------------------------- building and checking


def _type_ok(value, tp) -> bool:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, t) for t in typing.get_args(tp))
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if origin is list:
        (item,) = typing.get_args(tp)
        return isinstance(value, list) and all(_type_ok(v, item) for v in value)
    return isinstance(value, tp)


def _build(cls, data, where: str):
    if isinstance(data, cls):
        return data
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where or 'config'} must be a mapping, got {data!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = [k for k in data if k not in names]
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(_dot(where, k) for k in unknown)}; "
                          f"valid keys{' in ' + where if where else ''}: {', '.join(names)}")
    kwargs = {}
    for k, v in data.items():
        tp, key = hints[k], _dot(where, k)
        if dataclasses.is_dataclass(tp):
            if tp is Rules:
                try:
                    kwargs[k] = v if isinstance(v, Rules) else Rules.from_dict(v or {})
                except (TypeError, ValueError) as e:
                    raise ConfigError(f"{key}: {e}") from None
            else:
                kwargs[k] = _build(tp, v, key)
        elif not _type_ok(v, tp):
            raise ConfigError(f"{key} must be of type {_tname(tp)}, got {v!r}")
        else:
            kwargs[k] = float(v) if tp is float else v
    return cls(**kwargs)


def _dot(where, k):
    return f"{where}.{k}" if where else k


def _tname(tp) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _positive(cfg: TrainConfig):
    checks = [
        ("env.num_envs", cfg.env.num_envs, 1), ("env.num_threads", cfg.env.num_threads, 1),
        ("torch_threads", cfg.torch_threads, 1),
        ("ppo.total_timesteps", cfg.ppo.total_timesteps, 1),
        ("ppo.num_steps", cfg.ppo.num_steps, 1), ("ppo.minibatch_size", cfg.ppo.minibatch_size, 1),
        ("ppo.update_epochs", cfg.ppo.update_epochs, 1),
        ("selfplay.snapshot_every", cfg.selfplay.snapshot_every, 1),
        ("selfplay.pool_size", cfg.selfplay.pool_size, 1),
        ("selfplay.active_snapshots", cfg.selfplay.active_snapshots, 1),
        ("eval.games", cfg.eval.games, 1), ("eval.heuristic_games", cfg.eval.heuristic_games, 1),
        ("eval.final_games", cfg.eval.final_games, 0), ("eval.every", cfg.eval.every, 0),
        ("logging.checkpoint_every", cfg.logging.checkpoint_every, 1),
        ("logging.log_every", cfg.logging.log_every, 1),
    ]
    for name, v, lo in checks:
        if v < lo:
            raise ConfigError(f"{name} must be >= {lo}, got {v}")


def validate(cfg: TrainConfig) -> TrainConfig:
    """Check value ranges that the types alone do not; raise ``ConfigError`` naming the key."""
    _positive(cfg)
    try:
        check_seed(cfg.seed, allow_none=False)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    p, s = cfg.ppo, cfg.selfplay
    for name, v in [("ppo.lr", p.lr), ("ppo.clip_coef", p.clip_coef),
                    ("ppo.max_grad_norm", p.max_grad_norm)]:
        if not v > 0:
            raise ConfigError(f"{name} must be > 0, got {v}")
    for name, v in [("ppo.gamma", p.gamma), ("ppo.gae_lambda", p.gae_lambda)]:
        if not 0 <= v <= 1:
            raise ConfigError(f"{name} must be in [0, 1], got {v}")
    for name, v in [("ppo.ent_coef", p.ent_coef), ("ppo.vf_coef", p.vf_coef),
                    ("selfplay.self_share", s.self_share), ("selfplay.pool_share", s.pool_share),
                    ("selfplay.heuristic_share", s.heuristic_share)]:
        if v < 0:
            raise ConfigError(f"{name} must be >= 0, got {v}")
    if s.self_share + s.pool_share + s.heuristic_share <= 0:
        raise ConfigError("selfplay.self_share + pool_share + heuristic_share must be > 0")
    if s.heuristic_share > 0 and not s.heuristics:
        raise ConfigError("selfplay.heuristics is empty but selfplay.heuristic_share > 0")
    if s.pool_sampling not in ("uniform", "prioritized"):
        raise ConfigError(f"selfplay.pool_sampling must be 'uniform' or 'prioritized', "
                          f"got {s.pool_sampling!r}")
    try:
        cfg.network.validate()
        cfg.search.validate()
    except ValueError as e:
        raise ConfigError(str(e)) from None
    _check_stages(cfg)
    _check_ray(cfg)
    _check_agents(cfg)
    return cfg


def _check_ray(cfg: TrainConfig):
    r = cfg.ray
    for name, v, lo in [("ray.actors", r.actors, 0), ("ray.num_cpus_per_actor",
                        r.num_cpus_per_actor, 1), ("ray.max_restarts", r.max_restarts, 0)]:
        if v < lo:
            raise ConfigError(f"{name} must be >= {lo}, got {v}")
    if r.actors and cfg.env.num_envs % r.actors:
        raise ConfigError(f"env.num_envs ({cfg.env.num_envs}) must be a multiple of ray.actors "
                          f"({r.actors}): each actor steps the same number of games")


def _check_stages(cfg: TrainConfig):
    im, d, p = cfg.imitation, cfg.distill, cfg.ppo
    checks = [("imitation.positions", im.positions, 0), ("imitation.num_envs", im.num_envs, 1),
              ("imitation.epochs", im.epochs, 1),
              ("imitation.minibatch_size", im.minibatch_size, 1),
              ("distill.labels_per_update", d.labels_per_update, 1),
              ("distill.buffer_size", d.buffer_size, 1),
              ("distill.minibatch_size", d.minibatch_size, 1),
              ("ppo.kl_decay_updates", p.kl_decay_updates, 0),
              ("ppo.endgame_cut_nodes", p.endgame_cut_nodes, 0)]
    for name, v, lo in checks:
        if v < lo:
            raise ConfigError(f"{name} must be >= {lo}, got {v}")
    for name, v in [("imitation.lr", im.lr)]:
        if not v > 0:
            raise ConfigError(f"{name} must be > 0, got {v}")
    for name, v in [("imitation.explore", im.explore), ("imitation.holdout", im.holdout)]:
        if not 0 <= v < 1:
            raise ConfigError(f"{name} must be in [0, 1), got {v}")
    for name, v in [("imitation.vf_coef", im.vf_coef), ("distill.coef", d.coef),
                    ("ppo.kl_coef", p.kl_coef)]:
        if v < 0:
            raise ConfigError(f"{name} must be >= 0, got {v}")
    if d.prefer not in ("chosen", "greedy"):
        raise ConfigError(f"distill.prefer must be 'chosen' or 'greedy', got {d.prefer!r}")
    if d.target not in ("move", "set"):
        raise ConfigError(f"distill.target must be 'move' or 'set', got {d.target!r}")
    if p.endgame_cut_nodes and cfg.rules.num_players != 2:
        raise ConfigError(f"ppo.endgame_cut_nodes > 0 needs two players: only then is the end "
                          f"game fully known (rules.num_players is {cfg.rules.num_players})")
    if p.kl_coef > 0 and im.positions == 0:
        raise ConfigError("ppo.kl_coef pulls toward the cloned policy: set imitation.positions")
    _check_endgame(cfg)


def _check_endgame(cfg: TrainConfig):
    e = cfg.endgame
    for name, v, lo in [("endgame.games", e.games, 0), ("endgame.rounds", e.rounds, 1),
                        ("endgame.epochs", e.epochs, 1),
                        ("endgame.minibatch_size", e.minibatch_size, 1),
                        ("endgame.workers", e.workers, 1),
                        ("endgame.pimc_samples", e.pimc_samples, 0),
                        ("endgame.solver_nodes", e.solver_nodes, 0)]:
        if v < lo:
            raise ConfigError(f"{name} must be >= {lo}, got {v}")
    if not e.lr > 0:
        raise ConfigError(f"endgame.lr must be > 0, got {e.lr}")
    if not e.finetune_lr > 0:
        raise ConfigError(f"endgame.finetune_lr must be > 0, got {e.finetune_lr}")
    if e.finetune_timesteps < 0:
        raise ConfigError(f"endgame.finetune_timesteps must be >= 0, got {e.finetune_timesteps}")
    if e.finetune_cut_nodes < 0:
        raise ConfigError(f"endgame.finetune_cut_nodes must be >= 0, got {e.finetune_cut_nodes}")
    if e.finetune_cut_nodes and not e.finetune_timesteps:
        raise ConfigError("endgame.finetune_cut_nodes > 0 cuts the fine-tuning games: "
                          "set endgame.finetune_timesteps > 0")
    if e.finetune_timesteps and not e.games:
        raise ConfigError("endgame.finetune_timesteps > 0 fine-tunes after the end-game stage: "
                          "set endgame.games > 0")
    if isinstance(e.finetune_symmetries, bool) or not isinstance(e.finetune_symmetries, int) \
            or not 0 <= e.finetune_symmetries <= 24:
        raise ConfigError(f"endgame.finetune_symmetries must be an int from 0 to 24, got "
                          f"{e.finetune_symmetries!r}")
    if e.finetune_symmetries and not e.finetune_timesteps:
        raise ConfigError("endgame.finetune_symmetries > 0 sets the fine-tuning's expert: "
                          "set endgame.finetune_timesteps > 0")
    if e.finetune_timesteps and cfg.ray.actors:
        raise ConfigError("endgame.finetune_timesteps > 0 runs on the local rollout only: "
                          "set ray.actors to 0")
    if not 0 <= e.holdout < 1:
        raise ConfigError(f"endgame.holdout must be in [0, 1), got {e.holdout}")
    if e.games == 0:
        return
    if cfg.rules.num_players != 2:
        raise ConfigError("endgame.games > 0 needs two players: the exact solver labels the "
                          f"end game of two-player games only (rules.num_players is "
                          f"{cfg.rules.num_players})")
    if cfg.search.endgame_nodes == 0:
        raise ConfigError("endgame.games > 0 needs the end-game solver: set "
                          "search.endgame_nodes > 0")
    top = max(1, cfg.search.pimc_talon)
    talon = cfg.network.endgame_talon
    if talon is None or talon > top:
        raise ConfigError(f"endgame.games > 0 needs network.endgame_talon from 0 to {top} "
                          f"(the talon sizes the searches label: 1, or search.pimc_talon), "
                          f"got {talon!r}")
    c = e.collect_talon
    if c is not None and (not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= talon):
        raise ConfigError(f"endgame.collect_talon must be null or an integer from 0 to "
                          f"network.endgame_talon ({talon}), got {c!r}")
    m, top_kept = e.collect_min_talon, talon if c is None else c
    if not isinstance(m, int) or isinstance(m, bool) or not 0 <= m <= top_kept:
        raise ConfigError(f"endgame.collect_min_talon must be an integer from 0 to "
                          f"endgame.collect_talon or network.endgame_talon ({top_kept}), "
                          f"got {m!r}")


def _check_agents(cfg: TrainConfig, build: bool = False):
    from .registry import make_agent, parse_spec

    for key, specs in [("selfplay.heuristics", cfg.selfplay.heuristics),
                       ("eval.opponents", cfg.eval.opponents),
                       ("endgame.opponent", [cfg.endgame.opponent] if cfg.endgame.games else [])]:
        for spec in specs:
            try:
                make_agent(spec, cfg.rules) if build else parse_spec(spec)
            except ValueError as e:
                raise ConfigError(f"{key}: {e}") from None


def preflight(cfg: TrainConfig) -> None:
    """What ``validate`` cannot know from the config alone, checked before a run starts:
    every agent spec builds (unknown parameters, bad values, missing ``ppo:`` checkpoints)
    and ``env.num_threads`` fits this machine.

    Raises:
        ConfigError: naming the key.
    """
    threads = numba.config.NUMBA_NUM_THREADS
    if cfg.env.num_threads > threads:
        raise ConfigError(f"env.num_threads must be at most {threads}, the threads numba can "
                          f"use on this machine (NUMBA_NUM_THREADS), got {cfg.env.num_threads}")
    _check_agents(cfg, build=True)
    if cfg.ray.actors:
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ConfigError(f"ray.actors={cfg.ray.actors} needs Ray: "
                              f"pip install -e \".[ray]\" (or set ray.actors=0)")


def parse_override(text: str) -> tuple[list[str], object]:
    """``"ppo.lr=1e-4"`` -> (["ppo", "lr"], 0.0001); values are read as YAML."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ConfigError(f"override {text!r} must look like section.key=value, "
                          f"e.g. ppo.lr=1e-4")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as e:
        raise ConfigError(f"override {text!r}: value is not valid YAML: {e}") from None
    if isinstance(value, str) and _looks_float(value):
        value = float(value)
    return key.strip().split("."), value


def _looks_float(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def apply_override(data: dict, path: list[str], value) -> None:
    node = data
    for part in path[:-1]:
        nxt = node.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"override {'.'.join(path)}: {part} is not a section")
        node = nxt
    node[path[-1]] = value


def read_yaml(path: str | Path) -> dict:
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"config file {str(path)!r} cannot be read: {e.strerror or e}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not valid YAML: {str(e).splitlines()[0]}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of sections, got {type(data).__name__}")
    return data


def config_from_dict(data: dict, overrides: list[str] = ()) -> TrainConfig:
    """Build and validate a config from a mapping plus ``key=value`` overrides."""
    data = _deep_copy(data)
    for text in overrides:
        apply_override(data, *parse_override(text))
    # YAML reads 1e-4 as a string; accept numeric strings where a float is expected.
    _coerce_floats(TrainConfig, data)
    return validate(_build(TrainConfig, data, ""))


def load_config(path: str | Path, overrides: list[str] = ()) -> TrainConfig:
    """Read a YAML config file, apply dotted overrides and validate."""
    return config_from_dict(read_yaml(path), overrides)


def _coerce_floats(cls, data):
    if not isinstance(data, dict) or not dataclasses.is_dataclass(cls):
        return
    hints = typing.get_type_hints(cls)
    for k, v in list(data.items()):
        tp = hints.get(k)
        if tp is None:
            continue
        if dataclasses.is_dataclass(tp) and tp is not Rules:
            _coerce_floats(tp, v)
        elif float in typing.get_args(tp) + (tp,) and isinstance(v, str) and _looks_float(v):
            data[k] = float(v)


def _deep_copy(d):
    if isinstance(d, dict):
        return {k: _deep_copy(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_deep_copy(v) for v in d]
    return d


def dump_config(cfg: TrainConfig, path: str | Path) -> None:
    """Write ``config.yaml`` atomically (a killed run keeps a whole one)."""
    write_text(path, yaml.safe_dump(cfg.to_dict(), sort_keys=False))
