"""Fine-tune a finished checkpoint after its end-game stage, as ``train.py`` does with
``endgame.finetune_timesteps`` > 0:

    python -m agents.finetune checkpoints/ppo_2p_podkidnoy.pt \
        --config configs/ppo_2p_podkidnoy.yaml [key=value ...]

The checkpoint must hold a fitted end-game expert and have run the config's PPO updates,
and its network must be the config's, but for settings that hold no weights
(``network.endgame_symmetries``: the config's apply).
A new run directory is made (``logging.runs_dir``) whose ``checkpoints/latest.pt`` is the
checkpoint at its last PPO update, with a fresh optimizer and snapshot pool, and with its
stored imitation and end-game reports as ``imitation.json`` and ``endgame.json``; the run then
continues as ``python train.py --resume`` would after the end-game stage: the expert is
frozen and PPO trains the main head for ``endgame.finetune_timesteps`` more steps (a run
killed here continues with ``train.py --resume RUN_DIR``). The evaluations of the
checkpoint's run (``NAME_evals.jsonl`` beside a shipped ``NAME.pt``, or the run
directory's for ``RUN_DIR/checkpoints/final.pt``) are carried over, so that the
time-to-strength plot shows the whole run.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def adopt(checkpoint: str | Path, cfg, run_dir: Path) -> None:
    """Write ``run_dir/checkpoints/latest.pt`` from ``checkpoint`` for ``cfg``.

    Raises:
        ConfigError: the checkpoint does not fit the config, has no fitted end-game
            expert, or has not finished the config's PPO updates.
    """
    import torch

    from .ppo import NetworkConfig, PPONet, save_checkpoint
    from .ppo_config import ConfigError
    from .ppo_train import checkpoint_for, stage_updates

    net, data = checkpoint_for(Path(checkpoint), cfg, "the config", play_settings=True)
    if net.endgame is None or not net.endgame.active:
        raise ConfigError(f"{checkpoint} has no fitted end-game expert: fine-tuning freezes "
                          f"it (run python -m agents.endgame_expert first)")
    steps = cfg.ppo.num_steps * cfg.env.num_envs
    update = int(data.get("update", 0))
    if update < stage_updates(cfg)[0]:
        raise ConfigError(f"{checkpoint} stopped at update {update}, before the config's "
                          f"PPO updates end: finish them with train.py --resume")
    fresh = PPONet(cfg.rules, NetworkConfig(**vars(cfg.network)))
    opt = torch.optim.Adam(fresh.parameters(), lr=cfg.ppo.lr, eps=1e-5)
    extra = {"update": update, "global_step": int(data.get("global_step", update * steps)),
             "elapsed": float(data.get("elapsed", 0.0)), "history": data.get("history", []),
             "pool": {}}
    save_checkpoint(run_dir / "checkpoints" / "latest.pt", net, opt, cfg.to_dict(), extra)
    for stage in ("imitation", "endgame"):  # the reports that ship_checkpoint reads
        if data.get(stage):
            (run_dir / f"{stage}.json").write_text(json.dumps(data[stage], indent=2))
    evals = carried_evals(Path(checkpoint))
    if evals is not None:
        shutil.copy(evals, run_dir / "evals.jsonl")


def carried_evals(checkpoint: Path) -> Path | None:
    """The evaluations of the run that wrote ``checkpoint``: ``NAME_evals.jsonl`` beside a
    shipped ``NAME.pt``, or ``RUN_DIR/evals.jsonl`` for ``RUN_DIR/checkpoints/*.pt``."""
    beside = checkpoint.with_name(checkpoint.stem + "_evals.jsonl")
    if beside.is_file():
        return beside
    run = checkpoint.parent.parent / "evals.jsonl"
    return run if checkpoint.parent.name == "checkpoints" and run.is_file() else None


def main(argv: list[str] | None = None) -> int:
    from durak_env.cli import ArgumentParser

    parser = ArgumentParser(prog="python -m agents.finetune",
                            description="Fine-tune a finished checkpoint after its end-game "
                                        "stage (endgame.finetune_timesteps).")
    parser.add_argument("checkpoint")
    parser.add_argument("--config", required=True)
    parser.add_argument("overrides", nargs="*", metavar="key=value")
    args = parser.parse_intermixed_args(argv)

    from .ppo_config import ConfigError, load_config, preflight
    from .ppo_plot import plot_run
    from .ppo_train import start_run, train

    try:
        cfg = load_config(args.config, args.overrides)
        if cfg.endgame.finetune_timesteps == 0:
            raise ConfigError("endgame.finetune_timesteps is 0: nothing to fine-tune")
        if not Path(args.checkpoint).is_file():
            raise ConfigError(f"checkpoint {args.checkpoint!r} does not exist")
        preflight(cfg)
    except ConfigError as e:
        parser.error(str(e))
    run_dir = start_run(cfg)
    try:
        adopt(args.checkpoint, cfg, run_dir)
    except ConfigError as e:
        shutil.rmtree(run_dir, ignore_errors=True)
        parser.error(str(e))
    print(f"run directory: {run_dir}", flush=True)
    summary = train(cfg, run_dir, resume=True)
    plot_run(run_dir)
    for spec, r in summary["final_eval"].items():
        lo, hi = r["ci95"]
        print(f"final: vs {spec}: win rate {r['winrate']:.3f} [{lo:.3f}, {hi:.3f}] "
              f"over {r['games']} games", flush=True)
    print(f"fine-tuned to step {summary['global_step']}; checkpoint "
          f"{run_dir / 'checkpoints' / 'final.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
