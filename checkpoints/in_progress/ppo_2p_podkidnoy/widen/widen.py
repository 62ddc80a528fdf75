"""Widen a checkpoint's main trunk without changing what it plays (a probe, not part of
the product).

    python checkpoints/in_progress/ppo_2p_podkidnoy/widen/widen.py IN.pt OUT.pt 1024 512

Each layer keeps its trained units and gains fresh ones. A fresh unit reads every input;
every weight from a fresh unit into the next layer (or the policy head) starts at zero, so
the widened network plays as the original (its logits equal up to float rounding)
until training moves them.
Everything else (end-game expert, critic, pair bias, the run's update count and
evaluations) is copied as it is, so that `python -m agents.finetune` goes on from it."""
import dataclasses
import sys

import torch

from agents.ppo import PPONet, load_checkpoint, save_checkpoint


def widen(net: PPONet, hidden: list[int]) -> PPONet:
    old = [m for m in net.trunk if isinstance(m, torch.nn.Linear)]
    if len(old) != len(hidden) or any(
            h < m.out_features for h, m in zip(hidden, old, strict=True)):
        raise SystemExit(f"cannot widen {[m.out_features for m in old]} to {hidden}")
    cfg = dataclasses.replace(net.cfg, hidden=list(hidden))
    wide = PPONet(net.rules, cfg)
    state = {k: v for k, v in net.state_dict().items()
             if not k.startswith(("trunk.", "actor."))}
    wide.load_state_dict(state, strict=False)
    new = [m for m in wide.trunk if isinstance(m, torch.nn.Linear)] + [wide.actor]
    old = old + [net.actor]
    with torch.no_grad():
        for i, (w, o) in enumerate(zip(new, old, strict=True)):
            rows, cols = o.weight.shape
            if i > 0:  # inputs from the previous layer's fresh units start at zero
                w.weight[:rows, o.weight.shape[1]:] = 0.0
            w.weight[:rows, :cols] = o.weight
            w.bias[:rows] = o.bias
    return wide


def main() -> None:
    src, dst, *widths = sys.argv[1:]
    hidden = [int(h) for h in widths]
    net, data = load_checkpoint(src)
    wide = widen(net, hidden)
    config = dict(data.get("config") or {})
    config.setdefault("network", {})
    config["network"] = {**config["network"], "hidden": hidden}
    written = {"format", "model", "optimizer", "network", "rules", "layout_version", "obs_size",
               "num_actions", "config"}  # by save_checkpoint; the rest (update, history) kept
    save_checkpoint(dst, wide, None, config, {k: v for k, v in data.items() if k not in written})
    x = torch.randn(4096, net.trunk[0].in_features).clamp(0, 1).round()
    diff = (wide.actor(wide.trunk(x)) - net.actor(net.trunk(x))).abs().max().item()
    print(f"widened to {hidden}: max |logit change| on 4,096 random inputs {diff:.2e}")


if __name__ == "__main__":
    main()
