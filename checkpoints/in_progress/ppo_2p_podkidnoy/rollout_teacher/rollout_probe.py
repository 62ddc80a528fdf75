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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agents import registry  # noqa: E402
from agents.determinize import determinize_at, view_array  # noqa: E402
from agents.ppo import PPOAgent, legal_valid  # noqa: E402
from agents.view import fast_decode  # noqa: E402
from durak_env import core, observation  # noqa: E402
from durak_env.batch import legal_width  # noqa: E402
from durak_env.cards import NUM_CARDS  # noqa: E402
from durak_env.observation import encode_state_at, obs_offsets, state_size  # noqa: E402

# the tournament's spawned workers import this file again, and so register the agent too
registry.REGISTRY["ppo_roll"] = "rollout_probe:RolloutAgent"


@njit(cache=True)
def _start(st, prm, off, src, actions, buf, n_legal, obs, result):
    """Game g = i * m + j: deal i (``src[i]``) after move j; its legal list or result."""
    log = np.empty((0, 2), np.int32)
    rew = np.zeros(8, np.float64)
    m = actions.shape[0]
    for g in range(st.shape[0]):
        st[g] = src[g // m]
        n, _ = core.step_at(st, g, prm, actions[g % m], buf[g], log)
        n_legal[g] = n
        if n == 0:
            core.rewards_at(st, g, prm, rew)
            result[g] = rew[0]
        else:
            observation.encode_at(st, g, prm, off, st[g].to_act, obs[g])


@njit(cache=True)
def _advance(st, prm, off, live, chosen, buf, n_legal, obs, result):
    log = np.empty((0, 2), np.int32)
    rew = np.zeros(8, np.float64)
    for i in range(live.shape[0]):
        g = live[i]
        n, _ = core.step_at(st, g, prm, chosen[i], buf[g], log)
        n_legal[g] = n
        if n == 0:
            core.rewards_at(st, g, prm, rew)
            result[g] = rew[0]
        else:
            observation.encode_at(st, g, prm, off, st[g].to_act, obs[g])


class RolloutAgent(PPOAgent):
    name = "ppo_roll"

    def __init__(self, rules=None, *, path: str = "", greedy: bool = True,
                 samples: int = 16, top: int = 3, margin: float = 0.0):
        super().__init__(rules, path=path, greedy=greedy)
        self.samples, self.top, self.margin = int(samples), int(top), float(margin)
        self.prm = core.kernel_params(self.rules)
        self.off = obs_offsets(self.rules)
        self.cards = np.zeros(NUM_CARDS, np.int64)
        self.width = legal_width(self.rules)
        self.talon = self.net.cfg.endgame_talon if self.net.endgame is not None else -1
        self.state_width = state_size(self.rules)
        if not self.net.global_critic:
            raise ValueError("ppo_roll needs a checkpoint with a global critic")
        self.looked = self.changed = 0

    def act(self, observation, action_mask, rng=None):
        mask = np.asarray(action_mask)
        if np.count_nonzero(mask) < 2:
            return super().act(observation, action_mask, rng)
        v = fast_decode(observation, self.rules)
        if v.talon_size <= self.talon:
            return super().act(observation, action_mask, rng)
        order = [int(a) for a in self.preference(np.asarray(observation)[None], mask[None])]
        moves = order[: self.top]
        rng = rng if rng is not None else np.random.default_rng()
        q = self._values(view_array(v), moves, rng)
        if q is None:
            return moves[0]
        self.looked += 1
        best = int(np.argmax(q))
        if q[best] > q[0] + self.margin:
            self.changed += best != 0
            return moves[best]
        return moves[0]

    @torch.inference_mode()
    def _values(self, view, moves, rng):
        k, m = self.samples, len(moves)
        one, src = core.new_state(1), core.new_state(k)
        one["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
        for i in range(k):  # determinize draws from the record's own stream
            if not determinize_at(one, 0, self.prm, view, self.cards):
                return None
            src[i] = one[0]
        n = k * m
        st = core.new_state(n)
        buf = np.zeros((n, self.width), np.int64)
        n_legal = np.zeros(n, np.int64)
        obs = np.zeros((n, self.net_obs_size), np.float32)
        result = np.zeros(n, np.float64)
        _start(st, self.prm, self.off, src, np.asarray(moves, np.int64), buf, n_legal, obs,
               result)
        for _ in range(400):
            talon = st["talon_end"] - st["talon_top"]
            live = np.flatnonzero((n_legal > 0) & (talon > self.talon))
            if not len(live):
                break
            w = int(n_legal[live].max())
            ids = torch.from_numpy(buf[live, :w])
            valid = legal_valid(torch.from_numpy(n_legal[live]), w)
            pos, *_ = self.net.get_action_and_value(torch.from_numpy(obs[live]), ids, valid,
                                                    greedy=True)
            chosen = buf[live, pos.numpy()]
            _advance(st, self.prm, self.off, live.astype(np.int64), chosen, buf, n_legal, obs,
                     result)
        leaf = np.flatnonzero(n_legal > 0)  # handed to the end game: the critic's value
        if len(leaf):
            states = np.zeros((len(leaf), self.state_width), np.float32)
            sign = np.zeros(len(leaf), np.float32)
            for i, g in enumerate(leaf):
                me = int(st[g]["to_act"])
                sign[i] = 1.0 if me == 0 else -1.0
                encode_state_at(st, g, self.prm, self.off, me, states[i])
            result[leaf] = self.net.value(None, torch.from_numpy(states)).numpy() * sign
        return result.reshape(k, m).mean(0)

    @property
    def net_obs_size(self):
        return observation.observation_size(self.rules)


if __name__ == "__main__":
    from agents.tournament.cli import main

    main(sys.argv[1:])
