"""A probe, not part of the product: the tournament with one more agent, ``ppo_ens``, that
plays the mean of two checkpoints' log-probabilities (each its main head over
``symmetries`` suit renamings and its own end-game expert where it plays).

    python checkpoints/in_progress/ppo_2p_podkidnoy/ensemble/ensemble_probe.py \
        --agents ppo_ens:path=A.pt,path2=B.pt,expert --players 2 --games 10000 --seed 31
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agents import registry  # noqa: E402
from agents.ppo import PPOAgent, legal_lists, legal_valid, load_checkpoint  # noqa: E402

# the tournament's spawned workers import this file again, and so register the agent too
registry.REGISTRY["ppo_ens"] = "ensemble_probe:EnsembleAgent"


class EnsembleAgent(PPOAgent):
    name = "ppo_ens"

    def __init__(self, rules=None, *, path: str = "", path2: str = "", greedy: bool = True,
                 symmetries: int = 6):
        super().__init__(rules, path=path, greedy=greedy, symmetries=symmetries)
        self.net2, _ = load_checkpoint(path2, rules)

    @torch.inference_mode()
    def _legal_logits(self, obs, mask):
        ids, counts = legal_lists(mask)
        valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
        x = torch.as_tensor(np.ascontiguousarray(obs), dtype=torch.float32)
        total = 0
        for net in (self.net, self.net2):
            logits = net.policy_logits(x, torch.from_numpy(ids), valid, renamed=self._renamed)
            total = total + torch.log_softmax(logits.masked_fill(~valid, -1e9), 1)
        return ids, counts, total.masked_fill(~valid, -1e9).numpy()


if __name__ == "__main__":
    from agents.tournament.cli import main

    main(sys.argv[1:])
