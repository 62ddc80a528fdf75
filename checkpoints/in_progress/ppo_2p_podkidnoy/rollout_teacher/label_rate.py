"""What would labelling the middle game with ``rollout_probe.py``'s rollouts cost in
training? ``rollout_values`` over many positions at once, as a distillation labeller
would run it (one forward pass of the main head a step for every game of every
position), timed.

    python checkpoints/in_progress/ppo_2p_podkidnoy/rollout_teacher/label_rate.py \
        [POSITIONS] [SAMPLES] [TOP] [MARGIN]

Positions come from self-play of the shipped checkpoint (greedy, seed 11), those with a
talon above the expert's range and at least 2 legal moves. Prints positions labelled per
second (alone on the machine it is the whole cost: the rollouts stand in for nothing
else) and the share whose label differs from the policy's first choice.
"""

import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rollout_probe import RolloutAgent, fast_decode, rollout_values, view_array  # noqa: E402

from durak_env import Rules  # noqa: E402
from durak_env.vector import VectorEnv  # noqa: E402


def main():
    positions = int(sys.argv[1]) if len(sys.argv) > 1 else 512
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    margin = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
    torch.set_num_threads(2)
    agent = RolloutAgent(path="checkpoints/ppo_2p_podkidnoy.pt", samples=k, top=top)
    venv = VectorEnv(Rules(), 256, seed=11, copy=True)
    obs, info = venv.reset(seed=11)
    views, moves = [], []
    while len(views) < positions:
        mask = info["action_mask"]
        for g in range(len(obs)):
            v = fast_decode(obs[g], agent.rules)
            if mask[g].sum() >= top and v.talon_size > agent.talon and len(views) < positions:
                views.append(view_array(v))
                moves.append(agent.preference(obs[g : g + 1], mask[g : g + 1])[:top])
        obs, _, _, _, info = venv.step(agent.act_batch(obs, mask))
    moves = np.asarray(moves, np.int64)
    rng = np.random.default_rng(0)
    rollout_values(agent, views[:4], moves[:4], k, rng)  # compile
    t = time.perf_counter()
    q = np.concatenate([rollout_values(agent, views[i : i + 64], moves[i : i + 64], k, rng)
                        for i in range(0, positions, 64)])
    dt = time.perf_counter() - t
    changed = np.mean(q.max(1) > q[:, 0] + margin)
    print(f"{positions} positions, {k} deals, top {top}: {dt:.1f} s, "
          f"{positions / dt:.1f} positions/s; label differs from the policy's first choice "
          f"(margin {margin}) in {100 * changed:.1f}%")


if __name__ == "__main__":
    main()
