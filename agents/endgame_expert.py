"""The end-game stage: a second policy head that plays the end game as the solver does.

With two players, once every card is placed (talon empty, or only the face-up trump
left) the position is fully known and ``agents.endgame`` solves it exactly; ``expert``
plays those positions with the solver, and that is most of its edge over the policy.
Fitting the whole network to solved end games teaches the end game but moves the rest
of the policy (``scripts/endgame_study.py``). So the network gets an end-game expert
(``network.endgame_talon``, ``agents.ppo.EndgameExpert``): its own trunk and head, chosen
by the observation alone, started as a copy of the main ones and fitted here while the
main ones stay as they are. At play time it is still the policy alone: no search.

The stage (``endgame`` config section, run by ``train.py`` after PPO, or by
``python -m agents.endgame_expert`` on a finished checkpoint):

1. plays ``games`` games of the sampled policy against ``opponent`` in the vector env and
   keeps every decision, of both seats, that the expert plays and that has a choice;
2. solves every legal move of each (``EndgameSolver.root_values``, in ``workers``
   processes); the best moves are the label, and a position where the best is not
   proven (a move past the node cap and no proven win) is dropped;
3. fits the expert to minus the log of the probability of the best moves
   (``distill.target: set``'s loss), suit renamings at random with ``augment``, and
   reports the held-out blunder rate (greedy move not among the best) before and after.

With ``rounds`` > 1 each later round plays its games with the expert fitted so far, so
that it also learns the positions its own play leads to (DAgger), and fits on all the
positions so far. ``--refit`` runs more rounds on a checkpoint whose expert is fitted
already, starting from that expert; with a larger ``network.endgame_talon`` (up to
``search.pimc_talon``) it also takes over the positions with 2 or 3 talon cards, labelled
by the sampled search (the best total over ``endgame.pimc_samples`` deals, or
``search.pimc_samples`` if that is 0). ``--data``
reads back the positions an earlier run wrote with ``--save-data`` and fits on them too.
``--replace`` fits a new expert in place of a fitted one, e.g. a wider one
(``network.endgame_hidden``, which starts from fresh weights instead of a copy).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from durak_env import Rules, observation_size
from durak_env.atomic import write_text
from durak_env.symmetry import SuitSymmetry

from .ppo import PLAY_SETTINGS, PPONet, legal_valid, set_cross_entropy
from .ppo_config import EndgameConfig
from .selfplay import play_against
from .teacher import SearchConfig, SearchLabeler

# ---------------------------------------------------------------- positions


def collect(net: PPONet, rules: Rules, cfg: EndgameConfig, seed: int,
            num_threads: int | None = None, bar=None) -> dict:
    """The decisions with a choice that the expert plays (with at most
    ``cfg.collect_talon`` talon cards, if set, and at least ``cfg.collect_min_talon``),
    of both seats, in ``cfg.games`` games of the sampled policy against ``cfg.opponent``
    (``play_against``).

    Returns a dict of ``obs`` float32[N, obs], ``ids`` int64[N, W] (legal lists),
    ``counts`` int64[N] and ``game`` int64[N].
    """
    out: dict[str, list] = {"obs": [], "ids": [], "counts": [], "game": []}

    def keep(obs, ids, counts, rows, actions):
        wanted = (counts[rows] > 1) & net.endgame.plays(obs[rows], cfg.collect_talon)
        if cfg.collect_min_talon > 0:
            wanted &= ~net.endgame.plays(obs[rows], cfg.collect_min_talon - 1)
        rows = rows[wanted]
        out["obs"].append(obs[rows].copy())
        out["ids"].append([ids[g, : counts[g]].copy() for g in rows])
        out["counts"].append(counts[rows])
        out["game"].append(rows)

    play_against(net, rules, cfg.opponent, cfg.games, seed, greedy=False,
                 num_threads=num_threads, on_decision=keep, both_seats=True, bar=bar)
    counts = np.concatenate(out["counts"]) if out["counts"] else np.zeros(0, np.int64)
    width = int(counts.max()) if len(counts) else 1
    ids = np.zeros((len(counts), width), np.int64)
    for i, legal in enumerate(x for step in out["ids"] for x in step):
        ids[i, : len(legal)] = legal
    return {"obs": np.concatenate(out["obs"]) if out["obs"] else
            np.zeros((0, observation_size(rules)), np.float32),
            "ids": ids, "counts": counts.astype(np.int64),
            "game": np.concatenate(out["game"]).astype(np.int64) if out["game"]
            else np.zeros(0, np.int64)}


def _label_chunk(job) -> tuple[np.ndarray, np.ndarray]:
    """Best-move masks of a chunk of positions (run in a worker process)."""
    rules_dict, search, seed, obs, ids, counts = job
    labeler = _labeler(Rules.from_dict(rules_dict), SearchConfig(**search))
    labeler.rng = np.random.default_rng(seed)  # the sampled deals depend on the chunk only
    good = np.zeros(ids.shape, np.bool_)
    kept = np.zeros(len(obs), np.bool_)
    for i in range(len(obs)):
        best = labeler.label_set(obs[i], ids[i, : counts[i]].tolist())
        if best is not None:
            good[i, : counts[i]] = best
            kept[i] = True
    return good, kept


_LABELERS: dict = {}


def _labeler(rules: Rules, search: SearchConfig) -> SearchLabeler:
    """One labeler per worker process (the solver's transposition table is kept across
    chunks: its entries are exact values of full positions, valid in any game)."""
    key = (rules, tuple(vars(search).values()))
    if key not in _LABELERS:
        _LABELERS[key] = SearchLabeler(rules, search)
    return _LABELERS[key]


def label(data: dict, rules: Rules, search: SearchConfig, workers: int, seed: int = 0,
          bar=None, chunk: int = 256) -> dict:
    """``data`` with ``good`` (bool[N, W], the best moves by ``SearchLabeler.label_set``:
    every legal move solved once every card is placed, the best total over sampled deals
    with 2 to ``search.pimc_talon`` talon cards), without the positions it leaves
    unlabelled (no proven best move within the node cap), in the order of their games:
    each game's positions follow each other, so the solver's table holds what the searches
    of its earlier positions proved when it comes to the later ones."""
    order = np.argsort(data["game"], kind="stable")
    data = {k: v[order] for k, v in data.items()}
    n = len(data["obs"])
    jobs = [(rules.to_dict(), vars(search), seed + s, data["obs"][s:s + chunk],
             data["ids"][s:s + chunk], data["counts"][s:s + chunk])
            for s in range(0, n, chunk)]
    results = []
    if workers > 1 and len(jobs) > 1:
        with mp.get_context("fork").Pool(workers) as pool:
            for res in pool.imap(_label_chunk, jobs):
                results.append(res)
                if bar is not None:
                    bar.update(len(res[1]))
    else:
        for job in jobs:
            results.append(_label_chunk(job))
            if bar is not None:
                bar.update(len(results[-1][1]))
    good = (np.concatenate([r[0] for r in results]) if results
            else np.zeros(data["ids"].shape, np.bool_))
    kept = np.concatenate([r[1] for r in results]) if results else np.zeros(0, np.bool_)
    out = {k: v[kept] for k, v in data.items()}
    out["good"] = good[kept]
    return out


POSITION_KEYS = ("obs", "ids", "counts", "game", "good")


def load_positions(path: str | Path, net: PPONet) -> dict:
    """Labelled positions written by ``--save-data`` (an earlier run, for the same rules),
    keeping those that ``net``'s expert plays.

    Raises:
        FileNotFoundError: no such file.
        ValueError: not such a file, or positions of other rules or another observation
            layout (width of the observation, action ids out of range).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        with np.load(path) as f:
            data = {k: f[k] for k in f.files}
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a file of labelled positions ({e})") from None
    missing = [k for k in POSITION_KEYS if k not in data]
    if missing:
        raise ValueError(f"{path}: not a file of labelled positions (no {', '.join(missing)}; "
                         f"--save-data writes them)")
    n, width = len(data["obs"]), observation_size(net.rules)
    if data["obs"].ndim != 2 or data["obs"].shape[1] != width:
        raise ValueError(f"{path}: observations of width {data['obs'].shape[1:]}, and these "
                         f"rules and layout have {width}: positions of other rules or "
                         f"another observation layout")
    if (data["ids"].shape != data["good"].shape or len(data["ids"]) != n
            or any(len(data[k]) != n for k in ("counts", "game"))):
        raise ValueError(f"{path}: its arrays do not fit together")
    legal = np.arange(data["ids"].shape[1])[None, :] < data["counts"][:, None]
    if (data["ids"][legal] >= net.layout.n).any() or (data["good"] & ~legal).any() or not (
            data["good"].any(1)).all():
        raise ValueError(f"{path}: action ids or labels out of range for these rules")
    # which positions were held out, so that a later fit holds out the same ones; files
    # written before the split was saved have none (-1: drawn anew by the fit that reads them)
    held = data.get("held", np.full(n, -1, np.int8))
    if held.shape != (n,) or not np.isin(held, (-1, 0, 1)).all():
        raise ValueError(f"{path}: its held-out flags do not fit its positions")
    keep = net.endgame.plays(data["obs"])
    return {**{k: data[k][keep] for k in POSITION_KEYS}, "held": held[keep].astype(np.int8)}


def save_positions(path: str | Path, data: dict) -> None:
    """Write labelled positions (what ``load_positions`` reads) to ``path`` whole: into a
    file beside it first, then renamed, so a run killed while writing keeps the last file."""
    path = Path(path)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, **data)
    tmp.replace(path)


def renumbered(data: dict, start: int) -> dict:
    """``data`` with its game ids moved to begin at ``start`` (each run numbers from 0,
    and the held-out split goes by game)."""
    if not len(data["game"]):
        return data
    return dict(data, game=data["game"] - data["game"].min() + start)


def merge(a: dict | None, b: dict) -> dict:
    """Positions of ``a`` and ``b`` in one set (legal lists padded to the wider)."""
    if a is None:
        return b
    w = max(a["ids"].shape[1], b["ids"].shape[1])

    def pad(x):
        return np.pad(x, ((0, 0), (0, w - x.shape[1])))

    return {k: np.concatenate([pad(a[k]), pad(b[k])] if k in ("ids", "good")
                              else [a[k], b[k]]) for k in a}


# ---------------------------------------------------------------- fitting


def _batch(data: dict, rows: np.ndarray, sym=None, rng=None):
    obs, ids = data["obs"][rows], data["ids"][rows]
    if sym is not None:
        obs, ids, _ = sym.rename(rng, obs, ids)
    return tuple(torch.from_numpy(np.ascontiguousarray(a))
                 for a in (obs, ids, data["counts"][rows], data["good"][rows]))


@torch.no_grad()
def log_probs(net: PPONet, data: dict, rows: np.ndarray, batch: int = 8192) -> torch.Tensor:
    """The policy's log-probabilities over the legal lists of ``rows`` ``[N, W]``, as it
    plays (in eval mode: the end-game expert averaged over its suit renamings)."""
    net.eval()
    out = []
    for s in range(0, len(rows), batch):
        obs, ids, counts, _ = _batch(data, rows[s:s + batch])
        out.append(torch.log_softmax(
            net.policy_logits(obs, ids, legal_valid(counts, ids.shape[1])), 1))
    return torch.cat(out) if out else torch.zeros((0, data["ids"].shape[1]))


def blunders(logp: torch.Tensor, good: np.ndarray) -> np.ndarray:
    """Bool per row: the most likely move is not among the best (``good``)."""
    pick = logp.argmax(1).numpy()
    return ~good[np.arange(len(pick)), pick]


def blunder_rate(net: PPONet, data: dict, rows: np.ndarray) -> float:
    """Share of ``rows`` where the policy's greedy move is not one of the best."""
    if not len(rows):
        return float("nan")
    return float(blunders(log_probs(net, data, rows), data["good"][rows]).mean())


def fit(net: PPONet, data: dict, rows: np.ndarray, held: np.ndarray, cfg: EndgameConfig,
        seed: int, log=None) -> list[float]:
    """Fit the expert's parameters (only) to the best moves of ``rows``; the held-out
    blunder rate after each epoch."""
    params = list(net.endgame.parameters())
    opt = torch.optim.Adam(params, lr=cfg.lr)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    sym = SuitSymmetry(net.rules) if cfg.augment else None
    curve = []
    steps = cfg.epochs * -(-len(rows) // cfg.minibatch_size)
    step = 0
    for epoch in range(cfg.epochs):
        net.train()
        perm = rng.permutation(rows)
        total = 0.0
        for s in range(0, len(perm), cfg.minibatch_size):
            if cfg.anneal_lr:
                opt.param_groups[0]["lr"] = cfg.lr * (1.0 - step / steps)
                step += 1
            loss = set_cross_entropy(net, *_batch(data, perm[s:s + cfg.minibatch_size], sym, rng))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 0.5)
            opt.step()
            total += float(loss.detach()) * len(perm[s:s + cfg.minibatch_size])
        curve.append(blunder_rate(net, data, held))
        if log is not None:
            log(epoch, total / max(len(perm), 1), curve[-1])
    net.eval()
    return curve


def blunders_by_talon(net: PPONet, data: dict, rows: np.ndarray) -> dict[str, float]:
    """``blunder_rate`` of ``rows`` for each talon size the expert plays (keys are strings,
    as in the JSON report)."""
    talon = np.rint(net.endgame.talon_sizes(data["obs"][rows])).astype(np.int64)
    return {str(t): blunder_rate(net, data, rows[talon == t]) for t in np.unique(talon)}


def run_stage(net: PPONet, cfg: EndgameConfig, search: SearchConfig, seed: int,
              num_threads: int | None = None, progress: bool = True, log=None,
              save_data: str | Path | None = None, start: bool = True,
              prior: dict | None = None, done: dict | None = None,
              on_round=None) -> dict:
    """Collect, label and fit ``cfg.rounds`` times; the expert is started first (a copy
    of the main head; an expert of its own shape keeps its fresh weights and starts
    after the first round's games, which the main head plays), or with ``start=False``
    goes on from its fitted weights. Returns the report (positions, blunder rates, overall
    and by talon size, seconds).
    ``save_data``: also write the labelled positions so far there (``.npz``) each round.
    ``prior``: labelled positions of earlier runs (``load_positions``), fitted on with
    each round's; those the earlier fit held out stay held out, and those of files without
    the split (``held`` -1) are held out by their own games at the same rate.
    ``on_round(report, data)``: called after each round with the report so far and the
    positions so far; passing both back as ``done`` (``{"report": ..., "data": ...}``,
    with the expert's weights of that moment) continues the stage after that round."""
    from tqdm import tqdm

    if net.endgame is None:
        raise ValueError("the end-game stage needs network.endgame_talon (an end-game expert)")
    if net.rules.num_players != 2:
        raise ValueError("the end-game stage needs two players (the exact solver)")
    if not start and not net.endgame.active:
        raise ValueError("start=False goes on from a fitted expert, and this one is not")
    if cfg.pimc_samples:
        search = replace(search, pimc_samples=cfg.pimc_samples)
    if cfg.solver_nodes:
        search = replace(search, endgame_nodes=cfg.solver_nodes)
    t0 = time.perf_counter()
    data, rounds, games_total = None, [], cfg.games * cfg.rounds
    if prior is not None and len(prior["obs"]):  # their games follow this run's
        data = renumbered(prior, games_total)
        games_total = int(data["game"].max()) + 1
    split = np.random.default_rng(seed).random(games_total) < cfg.holdout
    redrawn, spent = 0, 0.0
    if done is not None:
        if not net.endgame.active:
            raise ValueError("continuing the stage needs the expert fitted by its rounds")
        rep = done["report"]
        rounds, redrawn, spent = list(rep["rounds"]), rep["prior_split_redrawn"], rep["seconds"]
        data, start = done["data"], False
    elif data is not None:  # earlier positions stay held out (or not) as their fit had them
        unknown = data["held"] < 0
        redrawn = int(unknown.sum())
        data["held"] = np.where(unknown, split[data["game"]], data["held"]).astype(np.int8)
    if start and net.endgame.copies_main:
        net.endgame.start()

    def report():
        return {"rounds": rounds, "seconds": spent + time.perf_counter() - t0,
                "prior_positions": 0 if prior is None else int(len(prior["obs"])),
                "prior_split_redrawn": redrawn,
                "blunders_before": rounds[0]["blunders_before"],
                "blunders_after": rounds[-1]["blunders_after"]}

    for r in range(len(rounds), cfg.rounds):
        t1 = time.perf_counter()
        with tqdm(total=cfg.games, unit="game", disable=not progress,
                  desc=f"end game {r + 1}/{cfg.rounds}: play") as bar:
            new = collect(net, net.rules, cfg, seed + 1000 * r, num_threads, bar)
        if start and not net.endgame.active:  # a fresh expert: the main head played
            net.endgame.start()
        new["game"] += r * cfg.games
        new["held"] = split[new["game"]].astype(np.int8)
        t2 = time.perf_counter()
        with tqdm(total=len(new["obs"]), unit="pos", disable=not progress,
                  desc=f"end game {r + 1}/{cfg.rounds}: solve") as bar:
            new = label(new, net.rules, search, cfg.workers, seed + 1000 * r, bar)
        t3 = time.perf_counter()
        data = merge(data, new)
        if save_data is not None:
            save_positions(save_data, data)
        games = np.unique(data["game"])
        held, train = np.flatnonzero(data["held"] == 1), np.flatnonzero(data["held"] == 0)
        informative = data["good"].sum(1) < data["counts"]
        before = blunder_rate(net, data, held)
        by_talon_before = blunders_by_talon(net, data, held)
        curve = fit(net, data, train[informative[train]], held, cfg, seed + r, log)
        by_talon_after = blunders_by_talon(net, data, held)
        rounds.append({"games": cfg.games, "new_positions": int(len(new["obs"])),
                       "positions": int(len(data["obs"])), "games_with_positions": int(len(games)),
                       "held_out": int(len(held)), "informative": float(informative.mean()),
                       "blunders_before": before, "blunders_after": curve[-1], "curve": curve,
                       "talon": net.endgame.talon,
                       "by_talon": {t: [b, by_talon_after[t]]
                                    for t, b in by_talon_before.items()},
                       "play_seconds": t2 - t1, "solve_seconds": t3 - t2,
                       "fit_seconds": time.perf_counter() - t3})
        if on_round is not None:
            on_round(report(), data)
    return report()


def write_report(path: Path, rep: dict) -> None:
    write_text(path, json.dumps(rep, indent=2) + "\n")


# ---------------------------------------------------------------- on a finished checkpoint


def main(argv=None) -> int:
    """``python -m agents.endgame_expert CHECKPOINT --config CONFIG --out OUT``: run the
    end-game stage of ``CONFIG`` (its ``endgame`` section and ``network.endgame_talon``)
    on a checkpoint trained without it, as ``train.py`` runs it after PPO."""
    import argparse
    import sys

    from .ppo import NetworkConfig, load_checkpoint, save_checkpoint
    from .ppo_config import ConfigError, load_config
    from .results import provenance

    ap = argparse.ArgumentParser(prog="python -m agents.endgame_expert",
                                 description=main.__doc__.split(":")[0].strip("`"))
    ap.add_argument("checkpoint")
    ap.add_argument("--config", required=True, help="the config with the endgame section")
    ap.add_argument("--out", required=True, help="where to write the checkpoint with the expert")
    ap.add_argument("overrides", nargs="*", metavar="key=value")
    ap.add_argument("--save-data", metavar="NPZ",
                    help="also write the labelled positions (obs, ids, counts, good, game, "
                         "held)")
    ap.add_argument("--data", action="append", default=[], metavar="NPZ",
                    help="labelled positions of an earlier run (its --save-data) to fit on "
                         "as well; those of talons the expert does not play are left out "
                         "(repeatable)")
    ap.add_argument("--refit", action="store_true",
                    help="go on from the checkpoint's fitted expert (more rounds; a larger "
                         "network.endgame_talon lets it play more of the game)")
    ap.add_argument("--replace", action="store_true",
                    help="fit a new expert in place of the checkpoint's fitted one (for "
                         "instance of another shape, network.endgame_hidden)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_intermixed_args(argv)
    try:
        cfg = load_config(args.config, args.overrides)
        if cfg.endgame.games == 0:
            raise ConfigError("endgame.games is 0: no end-game stage to run")
        old, data = load_checkpoint(args.checkpoint, cfg.rules)
    except (ConfigError, FileNotFoundError, ValueError) as e:
        print(f"endgame_expert: error: {e}", file=sys.stderr)
        return 2
    fitted = old.endgame is not None and old.endgame.active
    if args.refit and args.replace:
        print("endgame_expert: error: --refit goes on from the fitted expert and --replace "
              "fits a new one: give one of them", file=sys.stderr)
        return 2
    if fitted and not (args.refit or args.replace):
        print(f"endgame_expert: error: {args.checkpoint} already has a fitted end-game expert "
              f"(--refit goes on from it, --replace fits a new one)", file=sys.stderr)
        return 2
    for key in ("endgame_hidden", "endgame_pack_ranks"):  # what the fitted weights mean
        if args.refit and getattr(cfg.network, key) != getattr(old.cfg, key):
            print(f"endgame_expert: error: --refit goes on from the fitted expert, of "
                  f"network.{key}={getattr(old.cfg, key)}, and the config asks for "
                  f"{getattr(cfg.network, key)} (--replace fits a new one)", file=sys.stderr)
            return 2
    if args.refit and not fitted:
        print(f"endgame_expert: error: --refit needs a fitted end-game expert, and "
              f"{args.checkpoint} has none", file=sys.stderr)
        return 2
    if args.refit and cfg.network.endgame_talon < old.endgame.talon:
        print(f"endgame_expert: error: --refit with network.endgame_talon="
              f"{cfg.network.endgame_talon} would stop the expert playing the talons up to "
              f"{old.endgame.talon} it was fitted for", file=sys.stderr)
        return 2
    own = ("endgame_talon", "endgame_hidden", "endgame_pack_ranks",
           *PLAY_SETTINGS)  # the stage may change them
    want = dict(vars(old.cfg), **{k: getattr(cfg.network, k) for k in own})
    if {k: v for k, v in want.items() if k not in own} != {
            k: v for k, v in vars(cfg.network).items() if k not in own}:
        print("endgame_expert: error: the config's network section differs from the "
              "checkpoint's (other than the end-game expert's endgame_*)", file=sys.stderr)
        return 2
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)  # a fresh expert (endgame_hidden) starts from seeded weights
    net = PPONet(cfg.rules, NetworkConfig(**want))
    weights = {k: v for k, v in old.state_dict().items()
               if not (args.replace and k.startswith("endgame."))}
    missing, unexpected = net.load_state_dict(weights, strict=False)
    if unexpected or any(not k.startswith("endgame.") for k in missing) or (
            args.refit and missing):
        raise RuntimeError(f"weights do not fit: missing {missing}, unexpected {unexpected}")

    def log(epoch, loss, blunders):
        print(f"epoch {epoch + 1}: loss {loss:.4f}, held-out blunders {blunders:.2%}", flush=True)

    prior = None
    try:
        for path in args.data:
            start = int(prior["game"].max()) + 1 if prior is not None and len(prior["game"]) else 0
            prior = merge(prior, renumbered(load_positions(path, net), start))
    except (FileNotFoundError, ValueError) as e:
        print(f"endgame_expert: error: {e}", file=sys.stderr)
        return 2
    made_by = provenance(argv, "agents.endgame_expert")  # the code the stage starts with
    rep = run_stage(net, cfg.endgame, cfg.search, cfg.seed, cfg.env.num_threads,
                    progress=not args.no_progress, log=log, save_data=args.save_data,
                    start=not args.refit, prior=prior)
    rep["replaced"] = args.replace  # a fresh expert: no earlier fit trained it
    rep.update(made_by)
    if args.refit:  # the earlier fits stay on the record, oldest first
        rep["previous"] = [*data["endgame"].pop("previous", []), data["endgame"]] \
            if data.get("endgame") else []
    extra = {k: v for k, v in data.items() if k not in (
        "format", "model", "optimizer", "network", "rules", "layout_version", "obs_size",
        "num_actions", "config")}
    extra["endgame"] = rep
    if "provenance" in extra:  # a shipped checkpoint: this command trained it too
        extra["provenance"] = {"commands": [*extra["provenance"]["commands"], rep["command"]],
                               "commit": rep["commit"] or "unknown"}
    config = dict(data.get("config") or {}, network=vars(net.cfg).copy(),
                  endgame=vars(cfg.endgame).copy())
    save_checkpoint(args.out, net, None, config, extra)
    print(f"end game: {rep['rounds'][-1]['positions']:,} solved positions; held-out blunders "
          f"{rep['blunders_before']:.2%} -> {rep['blunders_after']:.2%} in "
          f"{rep['seconds']:.0f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
