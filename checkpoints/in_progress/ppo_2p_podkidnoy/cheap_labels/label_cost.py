"""Where the end-game stage's labelling time goes, by talon size and solver cap (a probe):

    python label_cost.py CHECKPOINT GAMES CAP[,CAP...]

plays GAMES games of CHECKPOINT's sampled policy against expert_rules (the stage's
``collect``), then labels every kept position alone in this process with each cap
(``SearchLabeler.label_set``, a fresh solver per cap) and prints, per talon size, the
seconds, the share kept (a best move proven), the informative share and the seconds
spent on positions dropped afterwards. ``label_order/probe_tt.py`` reuses ``positions``,
``label_all`` and ``report``."""

import sys
import time

import numpy as np

from agents.endgame_expert import collect
from agents.ppo import load_checkpoint
from agents.ppo_config import EndgameConfig
from agents.teacher import SearchConfig, SearchLabeler
from agents.view import fast_decode

SEARCH = dict(pimc_talon=3, pimc_samples=8, pimc_nodes=1000)


def positions(path: str, games: int):
    """The rules, the collected positions and each one's talon size."""
    net, _ = load_checkpoint(path)
    pos = collect(net, net.rules, EndgameConfig(games=games), seed=5, num_threads=2)
    talon = np.array([fast_decode(o, net.rules).talon_size for o in pos["obs"]])
    print("positions", len(talon), "by talon", np.bincount(talon), flush=True)
    return net.rules, pos, talon


def label_all(labeler: SearchLabeler, pos: dict, order: np.ndarray):
    """Label the positions one by one in ``order``: seconds spent on each, whether a best
    move was proven (kept), and whether some legal move is worse (informative)."""
    n = len(pos["obs"])
    spent, kept, informative = np.zeros(n), np.zeros(n, bool), np.zeros(n, bool)
    labeler.rng = np.random.default_rng(0)
    for i in order:
        legal = pos["ids"][i, : pos["counts"][i]].tolist()
        start = time.perf_counter()
        best = labeler.label_set(pos["obs"][i], legal)
        spent[i] = time.perf_counter() - start
        if best is not None:
            kept[i], informative[i] = True, best.sum() < len(legal)
    return spent, kept, informative


def report(talon: np.ndarray, spent: np.ndarray, kept: np.ndarray, informative: np.ndarray):
    """Per talon size: positions, seconds, share kept and informative, time on dropped."""
    for k in range(4):
        m = talon == k
        if m.any():
            share = informative[m & kept].sum() / max(1, kept[m].sum())
            print(f"  talon {k}: n={m.sum()} time={spent[m].sum():.1f}s "
                  f"({spent[m].mean() * 1000:.2f} ms/pos) kept={kept[m].mean():.3f} "
                  f"informative(of kept)={share:.3f} dropped-time={spent[m & ~kept].sum():.1f}s",
                  flush=True)


if __name__ == "__main__":
    rules, pos, talon = positions(sys.argv[1], int(sys.argv[2]))
    for cap in [int(x) for x in sys.argv[3].split(",")]:
        labeler = SearchLabeler(rules, SearchConfig(endgame_nodes=cap, **SEARCH))
        spent, kept, informative = label_all(labeler, pos, np.arange(len(talon)))
        print(f"cap {cap}: total {spent.sum():.1f}s")
        report(talon, spent, kept, informative)
