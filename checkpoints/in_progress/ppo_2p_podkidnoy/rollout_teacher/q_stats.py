"""How the rollouts of ``rollout_probe.py`` rank the policy's three likeliest moves.

    python checkpoints/in_progress/ppo_2p_podkidnoy/rollout_teacher/q_stats.py [SAMPLES]

From 64 self-play games of the shipped checkpoint (greedy, seed 7), every fourth game's
positions with a talon above the expert's range and at least 3 legal moves, for 30
decisions; prints how many positions, the mean rollout value of the policy's first,
second and third choice, how often each is the best, and the mean and spread of the
second and third choices' values minus the first's.
"""

import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rollout_probe import RolloutAgent, fast_decode, view_array  # noqa: E402

from durak_env import Rules  # noqa: E402
from durak_env.vector import VectorEnv  # noqa: E402

samples = int(sys.argv[1]) if len(sys.argv) > 1 else 64
torch.set_num_threads(2)
agent = RolloutAgent(path="checkpoints/ppo_2p_podkidnoy.pt", samples=samples, top=3)
venv = VectorEnv(Rules(), 64, seed=7, copy=True)
obs, info = venv.reset(seed=7)
rng = np.random.default_rng(0)
qs = []
for _ in range(30):
    mask = info["action_mask"]
    for g in range(0, 64, 4):
        v = fast_decode(obs[g], agent.rules)
        if mask[g].sum() >= 3 and v.talon_size > agent.talon:
            order = [int(a) for a in agent.preference(obs[g : g + 1], mask[g : g + 1])][:3]
            q = agent._values(view_array(v), order, rng)
            if q is not None:
                qs.append(q)
    obs, _, _, _, info = venv.step(agent.act_batch(obs, mask))
qs = np.array(qs)
best = np.bincount(qs.argmax(1), minlength=3) / len(qs)
diff = qs[:, 1:] - qs[:, [0]]
print(f"{len(qs)} positions, {samples} deals each")
print("mean value of the 1st/2nd/3rd choice:", np.round(qs.mean(0), 3))
print("share where it is the best:", np.round(best, 3))
print("2nd - 1st, 3rd - 1st: mean", np.round(diff.mean(0), 3), "sd", np.round(diff.std(0), 3))
