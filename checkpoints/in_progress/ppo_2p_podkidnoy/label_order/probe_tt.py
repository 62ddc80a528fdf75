"""Label cost by the solver's table size and the order of the positions (a probe):

    python probe_tt.py CHECKPOINT GAMES CAP BITS[,BITS...] ORDER[,ORDER...]

plays GAMES games of CHECKPOINT's sampled policy against expert_rules (the stage's
``collect``, seed 5) and labels every kept position alone in this process with
``SearchLabeler.label_set``, its solver's table of 2**BITS entries, the positions in the
order collected (turn by turn across all games) or grouped by game; prints seconds and
positions kept (a best move proven), by talon size."""
import sys
import time

import numpy as np

from agents.endgame import EndgameSolver
from agents.endgame_expert import collect
from agents.ppo import load_checkpoint
from agents.ppo_config import EndgameConfig
from agents.teacher import SearchConfig, SearchLabeler
from agents.view import fast_decode

path, games, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bits_list = [int(x) for x in sys.argv[4].split(",")]
orders = sys.argv[5].split(",")
net, _ = load_checkpoint(path)
rules = net.rules
pos = collect(net, rules, EndgameConfig(games=games), seed=5, num_threads=2)
talon = np.array([fast_decode(o, rules).talon_size for o in pos["obs"]])
print("positions", len(talon), "by talon", np.bincount(talon), flush=True)
search = SearchConfig(endgame_nodes=cap, pimc_talon=3, pimc_samples=8, pimc_nodes=1000)
for bits in bits_list:
    for order_name in orders:
        if order_name == "collected":
            idx = np.arange(len(talon))
        else:
            idx = np.argsort(pos["game"], kind="stable")
        labeler = SearchLabeler(rules, search)
        labeler.solver = EndgameSolver(rules, cap, last_card=True, cheap_first=True, tt_bits=bits)
        labeler.rng = np.random.default_rng(0)
        spent = np.zeros(len(talon))
        kept = np.zeros(len(talon), bool)
        for i in idx:
            legal = pos["ids"][i, : pos["counts"][i]].tolist()
            t = time.perf_counter()
            best = labeler.label_set(pos["obs"][i], legal)
            spent[i] = time.perf_counter() - t
            kept[i] = best is not None
        print(f"bits {bits} order {order_name}: total {spent.sum():.1f}s kept {kept.sum()}",
              flush=True)
        for k in range(4):
            m = talon == k
            print(f"  talon {k}: n={m.sum()} time={spent[m].sum():.1f}s kept={kept[m].mean():.3f} "
                  f"dropped-time={spent[m & ~kept].sum():.1f}s", flush=True)
