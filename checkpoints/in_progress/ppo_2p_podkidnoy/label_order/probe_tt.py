"""Label cost by the solver's table size and the order of the positions (a probe):

    python probe_tt.py CHECKPOINT GAMES CAP BITS[,BITS...] ORDER[,ORDER...]

plays GAMES games of CHECKPOINT's sampled policy against expert_rules (the stage's
``collect``, seed 5) and labels every kept position alone in this process with
``SearchLabeler.label_set``, its solver's table of 2**BITS entries, the positions in the
order collected (turn by turn across all games) or grouped by game; prints seconds and
positions kept (a best move proven), by talon size. The collecting, the labelling loop
and the report are ``cheap_labels/label_cost.py``'s (so it prints its fields)."""
import sys
from pathlib import Path

import numpy as np

from agents.endgame import EndgameSolver
from agents.teacher import SearchConfig, SearchLabeler

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cheap_labels"))
from label_cost import SEARCH, label_all, positions, report  # noqa: E402

path, games, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rules, pos, talon = positions(path, games)
for bits in [int(x) for x in sys.argv[4].split(",")]:
    for order_name in sys.argv[5].split(","):
        order = (np.arange(len(talon)) if order_name == "collected"
                 else np.argsort(pos["game"], kind="stable"))
        labeler = SearchLabeler(rules, SearchConfig(endgame_nodes=cap, **SEARCH))
        labeler.solver = EndgameSolver(rules, cap, last_card=True, cheap_first=True, tt_bits=bits)
        spent, kept, informative = label_all(labeler, pos, order)
        print(f"bits {bits} order {order_name}: total {spent.sum():.1f}s kept {kept.sum()}",
              flush=True)
        report(talon, spent, kept, informative)
