"""A probe, not part of the product: would a middle-game teacher built from the global
critic beat the policy it would teach? The tournament with one more agent, ``ppo_look``:
where the talon holds more cards than the end-game expert's range, it deals the unseen
cards ``samples`` times (``agents.determinize``), applies each of the policy's ``top``
likeliest moves in every deal, reads the global critic's value of the position that
follows (seen from the seat to act there, negated for the opponent; the reward where the
game is over) and plays the move of the best mean. Elsewhere it plays as ``ppo``.

    python checkpoints/in_progress/ppo_2p_podkidnoy/critic_lookahead/critic_probe.py \
        --agents ppo_look:path=checkpoints/ppo_2p_podkidnoy.pt,samples=16,top=3,expert \
        --players 2 --games 2000 --seed 31

If it wins clearly more than the policy alone on the same deals, distilling its moves
into the main head (as the end-game searches are distilled now) is worth building.
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agents import registry  # noqa: E402
from agents.determinize import determinize_at, view_array  # noqa: E402
from agents.ppo import PPOAgent  # noqa: E402
from agents.view import fast_decode  # noqa: E402
from durak_env import core  # noqa: E402
from durak_env.cards import NUM_CARDS  # noqa: E402
from durak_env.observation import encode_state_at, obs_offsets, state_size  # noqa: E402

# the tournament's spawned workers import this file again, and so register the agent too
registry.REGISTRY["ppo_look"] = "critic_probe:LookaheadAgent"


class LookaheadAgent(PPOAgent):
    name = "ppo_look"

    def __init__(self, rules=None, *, path: str = "", greedy: bool = True,
                 samples: int = 16, top: int = 3, margin: float = 0.0):
        super().__init__(rules, path=path, greedy=greedy)
        if not self.net.global_critic:
            raise ValueError("ppo_look needs a checkpoint with a global critic")
        self.samples, self.top, self.margin = int(samples), int(top), float(margin)
        self.prm = core.kernel_params(self.rules)
        self.off = obs_offsets(self.rules)
        self.src = core.new_state(1)
        self.cards = np.zeros(NUM_CARDS, np.int64)
        self.buf = np.zeros(int(self.prm[core.A_N]), np.int64)
        self.log = np.zeros((0, 2), np.int32)
        self.rew = np.zeros(self.rules.num_players, np.float64)
        self.width = state_size(self.rules)
        self.talon = self.net.cfg.endgame_talon if self.net.endgame is not None else -1
        self.looked = 0

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
        return moves[best] if q[best] > q[0] + self.margin else moves[0]

    @torch.inference_mode()
    def _values(self, view, moves, rng):
        k, m = self.samples, len(moves)
        st = core.new_state(k * m)
        states = np.zeros((k * m, self.width), np.float32)
        sign = np.zeros(k * m, np.float32)
        fixed = np.full(k * m, np.nan, np.float32)
        self.src["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
        for i in range(k):
            if not determinize_at(self.src, 0, self.prm, view, self.cards):
                return None
            for j, a in enumerate(moves):
                g = i * m + j
                st[g] = self.src[0]
                core.step_at(st, g, self.prm, a, self.buf, self.log)
                if st[g]["phase"] == core.OVER:
                    core.rewards_at(st, g, self.prm, self.rew)
                    fixed[g] = self.rew[0]
                    continue
                me = int(st[g]["to_act"])
                sign[g] = 1.0 if me == 0 else -1.0
                encode_state_at(st, g, self.prm, self.off, me, states[g])
        value = self.net.value(None, torch.from_numpy(states)).numpy() * sign
        value = np.where(np.isnan(fixed), value, fixed)
        return value.reshape(k, m).mean(0)


if __name__ == "__main__":
    from agents.tournament.cli import main

    main(sys.argv[1:])
