"""A checkpoint that ``python -m agents.finetune`` takes: the weights, settings and
training state (update, steps, minutes, evaluations) of MAIN, a run's checkpoint from
before its end-game stage, with the fitted end-game expert of EXPERT (a probe):

    python finetune_start.py MAIN EXPERT OUT
"""

import sys

from agents.ppo import load_checkpoint, save_checkpoint

main_path, expert_path, out = sys.argv[1:4]
net, data = load_checkpoint(main_path)
expert, _ = load_checkpoint(expert_path)
theirs = {k: v for k, v in expert.state_dict().items() if k.startswith("endgame.")}
missing, unexpected = net.load_state_dict(theirs, strict=False)
if unexpected or any(k.startswith("endgame.") for k in missing):
    raise SystemExit(f"the experts differ in shape: missing {missing}, unexpected {unexpected}")
if not net.endgame.active:
    raise SystemExit(f"{expert_path} holds no fitted end-game expert")
extra = {k: data[k] for k in ("update", "global_step", "elapsed", "history")}
save_checkpoint(out, net, None, data["config"], {**extra, "pool": {}})
print("wrote", out, "at update", extra["update"])
