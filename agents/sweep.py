"""Hyper-parameter sweeps of ``train.py`` runs with Ray Tune.

    python -m agents.sweep configs/sweep_2p_small.yaml [--output DIR]

A sweep file names a training config (``base``), fixed ``overrides`` and a ``search``
space over dotted config keys::

    name: sweep_2p_small
    base: configs/default.yaml
    overrides: {ppo.total_timesteps: 200000, eval.opponents: [random, expert_rules]}
    search:
      ppo.lr: {grid: [1.0e-4, 3.0e-4]}            # every value (grid)
      ppo.ent_coef: {uniform: [0.0, 0.02]}       # also loguniform, randint, choice
    num_samples: 1          # draws of the random keys (per grid point without Optuna)
    searcher: auto          # auto (optuna when installed and nothing is grid), random, optuna
    metric: expert_rules    # the evaluation opponent whose win rate ranks the trials
    scheduler: {asha: {grace_period: 50000, reduction_factor: 2}}   # or none
    cpus_per_trial: 1
    max_concurrent: 2
    address: null           # a Ray cluster to run on (auto, 127.0.0.1:6379); null: Ray here

Every trial is a training run (``agents.ppo_train.train``, its rollouts local) in Tune's
function trainable; each of its evaluations (``eval.every``, and the final one) is
reported to Tune as ``winrate_vs_<opponent>`` at its ``global_step``, and ASHA stops the
trials whose ``metric`` win rate trails at its rungs (in environment steps). The sweep
writes ``results.csv``, ``results.md`` and ``curves.png`` (the metric's win rate against
the steps, one line per trial) in ``<output>/<name>/``, next to Tune's own files and each
trial's run directory.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .ppo_config import ConfigError, TrainConfig, config_from_dict, read_yaml

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("grid", "choice", "uniform", "loguniform", "randint")
SEARCHERS = ("auto", "random", "optuna")


@dataclass
class SweepConfig:
    """A sweep file, read and checked."""

    name: str
    base: dict
    search: dict[str, dict]
    num_samples: int = 1
    searcher: str = "auto"
    metric: str = "expert_rules"
    asha: dict | None = field(default_factory=dict)
    cpus_per_trial: int = 1
    max_concurrent: int = 2
    output: str = "runs/sweeps"
    address: str | None = None

    def trial_config(self, params: dict) -> TrainConfig:
        """The training config of a trial with ``params`` (dotted key -> value)."""
        return config_from_dict(self.base, [f"{k}={json.dumps(v)}" for k, v in params.items()])


KEYS = {"name", "base", "overrides", "search", "num_samples", "searcher", "metric",
        "scheduler", "cpus_per_trial", "max_concurrent", "output", "address"}


def load_sweep(path: str | Path) -> SweepConfig:
    """Read a sweep file; every key and value is checked before Ray starts.

    Raises:
        ConfigError: naming the key.
    """
    path = Path(path)
    data = read_yaml(path)
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)}; "
                          f"valid keys: {', '.join(sorted(KEYS))}")
    if "base" not in data or "search" not in data:
        raise ConfigError(f"{path}: a sweep needs base (a training config) and search")
    base = read_yaml(_resolve(data["base"], path))
    overrides = data.get("overrides") or {}
    if not isinstance(overrides, dict):
        raise ConfigError(f"{path}: overrides must map dotted keys to values")
    base = config_from_dict(base, [f"{k}={json.dumps(v)}" for k, v in overrides.items()])
    base.logging.progress = False
    sch = data.get("scheduler", {"asha": {}})
    if sch not in (None, "none") and (not isinstance(sch, dict) or set(sch) - {"asha"}):
        raise ConfigError(f"{path}: scheduler must be {{asha: {{...}}}} or none, got {sch!r}")
    sweep = SweepConfig(
        name=str(data.get("name", path.stem)), base=base.to_dict(),
        search=_check_search(data["search"], path), num_samples=data.get("num_samples", 1),
        searcher=data.get("searcher", "auto"), metric=data.get("metric", "expert_rules"),
        asha=None if sch in (None, "none") else (sch["asha"] or {}),
        cpus_per_trial=data.get("cpus_per_trial", 1),
        max_concurrent=data.get("max_concurrent", 2), output=data.get("output", "runs/sweeps"),
        address=data.get("address"))
    _check(sweep, base, path)
    return sweep


def _resolve(name: str, sweep_path: Path) -> Path:
    """A base config path: as given, else next to the sweep file, else in the repository."""
    for p in (Path(name), sweep_path.parent / name, ROOT / name):
        if p.is_file():
            return p
    raise ConfigError(f"{sweep_path}: base config {name!r} does not exist")


def _check_search(search, path: Path) -> dict:
    if not isinstance(search, dict) or not search:
        raise ConfigError(f"{path}: search must map dotted config keys to "
                          f"{{{'|'.join(KINDS)}: ...}}")
    for key, spec in search.items():
        if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in KINDS:
            raise ConfigError(f"{path}: search.{key} must be one of "
                              f"{', '.join(f'{{{k}: ...}}' for k in KINDS)}, got {spec!r}")
        (kind, values), = spec.items()
        if not isinstance(values, list) or not values or (
                kind not in ("grid", "choice") and len(values) != 2):
            raise ConfigError(f"{path}: search.{key}.{kind} must be a list"
                              f"{'' if kind in ('grid', 'choice') else ' [low, high]'}")
    return search


def _check(sweep: SweepConfig, base: TrainConfig, path: Path) -> None:
    for name, v in [("num_samples", sweep.num_samples), ("cpus_per_trial", sweep.cpus_per_trial),
                    ("max_concurrent", sweep.max_concurrent)]:
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ConfigError(f"{path}: {name} must be an int >= 1, got {v!r}")
    if sweep.searcher not in SEARCHERS:
        raise ConfigError(f"{path}: searcher must be one of {', '.join(SEARCHERS)}, "
                          f"got {sweep.searcher!r}")
    grid = [k for k, s in sweep.search.items() if "grid" in s]
    if sweep.searcher == "optuna":
        if importlib.util.find_spec("optuna") is None:
            raise ConfigError(f"{path}: searcher optuna needs Optuna: pip install -e \".[ray]\"")
        if grid:
            raise ConfigError(f"{path}: Optuna draws every key: make search.{grid[0]} a "
                              f"choice, or use searcher random")
    for point in _first_points(sweep):  # every search key exists and takes its values
        try:
            sweep.trial_config(point)
        except ConfigError as e:
            raise ConfigError(f"{path}: search: {e}") from None
    if sweep.metric not in base.eval.opponents:
        raise ConfigError(f"{path}: metric {sweep.metric!r} must be one of eval.opponents "
                          f"{base.eval.opponents}")
    if sweep.asha is not None and not base.eval.every:
        raise ConfigError(f"{path}: ASHA needs evaluations during the run: set eval.every")
    if base.ray.actors:
        raise ConfigError(f"{path}: trials collect their rollouts locally (Tune runs them side "
                          f"by side): set ray.actors=0")


def _first_points(sweep: SweepConfig) -> list[dict]:
    """Trial parameters at each end of every range and every grid or choice value."""
    out = []
    for key, spec in sweep.search.items():
        (kind, values), = spec.items()
        out += [{key: v} for v in values]
    return out


def use_optuna(sweep: SweepConfig) -> bool:
    if sweep.searcher == "optuna":
        return True
    grid = any("grid" in s for s in sweep.search.values())
    return (sweep.searcher == "auto" and not grid
            and importlib.util.find_spec("optuna") is not None)


def param_space(sweep: SweepConfig) -> dict:
    from ray import tune

    space = {}
    for key, spec in sweep.search.items():
        (kind, values), = spec.items()
        space[key] = {"grid": tune.grid_search, "choice": tune.choice}[kind](values) \
            if kind in ("grid", "choice") else getattr(tune, kind)(*values)
    return space


# ---------------------------------------------------------------- the trials


def ppo_trial(params: dict, sweep: SweepConfig) -> None:
    """One trial: a training run whose evaluations go to Tune."""
    from ray import tune

    from .ppo_train import start_run, train

    cfg = sweep.trial_config(params)
    trial_dir = tune.get_context().get_trial_dir() or os.getcwd()
    cfg.logging.runs_dir = str(Path(trial_dir) / "run")

    def report(rec: dict) -> None:
        tune.report({"global_step": rec["global_step"], "update": rec["update"],
                     **{f"winrate_vs_{s}": rec[s] for s in cfg.eval.opponents if s in rec}})

    train(cfg, start_run(cfg), on_eval=report)


def run_sweep(sweep: SweepConfig, output: str | Path | None = None) -> list[dict]:
    """Run the trials; write ``results.csv``, ``results.md`` and ``curves.png``; return the
    table's rows, best first."""
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    out = Path(output or sweep.output).resolve() / sweep.name
    if not ray.is_initialized():
        ray.init(address=sweep.address or "local", include_dashboard=False, log_to_driver=False)
    metric = f"winrate_vs_{sweep.metric}"
    scheduler = None
    if sweep.asha is not None:
        asha = {"grace_period": max(1, sweep.base["ppo"]["total_timesteps"] // 4),
                "reduction_factor": 2, **sweep.asha}
        scheduler = ASHAScheduler(time_attr="global_step",
                                  max_t=sweep.base["ppo"]["total_timesteps"], **asha)
    search_alg = None
    if use_optuna(sweep):
        from ray.tune.search.optuna import OptunaSearch

        search_alg = OptunaSearch(seed=sweep.base["seed"])
    trainable = tune.with_resources(tune.with_parameters(ppo_trial, sweep=sweep),
                                    {"cpu": sweep.cpus_per_trial})
    tuner = tune.Tuner(
        trainable, param_space=param_space(sweep),
        tune_config=tune.TuneConfig(metric=metric, mode="max", scheduler=scheduler,
                                    search_alg=search_alg, num_samples=sweep.num_samples,
                                    max_concurrent_trials=sweep.max_concurrent),
        run_config=tune.RunConfig(name=sweep.name, storage_path=str(out.parent), verbose=1))
    grid = tuner.fit()
    rows, curves = _rows(grid, sweep, metric)
    write_results(out, rows, curves, sweep, metric)
    return rows


def _rows(grid, sweep: SweepConfig, metric: str) -> tuple[list[dict], dict]:
    rows, curves = [], {}
    total = sweep.base["ppo"]["total_timesteps"]
    for i, r in enumerate(grid):
        trial = Path(r.path).name
        df = r.metrics_dataframe
        hist = [] if df is None or metric not in df else \
            list(zip(df["global_step"].tolist(), df[metric].tolist(), strict=True))
        params = ", ".join(f"{k}={_cell(r.config.get(k))}" for k in sweep.search)
        curves[f"{i}: {params}"] = hist
        last = hist[-1] if hist else (0, float("nan"))
        row = {"trial": trial, **{k: r.config.get(k) for k in sweep.search},
               "global_step": int(last[0]), metric: last[1],
               "best": max((h[1] for h in hist), default=float("nan")),
               "stopped_early": bool(hist) and last[0] < total, "error": r.error is not None}
        rows.append(row)
    rows.sort(key=lambda r: -r[metric] if r[metric] == r[metric] else 1.0)
    return rows, curves


def write_results(out: Path, rows: list[dict], curves: dict, sweep: SweepConfig,
                  metric: str) -> None:
    """``results.csv``, ``results.md`` and ``curves.png`` in ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    cols = list(rows[0]) if rows else ["trial"]
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        w.writerows(rows)
    lines = [f"| {' | '.join(cols)} |", f"|{'---|' * len(cols)}"]
    for r in rows:
        lines.append("| " + " | ".join(_cell(r[c]) for c in cols) + " |")
    (out / "results.md").write_text(
        f"# Sweep `{sweep.name}`\n\nLast reported `{metric}` (the final evaluation unless "
        f"ASHA stopped the trial), best first.\n\n" + "\n".join(lines) + "\n")
    fig, ax = plt.subplots(figsize=(7, 4))
    for trial, hist in curves.items():
        if hist:
            ax.plot(*zip(*hist, strict=True), marker="o", label=trial)
    ax.set_xlabel("environment steps")
    ax.set_ylabel(f"win rate vs {sweep.metric}")
    ax.set_title(sweep.name)
    if curves:
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(out / "curves.png", dpi=100)
    plt.close(fig)


def _cell(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def main(argv: list[str] | None = None) -> int:
    from durak_env.cli import ArgumentParser

    parser = ArgumentParser(prog="python -m agents.sweep", description=__doc__.split("\n")[0])
    parser.add_argument("config", help="sweep file, e.g. configs/sweep_2p_small.yaml")
    parser.add_argument("--output", default=None, help="parent of the sweep's directory "
                        "(default: the file's output, runs/sweeps)")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("ray") is None:
        parser.error("sweeps need Ray Tune: pip install -e \".[ray]\"")
    try:
        sweep = load_sweep(args.config)
    except ConfigError as e:
        parser.error(str(e))
    rows = run_sweep(sweep, args.output)
    out = Path(args.output or sweep.output) / sweep.name
    metric = f"winrate_vs_{sweep.metric}"
    for r in rows:
        params = ", ".join(f"{k}={_cell(r[k])}" for k in sweep.search)
        print(f"{r['trial']}: {params}: {metric} {_cell(r[metric])} at step {r['global_step']}"
              f"{' (stopped early)' if r['stopped_early'] else ''}")
    print(f"results: {out / 'results.md'}, {out / 'results.csv'}, {out / 'curves.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
