"""Imitation before PPO: clone ``expert`` (its rules in numba, its exact searches where
they apply) over positions played out in the numba ``VectorEnv``.

``generate_positions`` lets the teacher play every seat of ``num_envs`` games (with a
random move now and then, so that the data also covers positions the teacher would
not reach), labelling every decision; ``clone`` fits the policy to the labels by
masked cross-entropy over the legal actions and the value head to the outcome of the
game for the acting seat, and reports the agreement with the teacher on held-out games.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from durak_env import Rules
from durak_env.batch import legal_width
from durak_env.symmetry import SuitSymmetry
from durak_env.vector import VectorEnv

from .ppo import PPONet, legal_lists, legal_valid
from .selfplay import ExpertRulesPlayer
from .teacher import SearchLabeler


@dataclass
class ImitationConfig:
    """The cloning stage that runs before PPO (``positions: 0`` skips it)."""

    positions: int = 0
    """Teacher decisions to generate and clone (0: no imitation stage)."""
    search: bool = True
    """Label with ``expert``'s exact searches where they apply (two players; ``search``
    section); elsewhere, and with more players, ``expert_rules`` labels."""
    explore: float = 0.1
    """Chance that a decision of the data games is played at random (still labelled)."""
    num_envs: int = 256
    """Games generated side by side."""
    epochs: int = 6
    """Passes over the training positions."""
    lr: float = 1e-3
    """Adam learning rate of the cloning stage (annealed to 0)."""
    minibatch_size: int = 1024
    """Positions per gradient step."""
    holdout: float = 0.05
    """Share of the games kept out of training to measure the agreement."""
    vf_coef: float = 0.5
    """Weight of the value loss (fit to the outcome for the acting seat)."""
    augment: bool = False
    """Show every minibatch under random suit renamings (``durak_env.symmetry``): each
    labelled position is seen in up to 24 equivalent guises."""


@dataclass
class Positions:
    """Labelled decisions: ``ids``/``counts`` are the legal lists, ``label`` the teacher's
    position in them, ``ret`` the game's outcome for the acting seat, ``game`` a game id."""

    obs: np.ndarray
    state: np.ndarray | None
    ids: np.ndarray
    counts: np.ndarray
    label: np.ndarray
    searched: np.ndarray
    ret: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return len(self.label)


def generate_positions(rules: Rules, n: int, cfg: ImitationConfig, labeler: SearchLabeler | None,
                       seed: int, with_state: bool, num_threads: int | None = None,
                       progress: bool = True) -> Positions:
    """Play teacher games until ``n`` finished decisions are labelled."""
    from tqdm import tqdm

    b = cfg.num_envs
    venv = VectorEnv(rules, b, seed=seed, num_threads=num_threads, copy=False)
    obs, info = venv.reset(seed=seed)
    teacher, rng = ExpertRulesPlayer(venv), np.random.default_rng(seed)
    rows_all = np.arange(b)
    store: dict[str, list] = {k: [] for k in ("obs", "state", "ids", "counts", "label",
                                              "searched", "seat", "env", "game")}
    game_no = np.zeros(b, np.int64)
    width = legal_width(rules)
    decisions = np.zeros(b, np.int64)  # stored decisions of each env's current game
    outcome: dict[tuple[int, int], np.ndarray] = {}
    done = 0
    bar = tqdm(total=n, unit="pos", unit_scale=True, disable=not progress, desc="imitation data")
    while done < n:
        mask, to_act = info["action_mask"], info["to_act"]
        ids, counts = legal_lists(mask)
        label = teacher.act(obs, mask, ids, counts, rows_all, rng)
        searched = np.zeros(b, np.bool_)
        if labeler is not None and labeler.active:
            cand = np.flatnonzero(labeler.candidates(obs))
            found = labeler.label_rows(obs, ids, counts, label, cand)
            hit = found >= 0
            label[cand[hit]], searched[cand[hit]] = found[hit], True
        _store(store, obs, venv.state() if with_state else None, ids, counts, label, searched,
               to_act, game_no, width)
        decisions += 1
        play = label.copy()
        wild = rng.random(b) < cfg.explore
        play[wild] = ids[wild, (rng.random(int(wild.sum())) * counts[wild]).astype(np.int64)]
        obs, rew, term, _, info = venv.step(play)
        for g in np.flatnonzero(term):
            outcome[(int(g), int(game_no[g]))] = rew[g].copy()
            game_no[g] += 1
            done += int(decisions[g])
            decisions[g] = 0
        bar.update(min(done, n) - bar.n)
    bar.close()
    return _finish(store, outcome, b)


def _store(store, obs, state, ids, counts, label, searched, to_act, game_no, width):
    b = len(label)
    w = ids.shape[1]
    pad = np.zeros((b, width), np.int16)  # width: legal_width, no legal list is wider
    pad[:, :w] = ids
    pos = np.argmax(ids == label[:, None], axis=1)
    store["obs"].append(obs.copy())
    store["state"].append(state)
    store["ids"].append(pad)
    store["counts"].append(counts.astype(np.int16))
    store["label"].append(pos.astype(np.int16))
    store["searched"].append(searched)
    store["seat"].append(to_act.astype(np.int8))
    store["env"].append(np.arange(b, dtype=np.int32))
    store["game"].append(game_no.copy())


def _finish(store, outcome, b) -> Positions:
    env = np.concatenate(store["env"])
    game = np.concatenate(store["game"])
    seat = np.concatenate(store["seat"]).astype(np.int64)
    keep = np.array([(int(e), int(k)) in outcome for e, k in zip(env, game, strict=True)])
    ret = np.array([outcome[(int(e), int(k))][s] if ok else 0.0
                    for e, k, s, ok in zip(env, game, seat, keep, strict=True)], np.float32)
    state = None if store["state"][0] is None else np.concatenate(store["state"])[keep]
    return Positions(
        obs=np.concatenate(store["obs"])[keep], state=state,
        ids=np.concatenate(store["ids"])[keep].astype(np.int64),
        counts=np.concatenate(store["counts"])[keep].astype(np.int64),
        label=np.concatenate(store["label"])[keep].astype(np.int64),
        searched=np.concatenate(store["searched"])[keep], ret=ret[keep],
        game=(env * 1_000_000 + game)[keep])


def masked_ce(net: PPONet, obs, ids, counts, label, state=None):
    """Cross-entropy of ``label`` (positions in the legal lists), the values and the
    legal logits of a batch."""
    w = int(counts.max())
    valid = legal_valid(counts, w)
    hidden = net.trunk(obs)
    logits = net.policy_logits(obs, ids[:, :w], valid, hidden)
    ce = nn.functional.cross_entropy(logits, label)
    return ce, net.value(hidden, state), logits


def split_holdout(data: Positions, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Train and held-out row indices, split by game so no game is on both sides."""
    games = np.unique(data.game)
    rng = np.random.default_rng(seed)
    held = set(rng.choice(games, size=max(1, int(round(share * len(games)))),
                          replace=False).tolist())
    is_held = np.array([g in held for g in data.game])
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


@torch.no_grad()
def agreement(net: PPONet, data: Positions, rows: np.ndarray, batch: int = 8192) -> dict:
    """Share of ``rows`` where the policy's most likely move is the teacher's, overall and
    on the searched positions, with the chance level (a uniform pick) for reference."""
    hit = np.zeros(len(rows), np.bool_)
    for s in range(0, len(rows), batch):
        r = rows[s:s + batch]
        obs, ids, counts, label, st, _ = _tensors(data, r)
        _, _, logits = masked_ce(net, obs, ids, counts, label, st)
        hit[s:s + batch] = logits.argmax(1).numpy() == data.label[r]
    srch = data.searched[rows]
    return {"agreement": float(hit.mean()),
            "agreement_searched": float(hit[srch].mean()) if srch.any() else float("nan"),
            "chance": float(np.mean(1.0 / data.counts[rows])),
            "positions": int(len(rows)), "searched": int(srch.sum())}


def _tensors(data: Positions, rows: np.ndarray, sym: SuitSymmetry | None = None,
             rng: np.random.Generator | None = None):
    """The rows as tensors; with ``sym``, each row under a random suit renaming."""
    obs, ids, st = data.obs[rows], data.ids[rows], data.state
    st = None if st is None else st[rows]
    if sym is not None:
        obs, ids, st = sym.rename(rng, obs, ids, st)
    return (torch.from_numpy(obs), torch.from_numpy(ids),
            torch.from_numpy(data.counts[rows]), torch.from_numpy(data.label[rows]),
            None if st is None else torch.from_numpy(st), torch.from_numpy(data.ret[rows]))


def clone(net: PPONet, data: Positions, cfg: ImitationConfig, seed: int,
          progress: bool = True, log=None) -> dict:
    """Fit the policy to the teacher's labels and the value to the outcomes; returns the
    held-out agreement (``agreement``) and the losses of the last epoch."""
    from tqdm import tqdm

    train_rows, held = split_holdout(data, cfg.holdout, seed)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    rng = np.random.default_rng(seed)
    sym = SuitSymmetry(net.rules) if cfg.augment else None
    steps = cfg.epochs * max(1, -(-len(train_rows) // cfg.minibatch_size))
    bar = tqdm(total=steps, unit="step", disable=not progress, desc="imitation")
    net.train()
    step, t0, hist = 0, time.perf_counter(), []
    for epoch in range(cfg.epochs):
        perm = rng.permutation(train_rows)
        for s in range(0, len(perm), cfg.minibatch_size):
            opt.param_groups[0]["lr"] = cfg.lr * (1.0 - step / steps)
            obs, ids, counts, label, st, ret = _tensors(data, perm[s:s + cfg.minibatch_size],
                                                          sym, rng)
            ce, value, _ = masked_ce(net, obs, ids, counts, label, st)
            v_loss = 0.5 * ((value - ret) ** 2).mean()
            loss = ce + cfg.vf_coef * v_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            step += 1
            bar.update(1)
        net.eval()
        rep = agreement(net, data, held)
        net.train()
        rep.update(epoch=epoch + 1, ce=ce.item(), value_loss=v_loss.item(),
                   seconds=time.perf_counter() - t0)
        hist.append(rep)
        if log is not None:
            log(rep)
        bar.set_postfix(agree=f"{rep['agreement']:.3f}", refresh=False)
    bar.close()
    net.eval()
    return {**hist[-1], "history": hist, "train_positions": int(len(train_rows))}
