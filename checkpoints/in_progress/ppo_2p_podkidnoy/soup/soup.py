"""Average the weights of checkpoints fine-tuned from one parent, a "model soup" (a probe,
not part of the product).

    python checkpoints/in_progress/ppo_2p_podkidnoy/soup/soup.py OUT.pt A.pt B.pt ...

Every floating-point tensor of OUT is the mean of that tensor in A, B, ...; the network
shape, config and rules are A's, so all must share one architecture."""
import sys

import torch

from agents.ppo import load_checkpoint, save_checkpoint


def main() -> None:
    out, paths = sys.argv[1], sys.argv[2:]
    nets = [load_checkpoint(p) for p in paths]
    base, data = nets[0]
    state = base.state_dict()
    same = 0
    for k in state:
        vals = [n.state_dict()[k] for n, _ in nets]
        same += all(torch.equal(vals[0], v) for v in vals[1:])
        if state[k].is_floating_point():
            state[k] = sum(v.float() for v in vals) / len(vals)
    base.load_state_dict(state)
    print(f"{len(state)} tensors, {same} identical across the {len(paths)} checkpoints")
    save_checkpoint(out, base, None, data.get("config"))


if __name__ == "__main__":
    main()
