"""Ship a training run's checkpoint: ``python scripts/ship_checkpoint.py RUN_DIR NAME``.

Copies what the model card (``checkpoints/README.md``, rendered by
``scripts/gen_docs.py``) reads, and nothing else of the run directory:

- ``checkpoints/NAME.pt``: the run's ``final.pt`` (``--latest``: ``latest.pt``) without
  the optimizer state and the snapshot pool, with the imitation report and the
  machine it was trained on;
- ``checkpoints/NAME.yaml``: the run's resolved config;
- ``checkpoints/NAME_evals.jsonl`` and ``NAME_strength.png``: the evaluations during
  training and the time-to-strength plot (``python -m agents.strength``);
- ``checkpoints/NAME_curves.png``: the training curves (``--finetuned``, a run of
  ``python -m agents.finetune``: ``NAME_finetune_curves.png``, the fine-tuning's).

``--set network.endgame_symmetries=N`` ships the checkpoint with a network setting that
holds no weights changed (in the checkpoint and in ``NAME.yaml``); the model card then
lists this command after the ones that trained it.
``python scripts/ship_checkpoint.py --update NAME --set ...`` changes such a setting of
a checkpoint already shipped (its weights, evaluations and curves stay as they are).
``--update NAME --expert PATH`` puts in the end-game expert of ``PATH``, a checkpoint that
``python -m agents.endgame_expert checkpoints/NAME.pt ... --out PATH`` (``--refit`` or
``--replace``) wrote: its main trunk and heads must be the shipped ones, so only the
expert, its network settings and its report change; the evaluations and curves of the
main training stay, and the provenance lists the stage's command and this one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.results import commit  # noqa: E402


def machine() -> dict:
    import numba
    import torch

    return {"cpus": os.cpu_count(), "gpu": torch.cuda.is_available(),
            "torch": torch.__version__, "numba": numba.__version__,
            "python": platform.python_version(), "platform": platform.platform()}


def play_settings(pairs: list[str]) -> dict:
    """``network.KEY=VALUE`` strings -> ``{KEY: value}`` (YAML values).

    Raises:
        ValueError: not such a string, or a key of ``network`` with weights.
    """
    import yaml

    from agents.ppo import PLAY_SETTINGS

    out = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        name = key.removeprefix("network.")
        if not eq or name not in PLAY_SETTINGS or not key.startswith("network."):
            raise ValueError(f"--set takes network.KEY=VALUE with KEY one of "
                             f"{', '.join(PLAY_SETTINGS)} (settings without weights), "
                             f"got {pair!r}")
        out[name] = yaml.safe_load(value)
    return out


def apply_settings(data: dict, settings: dict, command: str, cfg_src: Path,
                   cfg_out: Path) -> None:
    """Set play settings in checkpoint ``data`` (its network and config), list ``command``
    in its provenance, and write the config of ``cfg_src`` with them to ``cfg_out``.

    Raises:
        ValueError: a setting the network refuses (nothing changed).
    """
    import yaml

    from agents.ppo import NetworkConfig

    NetworkConfig(**{**data["network"], **settings}).validate()
    data["network"].update(settings)
    data["config"]["network"].update(settings)
    data["provenance"]["commands"].append(command)
    cfg = yaml.safe_load(cfg_src.read_text())
    cfg["network"].update(settings)
    cfg_out.write_text(yaml.safe_dump(cfg, sort_keys=False))


def _set_args(pairs: list[str]) -> list[str]:
    return [f"--set={s}" for s in pairs]


def _finetune_keys() -> tuple[str, ...]:
    """``endgame`` settings of the PPO fine-tuning after the stage, not of the expert's fit
    (every ``finetune_*`` field of ``EndgameConfig``, and ``handoff``)."""
    from dataclasses import fields

    from agents.ppo_config import EndgameConfig

    return (*(f.name for f in fields(EndgameConfig) if f.name.startswith("finetune_")),
            "handoff")


def swap_expert(data: dict, new: dict, source: str, cfg: Path) -> None:
    """Put the end-game expert of checkpoint ``new`` (read from ``source``) into shipped
    checkpoint ``data``, and its network and ``endgame`` settings into the config file
    ``cfg``; the shipped play settings and fine-tuning settings (``_finetune_keys``) stay.

    Raises:
        ValueError: ``new`` has no fitted expert, or is not the shipped network with
            another expert (other rules, layout, main trunk or heads).
    """
    import torch
    import yaml

    from agents.ppo import PLAY_SETTINGS

    if not new.get("endgame") or not new["endgame"].get("command"):
        raise ValueError(f"{source} has no end-game expert fitted by python -m "
                         f"agents.endgame_expert")
    main = {k for k in data["model"] if not k.startswith("endgame.")}
    if (new["rules"] != data["rules"] or new["layout_version"] != data["layout_version"]
            or main != {k for k in new["model"] if not k.startswith("endgame.")}
            or any(not torch.equal(data["model"][k], new["model"][k]) for k in main)):
        raise ValueError(f"{source}: its main trunk and heads are not those of the shipped "
                         f"checkpoint (--expert takes what python -m agents.endgame_expert "
                         f"wrote from it)")
    own = {k: v for k, v in new["network"].items() if k.startswith("endgame_")
           and k not in PLAY_SETTINGS}
    # the stage's settings describe the new expert; the fine-tuning ones (finetune_*,
    # handoff) describe how the shipped main head was trained after it, so they stay
    shipped, keep = data["config"].get("endgame") or {}, _finetune_keys()
    stage = {k: v for k, v in (new["config"].get("endgame") or {}).items() if k not in keep}
    data["model"] = new["model"]
    data["network"].update(own)
    data["config"]["network"].update(own)
    data["config"]["endgame"] = {**stage, **{k: shipped[k] for k in keep if k in shipped}}
    data["endgame"] = new["endgame"]
    data["provenance"]["commands"].append(new["endgame"]["command"])
    text = yaml.safe_load(cfg.read_text())
    text["network"].update(own)
    text["endgame"] = data["config"]["endgame"]
    cfg.write_text(yaml.safe_dump(text, sort_keys=False))


def update(name: str, settings: dict, pairs: list[str], expert: str | None = None) -> None:
    """Change play settings (``play_settings``) of the shipped ``checkpoints/NAME.pt`` and
    of ``NAME.yaml``, and with ``expert`` its end-game expert (``swap_expert``); the
    provenance lists the command and the commit it ran at.

    Raises:
        FileNotFoundError: no such checkpoint, or no ``expert`` file.
        ValueError: a setting the network refuses, or an expert that does not fit.
    """
    import torch

    from durak_env.atomic import atomic_write

    path = ROOT / "checkpoints" / f"{name}.pt"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    if expert is not None and not Path(expert).is_file():
        raise FileNotFoundError(f"{expert} does not exist")
    data = torch.load(path, map_location="cpu", weights_only=False)
    data.setdefault("provenance", {"commands": [], "commit": "unknown"})
    cfg = path.with_suffix(".yaml")
    backup = cfg.read_text()
    command = ["python", "scripts/ship_checkpoint.py", "--update", name]
    try:
        if expert is not None:
            swap_expert(data, torch.load(expert, map_location="cpu", weights_only=False),
                        expert, cfg)
            command += ["--expert", expert]
        apply_settings(data, settings, shlex.join([*command, *_set_args(pairs)]), cfg, cfg)
    except ValueError:
        cfg.write_text(backup)  # nothing changed
        raise
    data["provenance"]["updated"] = [*data["provenance"].get("updated", []), commit() or "unknown"]
    with atomic_write(path, binary=True) as f:
        torch.save(data, f)
    print(f"updated checkpoints/{name}.pt: "
          + ", ".join([*([f"end-game expert of {expert}"] if expert else []),
                       *(f"{k}={v}" for k, v in settings.items())])
          + "; now run python scripts/gen_docs.py")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", nargs="?", help="training run directory")
    ap.add_argument("name", nargs="?", help="checkpoint name, e.g. ppo_2p_podkidnoy")
    ap.add_argument("--update", metavar="NAME",
                    help="change the --set settings of the shipped checkpoints/NAME.pt "
                         "(no run directory)")
    ap.add_argument("--expert", metavar="PATH",
                    help="with --update: put in the end-game expert of PATH, which python -m "
                         "agents.endgame_expert wrote from checkpoints/NAME.pt")
    ap.add_argument("--latest", action="store_true", help="ship latest.pt instead of final.pt")
    ap.add_argument("--command", action="append", default=[], metavar="CMD",
                    help="a command that trained the run, in order (repeat for --resume steps)")
    ap.add_argument("--finetuned", action="store_true",
                    help="a run of python -m agents.finetune: its curves (the fine-tuning "
                         "only) go to NAME_finetune_curves.png")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a network setting without weights to ship changed "
                         "(agents.ppo.PLAY_SETTINGS), e.g. network.endgame_symmetries=6")
    args = ap.parse_args(argv)
    try:
        settings = play_settings(args.set)
    except ValueError as e:
        ap.error(str(e))
    if args.update:
        if args.run or args.name:
            ap.error("--update NAME takes no run directory")
        if not settings and not args.expert:
            ap.error("--update needs at least one --set, or --expert")
        try:
            update(args.update, settings, args.set, args.expert)
        except (FileNotFoundError, ValueError) as e:
            print(f"ship_checkpoint: error: {e}", file=sys.stderr)
            return 2
        return 0
    if args.expert:
        ap.error("--expert goes with --update NAME")
    if not (args.run and args.name):
        ap.error("give RUN_DIR and NAME (or --update NAME)")
    import torch

    from agents.ppo import NetworkConfig
    from agents.ppo_plot import plot_run
    from agents.strength import main as strength
    from durak_env.atomic import atomic_write

    run = Path(args.run)
    src = run / "checkpoints" / ("latest.pt" if args.latest else "final.pt")
    if not src.is_file():
        print(f"ship_checkpoint: error: {src} does not exist", file=sys.stderr)
        return 2
    data = torch.load(src, map_location="cpu", weights_only=False)
    data["optimizer"], data["pool"] = None, None
    if (run / "imitation.json").is_file():
        rep = json.loads((run / "imitation.json").read_text())
        data["imitation"] = {k: v for k, v in rep.items() if k != "history"}
    if (run / "endgame.json").is_file():
        data["endgame"] = json.loads((run / "endgame.json").read_text())
    data["machine"] = machine()
    data["provenance"] = {"commands": list(args.command), "commit": commit() or "unknown"}
    out = ROOT / "checkpoints"
    try:
        if settings:
            apply_settings(data, settings, shlex.join(
                ["python", "scripts/ship_checkpoint.py", "RUN_DIR", args.name,
                 *_set_args(args.set)]), run / "config.yaml", out / f"{args.name}.yaml")
        NetworkConfig(**data["network"]).validate()
    except ValueError as e:
        ap.error(str(e))
    if not settings:
        shutil.copy(run / "config.yaml", out / f"{args.name}.yaml")
    with atomic_write(out / f"{args.name}.pt", binary=True) as f:
        torch.save(data, f)
    shutil.copy(run / "evals.jsonl", out / f"{args.name}_evals.jsonl")
    strength([str(run), "--out", str(out / f"{args.name}_strength.png")])
    # a run of agents.finetune logged the fine-tuning only: the PPO curves already shipped stay
    curves = "finetune_curves" if args.finetuned else "curves"
    plot_run(run, out / f"{args.name}_{curves}.png")
    for png in ("strength", curves):  # the docs site shows them on the training page
        shutil.copy(out / f"{args.name}_{png}.png", ROOT / "docs" / f"{args.name}_{png}.png")
    print(f"shipped {src} as checkpoints/{args.name}.pt; now run python scripts/gen_docs.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
