"""Where the end-game stage's labelling time goes, by talon size and solver cap (a probe):

    python label_cost.py CHECKPOINT GAMES CAP[,CAP...]

plays GAMES games of CHECKPOINT's sampled policy against expert_rules (the stage's
``collect``), then labels every kept position alone in this process with each cap
(``SearchLabeler.label_set``, a fresh solver per cap) and prints, per talon size, the
seconds, the share kept (a best move proven), the informative share and the seconds
spent on positions dropped afterwards."""

import sys
import time

import numpy as np

from agents.endgame_expert import collect
from agents.ppo import load_checkpoint
from agents.ppo_config import EndgameConfig
from agents.teacher import SearchConfig, SearchLabeler
from agents.view import fast_decode

path, games = sys.argv[1], int(sys.argv[2])
caps = [int(x) for x in sys.argv[3].split(",")]
net, _ = load_checkpoint(path)
rules = net.rules
pos = collect(net, rules, EndgameConfig(games=games), seed=5, num_threads=2)
talon = np.array([fast_decode(o, rules).talon_size for o in pos["obs"]])
print("positions", len(talon), "by talon", np.bincount(talon))
for cap in caps:
    labeler = SearchLabeler(rules, SearchConfig(endgame_nodes=cap, pimc_talon=3,
                                                pimc_samples=8, pimc_nodes=1000))
    labeler.rng = np.random.default_rng(0)
    spent = np.zeros(len(talon))
    kept = np.zeros(len(talon), bool)
    informative = np.zeros(len(talon), bool)
    for i in range(len(talon)):
        legal = pos["ids"][i, : pos["counts"][i]].tolist()
        start = time.perf_counter()
        best = labeler.label_set(pos["obs"][i], legal)
        spent[i] = time.perf_counter() - start
        if best is not None:
            kept[i], informative[i] = True, best.sum() < len(legal)
    print(f"cap {cap}: total {spent.sum():.1f}s")
    for k in range(4):
        m = talon == k
        if m.any():
            share = informative[m & kept].sum() / max(1, kept[m].sum())
            print(f"  talon {k}: n={m.sum()} time={spent[m].sum():.1f}s "
                  f"({spent[m].mean() * 1000:.2f} ms/pos) kept={kept[m].mean():.3f} "
                  f"informative(of kept)={share:.3f} dropped-time={spent[m & ~kept].sum():.1f}s")
