"""Train a Durak agent by self-play PPO.

    python train.py                                   # configs/default.yaml
    python train.py --config configs/ppo_2p_podkidnoy.yaml ppo.lr=1e-4 env.num_envs=2048
    python train.py --resume runs/ppo_2p_podkidnoy__1__1700000000 [key=value ...]

Writes ``runs/{exp}__{seed}__{time}/`` with ``config.yaml``, TensorBoard event files,
``checkpoints/latest.pt`` and ``final.pt``, ``final_eval.json`` and ``curves.png``.

Everything is checked before the run directory is made (the config, every agent spec,
``ppo:`` checkpoints, the thread counts, on ``--resume`` the checkpoint and the overrides,
with ``ray.actors`` the Ray cluster and its CPUs):
a bad argument is one line on stderr and exit status 2, and leaves nothing behind. Files
are written atomically, so a run killed at any moment resumes from its last checkpoint.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Before torch and numba start their OpenMP pools (see agents/ppo_train.py).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "default.yaml"


def main(argv: list[str] | None = None) -> int:
    from durak_env.cli import ArgumentParser

    parser = ArgumentParser(prog="train.py", description=__doc__.split("\n")[0])
    parser.add_argument("--config", default=None,
                        help=f"YAML config (default {DEFAULT_CONFIG.name})")
    parser.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue a run")
    parser.add_argument("overrides", nargs="*", metavar="key=value",
                        help="dotted overrides, e.g. ppo.lr=1e-4 env.num_envs=2048")
    args = parser.parse_args(argv)

    from agents.ppo_config import ConfigError, dump_config, load_config, preflight

    try:
        if args.resume:
            if args.config:
                parser.error("--resume uses the run's own config.yaml; drop --config")
            from agents.ppo_train import resume_config

            run_dir = Path(args.resume)
            cfg = resume_config(run_dir, args.overrides)
        else:
            cfg = load_config(args.config or DEFAULT_CONFIG, args.overrides)
        preflight(cfg)
        if cfg.ray.actors:  # a cluster that cannot be joined leaves no run directory
            from agents.ray_rollout import connect

            connect(cfg)
    except (ConfigError, FileNotFoundError) as e:
        parser.error(str(e))

    from agents.ppo_plot import plot_run
    from agents.ppo_train import start_run, train

    if args.resume:  # the resolved config, overrides included, is what continues
        for stale in (run_dir / "checkpoints").glob(".*.tmp"):  # left by a killed save
            stale.unlink()
        dump_config(cfg, run_dir / "config.yaml")
    else:
        run_dir = _start(parser, cfg, start_run)
    print(f"run directory: {run_dir}", flush=True)
    summary = train(cfg, run_dir, resume=bool(args.resume))
    plot_run(run_dir)
    for spec, r in summary["final_eval"].items():
        lo, hi = r["ci95"]
        print(f"final: vs {spec}: win rate {r['winrate']:.3f} [{lo:.3f}, {hi:.3f}] "
              f"over {r['games']} games", flush=True)
    speed = summary.get("speed")
    if speed:
        share = ", ".join(f"{k} {v:.0%}" for k, v in speed["time_share"].items())
        print(f"charts/SPS median {speed['sps_median']:,.0f} env steps/s; time: {share}")
    print(f"trained {summary['global_step']} steps in {summary['train_seconds']:.0f} s; "
          f"checkpoint {run_dir / 'checkpoints' / 'final.pt'}")
    return 0


def _start(parser, cfg, start_run) -> Path:
    """Make the run directory; if that fails, leave no part of it behind."""
    runs = Path(cfg.logging.runs_dir)
    before = set(runs.iterdir()) if runs.is_dir() else set()
    try:
        return start_run(cfg)
    except OSError as e:
        if runs.is_dir():
            for partial in set(runs.iterdir()) - before:
                if partial.name.startswith(f"{cfg.exp_name}__"):
                    shutil.rmtree(partial, ignore_errors=True)
        parser.error(f"logging.runs_dir: cannot create a run directory in "
                     f"{cfg.logging.runs_dir!r}: {e.strerror or e}")


if __name__ == "__main__":
    sys.exit(main())
