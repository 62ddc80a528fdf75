"""How noisy are the sampled search's labels? (a probe, not part of the product)

``python label_noise.py POSITIONS.npz``: POSITIONS.npz is the ``--save-data`` of
``python -m agents.endgame_expert ... endgame.collect_min_talon=2 search.pimc_samples=32``
(positions with 2 or 3 talon cards, each labelled with the best moves over 32 sampled
deals). Labels them again with 8 deals (two seeds) and with 32 (another seed) and prints,
for each, how often a move picked at random among its best lies among the file's best.
"""

import sys

import numpy as np

from agents.endgame_expert import label
from agents.teacher import SearchConfig
from durak_env import Rules

data = dict(np.load(sys.argv[1]))
rules = Rules(num_players=2, deck_size=36, hand_size=6, variant="podkidnoy")
base = {k: data[k] for k in ("obs", "ids", "counts", "game")}
ref = data["good"]


def best_sets(samples: int, seed: int) -> np.ndarray:
    out = label(dict(base), rules, SearchConfig(pimc_samples=samples), workers=1, seed=seed)
    assert len(out["good"]) == len(ref), "every position is labelled again"
    return out["good"]


for name, good in [("8 deals, seed 1001", best_sets(8, 1001)),
                   ("8 deals, seed 2002", best_sets(8, 2002)),
                   ("32 deals, seed 3003", best_sets(32, 3003))]:
    pick_in_ref = ((good & ref).sum(1) / good.sum(1)).mean()
    print(f"{name}: random pick among its best in the file's best {pick_in_ref:.3f}, "
          f"same set {(good == ref).all(1).mean():.3f}, mean set size {good.sum(1).mean():.2f}")
print(f"the file's mean set size {ref.sum(1).mean():.2f}, mean legal moves "
      f"{data['counts'].mean():.2f}")
