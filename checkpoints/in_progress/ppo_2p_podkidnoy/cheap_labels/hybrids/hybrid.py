"""A checkpoint with the main trunk, head and critic of MAIN and the end-game expert (and
network settings, symmetries included) of EXPERT (a probe):

    python hybrid.py MAIN EXPERT OUT
"""

import sys

from agents.ppo import load_checkpoint, save_checkpoint

main_path, expert_path, out = sys.argv[1:4]
main, _ = load_checkpoint(main_path)
net, data = load_checkpoint(expert_path)
own = {k: v for k, v in main.state_dict().items() if not k.startswith("endgame.")}
missing, unexpected = net.load_state_dict(own, strict=False)
if unexpected or not all(k.startswith("endgame.") for k in missing):
    raise SystemExit(f"the main heads differ in shape: missing {missing}, unexpected {unexpected}")
save_checkpoint(out, net, None, data.get("config"))
print("wrote", out)
