"""Imitation's data generation by the labeler's table size (a probe):

    python probe_imitation.py POSITIONS BITS[,BITS...]

generates POSITIONS labelled positions of ``expert_rules`` games, each searched where a
search applies (``configs/ppo_2p_podkidnoy.yaml``'s imitation and search settings, seed 0),
once per table size of 2**BITS entries, and prints the seconds and the positions searched."""
import sys
import time

from agents.endgame import EndgameSolver
from agents.imitation import generate_positions
from agents.ppo_config import load_config
from agents.teacher import SearchLabeler

n = int(sys.argv[1])
cfg = load_config("configs/ppo_2p_podkidnoy.yaml")
for bits in [int(x) for x in sys.argv[2].split(",")]:
    labeler = SearchLabeler(cfg.rules, cfg.search, seed=0)
    labeler.solver = EndgameSolver(cfg.rules, cfg.search.endgame_nodes, last_card=True,
                                   cheap_first=True, tt_bits=bits)
    start = time.perf_counter()
    pos = generate_positions(cfg.rules, n, cfg.imitation, labeler, seed=0, with_state=False,
                             progress=False)
    print(f"bits {bits}: {time.perf_counter() - start:.1f}s, {len(pos):,} positions, "
          f"{int(pos.searched.sum()):,} searched", flush=True)
