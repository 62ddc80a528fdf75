"""What would labelling the middle game with ``rollout_probe.py``'s rollouts cost in
training? Its rollouts batched over many positions at once, as a distillation labeller
would run them (one forward pass of the main head per step for every game of every
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

from rollout_probe import (  # noqa: E402
    RolloutAgent,
    _advance,
    _start,
    determinize_at,
    encode_state_at,
    fast_decode,
    legal_valid,
    view_array,
)

from durak_env import Rules, core  # noqa: E402
from durak_env.vector import VectorEnv  # noqa: E402


@torch.inference_mode()
def batched_values(agent, views, moves, k, rng):
    """Mean rollout value ``[P, m]`` of ``moves[p]`` (m each) over ``k`` deals of view p."""
    p, m = len(views), moves.shape[1]
    one, src = core.new_state(1), core.new_state(p * k)
    one["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
    for i, view in enumerate(views):
        for d in range(k):
            if not determinize_at(one, 0, agent.prm, view, agent.cards):
                raise RuntimeError("a view that cannot be determinized")
            src[i * k + d] = one[0]
    n = p * k * m
    st = core.new_state(n)
    buf = np.zeros((n, agent.width), np.int64)
    n_legal = np.zeros(n, np.int64)
    obs = np.zeros((n, agent.net_obs_size), np.float32)
    result = np.zeros(n, np.float64)
    # game g = (i * k + d) * m + j: moves[i, j] in deal d of view i
    for i in range(p):
        lo = i * k * m
        _start(st[lo : lo + k * m], agent.prm, agent.off, src[i * k : (i + 1) * k], moves[i],
               buf[lo : lo + k * m], n_legal[lo : lo + k * m], obs[lo : lo + k * m],
               result[lo : lo + k * m])
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
    leaf = np.flatnonzero(n_legal > 0)
    if len(leaf):
        states = np.zeros((len(leaf), agent.state_width), np.float32)
        sign = np.zeros(len(leaf), np.float32)
        for i, g in enumerate(leaf):
            me = int(st[g]["to_act"])
            sign[i] = 1.0 if me == 0 else -1.0
            encode_state_at(st, g, agent.prm, agent.off, me, states[i])
        result[leaf] = agent.net.value(None, torch.from_numpy(states)).numpy() * sign
    return result.reshape(p, k, m).mean(1)


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
    batched_values(agent, views[:4], moves[:4], k, rng)  # compile
    t = time.perf_counter()
    q = np.concatenate([batched_values(agent, views[i : i + 64], moves[i : i + 64], k, rng)
                        for i in range(0, positions, 64)])
    dt = time.perf_counter() - t
    changed = np.mean(q.max(1) > q[:, 0] + margin)
    print(f"{positions} positions, {k} deals, top {top}: {dt:.1f} s, "
          f"{positions / dt:.1f} positions/s; label differs from the policy's first choice "
          f"(margin {margin}) in {100 * changed:.1f}%")


if __name__ == "__main__":
    main()
