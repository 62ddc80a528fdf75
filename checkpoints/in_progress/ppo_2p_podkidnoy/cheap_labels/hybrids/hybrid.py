"""A checkpoint with the main trunk, head and critic of MAIN and the end-game expert (and
network settings, symmetries included) of EXPERT (a probe):

    python hybrid.py MAIN EXPERT OUT [--train-state]

With ``--train-state`` the network settings and the training state (update, steps,
minutes, evaluations) are MAIN's instead, so that ``python -m agents.finetune`` takes OUT
as a run's checkpoint at MAIN's update, with EXPERT's fitted expert.
"""

import sys

from agents.ppo import load_checkpoint, save_checkpoint

main_path, expert_path, out = sys.argv[1:4]
train_state = "--train-state" in sys.argv[4:]
main, main_data = load_checkpoint(main_path)
expert, expert_data = load_checkpoint(expert_path)
if train_state:  # EXPERT's end-game weights into MAIN's network
    net, data, src, keep = main, main_data, expert, lambda k: k.startswith("endgame.")
else:  # MAIN's other weights into EXPERT's network
    net, data, src, keep = expert, expert_data, main, lambda k: not k.startswith("endgame.")
missing, unexpected = net.load_state_dict(
    {k: v for k, v in src.state_dict().items() if keep(k)}, strict=False)
if unexpected or any(keep(k) for k in missing):
    raise SystemExit(f"the networks differ in shape: missing {missing}, unexpected {unexpected}")
if not net.endgame.active:
    raise SystemExit(f"{expert_path} holds no fitted end-game expert")
extra = None
if train_state:
    extra = {k: data[k] for k in ("update", "global_step", "elapsed", "history")}
    extra["pool"] = {}
save_checkpoint(out, net, None, data.get("config"), extra)
print("wrote", out)
