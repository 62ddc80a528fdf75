"""A probe, not part of the product: would a middle-game teacher built from the policy's
own rollouts beat the policy it would teach? The tournament with one more agent,
``ppo_roll``: where the talon holds more cards than the end-game expert's range, it deals
the unseen cards ``samples`` times (``agents.determinize``), applies each of the policy's
``top`` likeliest moves in every deal and plays every one of those games on with the main
head, greedy, on both sides (each seat reading its own observation only, so the rollouts
use no hidden card) until the talon is down to the expert's range; there the global
critic values the position (playing the expert out, with its 6 suit renamings, took 1.3 s
a move in a 20-game trial that shared the machine). It plays the move of the best mean
if that beats the policy's first choice by more than ``margin``. Elsewhere it plays as
``ppo``. One step of policy iteration by truncated Monte Carlo rollouts, the same deals
for every move.

    python checkpoints/in_progress/ppo_2p_podkidnoy/rollout_teacher/rollout_probe.py \
        --agents ppo_roll:path=checkpoints/ppo_2p_podkidnoy.pt,samples=16,top=3,\
ppo:checkpoints/ppo_2p_podkidnoy.pt --players 2 --games 2000 --seed 31

(the ``--agents`` list is one word.) If it wins clearly more than the policy alone on the
same deals, distilling its moves into the main head is worth building.
"""

import sys
from pathlib import Path

import numpy as np
import torch
from numba import njit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "critic_lookahead"))

from critic_probe import LookaheadAgent  # noqa: E402

from agents import registry  # noqa: E402
from agents.determinize import determinize_at, view_array  # noqa: E402
from agents.ppo import legal_valid  # noqa: E402
from agents.view import fast_decode  # noqa: E402
from durak_env import core, observation  # noqa: E402
from durak_env.batch import legal_width  # noqa: E402
from durak_env.observation import encode_state_at  # noqa: E402

__all__ = ["RolloutAgent", "fast_decode", "rollout_values", "view_array"]

# the tournament's spawned workers import this file again, and so register the agent too
registry.REGISTRY["ppo_roll"] = "rollout_probe:RolloutAgent"


@njit(cache=True)
def _step(st, g, prm, off, action, buf, n_legal, obs, result, log, rew):
    """Play ``action`` in game g: its next legal list and observation, or its result."""
    n, _ = core.step_at(st, g, prm, action, buf[g], log)
    n_legal[g] = n
    if n == 0:
        core.rewards_at(st, g, prm, rew)
        result[g] = rew[0]
    else:
        observation.encode_at(st, g, prm, off, st[g].to_act, obs[g])


@njit(cache=True)
def _start(st, prm, off, src, moves, buf, n_legal, obs, result):
    """Game g = s * m + j: the deal ``src[s]`` after ``moves[s // k, j]`` (m moves, k deals
    of each position)."""
    log, rew = np.empty((0, 2), np.int32), np.zeros(8, np.float64)
    m, k = moves.shape[1], src.shape[0] // moves.shape[0]
    for g in range(st.shape[0]):
        st[g] = src[g // m]
        _step(st, g, prm, off, moves[g // m // k, g % m], buf, n_legal, obs, result, log, rew)


@njit(cache=True)
def _advance(st, prm, off, live, chosen, buf, n_legal, obs, result):
    log, rew = np.empty((0, 2), np.int32), np.zeros(8, np.float64)
    for i in range(live.shape[0]):
        _step(st, live[i], prm, off, chosen[i], buf, n_legal, obs, result, log, rew)


@torch.inference_mode()
def rollout_values(agent, views, moves, k, rng):
    """Mean rollout value ``[P, m]`` of ``moves[p]`` (int64 ``[P, m]``) over ``k`` deals of
    view array p, for the seat to act there; None if a view cannot be determinized. Every
    game of every position steps together: one forward pass of the main head a step."""
    p, m = moves.shape
    one, src = core.new_state(1), core.new_state(p * k)
    one["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
    for s in range(p * k):  # determinize draws from the record's own stream
        if not determinize_at(one, 0, agent.prm, views[s // k], agent.cards):
            return None
        src[s] = one[0]
    n = p * k * m
    st = core.new_state(n)
    buf = np.zeros((n, legal_width(agent.rules)), np.int64)
    n_legal = np.zeros(n, np.int64)
    obs = np.zeros((n, observation.observation_size(agent.rules)), np.float32)
    result = np.zeros(n, np.float64)
    _start(st, agent.prm, agent.off, src, moves, buf, n_legal, obs, result)
    for _ in range(400):
        talon = st["talon_end"] - st["talon_top"]
        live = np.flatnonzero((n_legal > 0) & (talon > agent.talon))
        if not len(live):
            break
        w = int(n_legal[live].max())
        pos, *_ = agent.net.get_action_and_value(
            torch.from_numpy(obs[live]), torch.from_numpy(buf[live, :w]),
            legal_valid(torch.from_numpy(n_legal[live]), w), greedy=True)
        _advance(st, agent.prm, agent.off, live.astype(np.int64), buf[live, pos.numpy()], buf,
                 n_legal, obs, result)
    leaf = np.flatnonzero(n_legal > 0)  # handed to the end game: the critic's value
    if len(leaf):
        states = np.zeros((len(leaf), agent.width), np.float32)
        sign = np.zeros(len(leaf), np.float32)
        for i, g in enumerate(leaf):
            me = int(st[g]["to_act"])
            sign[i] = 1.0 if me == 0 else -1.0
            encode_state_at(st, g, agent.prm, agent.off, me, states[i])
        result[leaf] = agent.net.value(None, torch.from_numpy(states)).numpy() * sign
    return result.reshape(p, k, m).mean(1)


class RolloutAgent(LookaheadAgent):
    """``critic_probe``'s agent (where it looks, how it picks) with rollouts for values."""

    name = "ppo_roll"

    def _values(self, view, moves, rng):
        q = rollout_values(self, [view], np.asarray([moves], np.int64), self.samples, rng)
        return None if q is None else q[0]


if __name__ == "__main__":
    from agents.tournament.cli import main

    main(sys.argv[1:])
