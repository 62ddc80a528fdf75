"""Per-seat GAE and the clipped-surrogate PPO update of the self-play learner."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .ppo import PPONet, legal_valid, set_cross_entropy
from .rollout import Rollout


def compute_gae(value: np.ndarray, reward: np.ndarray, done: np.ndarray, nxt: np.ndarray,
                trainable: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's own trajectory, linked by ``nxt`` (flat index or -1).

    All arrays are ``[T, B]``; ``nxt`` always points to a later row. A trainable
    decision either ends its seat's game (``done``, reward attached) or links to a
    next decision; an untrainable successor only bootstraps with its value.

    Returns:
        (advantages, returns), ``[T, B]``, zero where not trainable.
    """
    t_len, b = value.shape
    v, nx, tr = value.reshape(-1), nxt.reshape(-1), trainable.reshape(-1)
    adv = np.zeros(t_len * b, np.float32)
    for t in range(t_len - 1, -1, -1):
        s = slice(t * b, (t + 1) * b)
        n = nx[s]
        has = n >= 0
        next_v = np.where(has, v[n], 0.0)
        next_a = np.where(has & tr[n], adv[n], 0.0)
        delta = reward[t] + gamma * next_v * ~done[t] - v[s]
        adv[s] = np.where(tr[s], delta + gamma * lam * next_a * ~done[t], 0.0)
    adv = adv.reshape(t_len, b)
    return adv, np.where(trainable, adv + value, 0.0).astype(np.float32)


def ppo_update(net: PPONet, opt: torch.optim.Optimizer, batch: dict, cfg, rng,
               kl_coef: float = 0.0, distiller=None) -> dict:
    """Clipped-surrogate PPO epochs over minibatches of the learner's samples.

    Args:
        kl_coef: weight of KL(ref || policy) over the legal moves, where the batch holds
            the cloned policy's log-probabilities ``ref_logp`` (``add_ref_logp``).
        distiller: an ``agents.distill.Distiller``; each minibatch adds its ``coef`` times
            the cross-entropy of a sample of search-labelled positions.
    """
    n = len(batch["adv"])
    clipfracs, stats = [], {}
    kl_ref = distill_ce = torch.zeros(())
    for _ in range(cfg.update_epochs):
        perm = torch.from_numpy(rng.permutation(n))
        for start in range(0, n, cfg.minibatch_size):
            mb = perm[start:start + cfg.minibatch_size]
            w = int(batch["counts"][mb].max())
            valid = legal_valid(batch["counts"][mb], w)
            newlogp, entropy, newv, logp_all, live = _evaluate(
                net, batch["obs"][mb], batch["ids"][mb, :w], valid, batch["pos"][mb],
                batch["state"][mb] if "state" in batch else None, batch["logp"][mb])
            logratio = newlogp - batch["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            adv = batch["adv"][mb]
            if cfg.norm_adv and len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio,
                                -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            v_loss = _value_loss(newv, batch["ret"][mb], batch["value"][mb], cfg)
            loss = pg_loss - cfg.ent_coef * entropy.mean() + cfg.vf_coef * v_loss
            ent = entropy[live].mean() if live.any() else entropy.mean()
            if "ref_logp" in batch and kl_coef > 0:
                ref_logp = batch["ref_logp"][mb, :w]
                kl = torch.where(valid & live[:, None], ref_logp.exp() * (ref_logp - logp_all),
                                 torch.zeros_like(logp_all))
                kl_ref = kl.sum(-1).mean()
                loss = loss + kl_coef * kl_ref
            if distiller is not None and distiller.active:
                sample = distiller.sample(rng)
                if sample is not None:
                    distill_ce = set_cross_entropy(net, *sample)
                    loss = loss + distiller.cfg.coef * distill_ce
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
        if cfg.target_kl is not None and approx_kl > cfg.target_kl:
            break
    stats.update(policy_loss=pg_loss.item(), value_loss=v_loss.item(), entropy=ent.item(),
                 approx_kl=approx_kl.item(), clipfrac=float(np.mean(clipfracs)),
                 kl_ref=kl_ref.item(), distill_ce=distill_ce.item())
    return stats


def _evaluate(net: PPONet, obs, ids, valid, pos, state, old_logp):
    """A minibatch's log-probabilities of the played moves, entropies, values, the
    log-probabilities of every listed move, and the rows the trainable weights play
    (``live``, bool).

    The rows that a frozen end-game expert plays (``PPONet.frozen_rows``: in fine-tuning)
    add only constants to the loss, so the expert is not run on them: their
    log-probability is the rollout's (ratio 1), their entropy and KL terms are left out
    (0), and only their values are computed. The gradient is the same as with the expert
    run on every row; ``entropy`` in the stats is then the mean over the live rows."""
    frozen = net.frozen_rows(obs)
    if frozen is None or not frozen.any():
        _, logp, entropy, value, logp_all = net.get_action_and_value(
            obs, ids, valid, pos, state=state, with_logp_all=True)
        return logp, entropy, value, logp_all, torch.ones(len(obs), dtype=torch.bool)
    live = ~frozen
    logp, entropy = old_logp.detach().clone(), torch.zeros(len(obs))
    logp_all = torch.zeros(ids.shape)
    if live.any():
        _, logp[live], entropy[live], _, logp_all[live] = net.get_action_and_value(
            obs[live], ids[live], valid[live], pos[live], with_logp_all=True)
    value = net.value(None if net.global_critic else net.trunk(obs), state)
    return logp, entropy, value, logp_all, live


@torch.no_grad()
def add_ref_logp(batch: dict, ref: PPONet, chunk: int = 16384) -> None:
    """Store the reference policy's log-probabilities of every listed action as
    ``batch["ref_logp"]`` (once per rollout rather than once per epoch)."""
    n, w = batch["ids"].shape
    out = torch.zeros(n, w)
    for s in range(0, n, chunk):
        sl = slice(s, s + chunk)
        valid = legal_valid(batch["counts"][sl], w)
        logits = ref.policy_logits(batch["obs"][sl], batch["ids"][sl], valid)
        out[sl] = torch.log_softmax(logits, -1)
    batch["ref_logp"] = out


def _value_loss(newv, ret, oldv, cfg):
    if not cfg.clip_vloss:
        return 0.5 * ((newv - ret) ** 2).mean()
    clipped = oldv + (newv - oldv).clamp(-cfg.clip_coef, cfg.clip_coef)
    return 0.5 * torch.max((newv - ret) ** 2, (clipped - ret) ** 2).mean()


def make_batch(ro: Rollout, adv: np.ndarray, ret: np.ndarray, trainable: np.ndarray) -> dict:
    """The trainable samples as flat ``b_`` tensors."""
    idx = torch.from_numpy(np.flatnonzero(trainable.reshape(-1)))
    w = int(ro.counts.reshape(-1)[idx].max()) if len(idx) else 1
    extra = {} if ro.state is None else {"state": ro.state.reshape(-1, ro.state.shape[-1])[idx]}
    return {**extra,
        "obs": ro.obs.reshape(-1, ro.obs.shape[-1])[idx],
        "ids": ro.ids.reshape(-1, ro.ids.shape[-1])[idx, :w],
        "counts": ro.counts.reshape(-1)[idx],
        "pos": ro.pos.reshape(-1)[idx],
        "logp": ro.logp.reshape(-1)[idx],
        "value": ro.value.reshape(-1)[idx],
        "adv": torch.from_numpy(adv.reshape(-1))[idx],
        "ret": torch.from_numpy(ret.reshape(-1))[idx],
    }


def explained_variance(y_pred: torch.Tensor, y_true: torch.Tensor) -> float:
    var_y = y_true.var().item()
    return float("nan") if var_y == 0 else 1.0 - (y_true - y_pred).var().item() / var_y
