"""Can the policy learn the end game from solved positions? ``scripts/endgame_study.py``.

1. Plays ``--games`` games of a two-player checkpoint's sampled policy against the
   batched ``expert_rules`` and solves every legal move of each of its decisions once every
   card is placed (talon empty, or only the face-up trump left), exactly as
   ``agents.endgame_audit`` does; positions where a move stays unsolved within the node cap
   are dropped.
2. Splits the positions by game (a tenth of the games held out) and fine-tunes copies of
   the checkpoint on growing shares of the training games, with and without suit
   augmentation (``durak_env.symmetry``), on minus the log of the probability of the
   best moves (the loss of ``distill.target: set``).
3. Reports the held-out blunder rate (the greedy move is worse than the best) before and
   after each fine-tuning, and, with ``--play``, the win rate of the checkpoint and of the
   last fine-tuned copy against ``expert_rules`` on the same deals.

``--json`` writes the figures with the command and commit (``docs/results/endgame_study.json``,
rendered in docs/training.md by ``scripts/gen_docs.py``).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from tqdm import tqdm  # noqa: E402

from agents.endgame import UNKNOWN, EndgameSolver  # noqa: E402
from agents.ppo import legal_valid, load_checkpoint, set_cross_entropy  # noqa: E402
from agents.results import commit  # noqa: E402
from agents.selfplay import play_against  # noqa: E402
from agents.stats import wilson  # noqa: E402
from agents.view import fast_decode  # noqa: E402
from durak_env.symmetry import SuitSymmetry  # noqa: E402


def solved_positions(net, games: int, seed: int, nodes: int, progress: bool) -> dict:
    """End-game decisions of the sampled policy, every legal move solved."""
    rules = net.rules
    solver = EndgameSolver(rules, nodes, last_card=True, cheap_first=True)
    rows: dict[str, list] = {"obs": [], "ids": [], "values": [], "game": []}

    def on_decision(obs, ids, counts, mine, actions):
        for g in mine:
            if counts[g] < 2:
                continue
            v = fast_decode(obs[g], rules)
            if not solver.applies(v):
                continue
            legal = ids[g, : counts[g]].tolist()
            solver.load(v)
            values = solver.root_values(legal, nodes)
            if (values == UNKNOWN).any():
                continue
            rows["obs"].append(obs[g].copy())
            rows["ids"].append(np.array(legal))
            rows["values"].append(values)
            rows["game"].append(g)

    bar = tqdm(total=games, unit="game", disable=not progress, desc="solved positions")
    play_against(net, rules, "expert_rules", games, seed, greedy=False,
                 on_decision=on_decision, bar=bar)
    bar.close()
    n, w = len(rows["obs"]), max(len(i) for i in rows["ids"])
    ids, good = np.zeros((n, w), np.int64), np.zeros((n, w), np.bool_)
    counts = np.array([len(i) for i in rows["ids"]])
    for i, (legal, values) in enumerate(zip(rows["ids"], rows["values"], strict=True)):
        ids[i, : len(legal)] = legal
        good[i, : len(legal)] = values == values.max()
    return {"obs": np.array(rows["obs"], np.float32), "ids": ids, "counts": counts,
            "good": good, "game": np.array(rows["game"])}


def _batch(data, rows, sym=None, rng=None):
    """Tensors (obs, ids, counts, good) of ``rows``, renamed at random with ``sym``."""
    obs, ids = data["obs"][rows], data["ids"][rows]
    if sym is not None:
        obs, ids, _ = sym.rename(rng, obs, ids)
    return tuple(torch.from_numpy(a) for a in (obs, ids, data["counts"][rows],
                                               data["good"][rows]))


def _logits(net, data, rows):
    obs, ids, counts, _ = _batch(data, rows)
    return net.policy_logits(obs, ids, legal_valid(counts, ids.shape[1]))


@torch.no_grad()
def blunder_rate(net, data, rows) -> float:
    """Share of ``rows`` where the greedy move is not one of the best."""
    net.eval()
    pick = np.concatenate([_logits(net, data, rows[s:s + 8192]).argmax(1).numpy()
                           for s in range(0, len(rows), 8192)])
    return float(np.mean(~data["good"][rows, pick]))


def fine_tune(net, data, rows, held, epochs: int, lr: float, augment: bool, seed: int):
    """A copy of ``net`` fitted to the best moves of ``rows``; held-out blunders per epoch."""
    net = copy.deepcopy(net)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    sym = SuitSymmetry(net.rules) if augment else None
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    curve = []
    for _ in range(epochs):
        net.train()
        perm = rng.permutation(rows)
        for s in range(0, len(perm), 512):
            loss = set_cross_entropy(net, *_batch(data, perm[s:s + 512], sym, rng))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
        curve.append(blunder_rate(net, data, held))
    return net, curve


def win_rate(net, games: int, seed: int) -> dict:
    result, _ = play_against(net, net.rules, "expert_rules", games, seed, greedy=True)
    wins = int((result > 0).sum())
    lo, hi = wilson(wins, games)
    return {"games": games, "wins": wins, "rate": wins / games, "ci95": [lo, hi]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint", nargs="?", default="checkpoints/ppo_2p_podkidnoy.pt")
    ap.add_argument("--games", type=int, default=12000, help="data games (default 12000)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--nodes", type=int, default=50_000, help="solver node cap per move")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--shares", default="0.33,1", help="shares of the training games")
    ap.add_argument("--play", type=int, default=0, metavar="GAMES",
                    help="also play the checkpoint and the last fine-tuned copy against "
                         "expert_rules on the same GAMES deals")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    net, _ = load_checkpoint(args.checkpoint)
    if net.rules.num_players != 2:
        print("endgame_study: error: needs a two-player checkpoint", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    data = solved_positions(net, args.games, args.seed, args.nodes, not args.no_progress)
    gen_s = time.perf_counter() - t0
    games = np.unique(data["game"])
    rng = np.random.default_rng(0)
    held_games = rng.choice(games, len(games) // 10, replace=False)
    is_held = np.isin(data["game"], held_games)
    informative = (data["good"].sum(1) < data["counts"])  # some move is worse
    held = np.flatnonzero(is_held)
    train_games = rng.permutation(np.setdiff1d(games, held_games))
    before = blunder_rate(net, data, held)
    print(f"{len(data['obs']):,} positions from {args.games:,} games in {gen_s:.0f} s "
          f"({informative.mean():.1%} with a worse move); held out {len(held):,}; "
          f"blunders before fine-tuning {before:.2%}", flush=True)
    arms, last = [], None
    for share in [float(s) for s in args.shares.split(",")]:
        use = np.isin(data["game"], train_games[: int(round(share * len(train_games)))])
        rows = np.flatnonzero(use & informative)
        for augment in (False, True):
            t1 = time.perf_counter()
            last, curve = fine_tune(net, data, rows, held, args.epochs, args.lr, augment,
                                    args.seed)
            arms.append({"share": share, "train_positions": int(len(rows)),
                         "augment": augment, "blunders": curve[-1], "curve": curve,
                         "seconds": time.perf_counter() - t1})
            print(f"share {share:.2f} ({len(rows):,} positions with a worse move), "
                  f"augment {augment}: held-out blunders {curve[-1]:.2%}", flush=True)
    out = {"positions": int(len(data["obs"])), "informative": float(informative.mean()),
           "held_out": int(len(held)), "blunders_before": before,
           "generation_seconds": gen_s, "arms": arms}
    if args.play:
        out["play"] = {"checkpoint": win_rate(net, args.play, 777),
                       "fine_tuned": win_rate(last, args.play, 777)}
        for k, r in out["play"].items():
            print(f"{k} vs expert_rules: {100 * r['rate']:.1f}% [{100 * r['ci95'][0]:.1f}, "
                  f"{100 * r['ci95'][1]:.1f}] over {r['games']:,} games")
    if args.json:
        argv = sys.argv[1:] if argv is None else list(argv)
        Path(args.json).write_text(json.dumps(
            {"command": "python scripts/endgame_study.py " + " ".join(argv), "commit": commit(),
             "date": datetime.date.today().isoformat(), "args": vars(args), "result": out},
            indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
