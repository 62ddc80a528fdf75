# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   language_info:
#     name: python
# ---

# %% [markdown]
# # 03 · Training analysis
#
# A short self-play PPO run with `configs/tiny.yaml` through the trainer's Python API
# (`agents.ppo_train`, what `train.py` calls), or an existing run directory; its
# learning curves read from the TensorBoard event files; an evaluation of its
# checkpoints; and the trained policy's action probabilities on a few positions set up
# by hand with `Game.from_deal`.
#
# The tiny budget learns little: the point is the workflow. Point `RUN_DIR` at a real
# run (`python train.py`, see the README) to analyse it instead.

# %% tags=["parameters"]
# Parameters. DURAK_NB_FAST=1 (set by CI) selects the small budgets.
import os

FAST = os.environ.get("DURAK_NB_FAST", "0") == "1"
RUN_DIR = None  # an existing run directory to analyse instead of training one
TOTAL_TIMESTEPS = 2048 if FAST else 20_000  # environment steps of the short run
EVAL_GAMES = 32 if FAST else 400  # games per opponent when evaluating checkpoints
EVAL_OPPONENTS = ["random", "greedy"]

# %%
from pathlib import Path

# The repository root (notebooks run with notebooks/ as the working directory).
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "pyproject.toml").is_file())

# %% [markdown]
# ## 1. A short training run (or an existing one)

# %%
import json
import tempfile

from agents.ppo_config import load_config
from agents.ppo_train import start_run, train

if RUN_DIR is None:
    runs_dir = Path(tempfile.mkdtemp(prefix="durak_runs_"))
    cfg = load_config(
        ROOT / "configs" / "tiny.yaml",
        [f"logging.runs_dir={runs_dir}", f"ppo.total_timesteps={TOTAL_TIMESTEPS}"],
    )
    run_dir = start_run(cfg)
    summary = train(cfg, run_dir)
    print(json.dumps(summary, indent=1)[:800])
else:
    run_dir = Path(RUN_DIR)
print("run directory:", run_dir)
print(sorted(p.name for p in run_dir.iterdir()))

# %% [markdown]
# ## 2. Learning curves from the TensorBoard event files
#
# The trainer logs CleanRL's tags: `charts/…` (speed, game length, win rates) and
# `losses/…`, plus `eval/winrate_vs_<opponent>` with its 95% interval.

# %%
import matplotlib.pyplot as plt
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
acc.Reload()
tags = sorted(acc.Tags()["scalars"])
print(len(tags), "scalar tags:", ", ".join(tags))
curves = {t: ([e.step for e in acc.Scalars(t)], [e.value for e in acc.Scalars(t)]) for t in tags}

# %%
panels = [
    [t for t in tags if t.startswith("eval/winrate_vs_") and not t.endswith(("_lo", "_hi"))]
    + [t for t in tags if t in ("charts/winrate_vs_heuristic", "charts/winrate_vs_pool")],
    [t for t in tags if t in ("losses/policy_loss", "losses/value_loss")],
    [t for t in tags if t in ("losses/entropy", "losses/approx_kl")],
    [t for t in tags if t in ("charts/SPS",)],
]
panels = [p for p in panels if p]
fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3.2), squeeze=False)
for ax, group in zip(axes[0], panels):
    for tag in group:
        steps, values = curves[tag]
        ax.plot(steps, values, marker="." if tag.startswith("eval") else None, label=tag)
        lo, hi = curves.get(tag + "_lo"), curves.get(tag + "_hi")
        if lo and hi:
            ax.fill_between(lo[0], lo[1], hi[1], alpha=0.2)
    ax.set_xlabel("environment steps")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 3. Evaluating the checkpoints
#
# Each checkpoint plays `EVAL_GAMES` games against each opponent (seats alternating),
# with the evaluation the trainer uses, once with its most likely move (greedy, what
# the trainer reports) and once sampling from the policy. The shipped checkpoint in
# `checkpoints/` is included when the repository has one. (After a tiny run the
# policy is still close to uniform, and its argmax can be a degenerate player.)

# %%
import torch
from IPython.display import Markdown, display

from agents.ppo import load_checkpoint
from agents.ppo_train import evaluate

torch.set_num_threads(1)
checkpoints = sorted((run_dir / "checkpoints").glob("*.pt"))
checkpoints += sorted((ROOT / "checkpoints").glob("*.pt"))
rows = ["| checkpoint | opponent | greedy policy: win rate [95%] | sampled: win rate [95%] |",
        "|---|---|---|---|"]
for path in checkpoints:
    net, _ = load_checkpoint(path)
    for spec in EVAL_OPPONENTS:
        cells = []
        for greedy in (True, False):
            r = evaluate(net, net.rules, spec, EVAL_GAMES, seed=123, greedy=greedy, num_threads=1)
            lo, hi = r["ci95"]
            cells.append(f"{r['winrate']:.2f} [{lo:.2f}, {hi:.2f}]")
        name = f"{path.parent.parent.name}/{path.name}"
        rows.append(f"| {name} | {spec} | {cells[0]} | {cells[1]} |")
display(Markdown("\n".join(rows)))

# %% [markdown]
# ## 4. What the policy does in positions set up by hand
#
# `Game.from_deal` builds a position; the network's probabilities over the legal moves
# of the seat to act are read from its masked logits (`PPONet.policy_logits`).

# %%
from IPython.display import HTML

from agents.ppo import legal_lists, legal_valid
from durak_env import Game, Rules
from durak_env.cards import format_mask
from durak_env.html import render_html

net, _ = load_checkpoint(run_dir / "checkpoints" / "final.pt")
rules = net.rules


@torch.inference_mode()
def move_probabilities(net, game):
    obs = game.observe(game.to_act)[None]
    ids, counts = legal_lists(game.action_mask()[None])
    valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
    logits = net.policy_logits(torch.from_numpy(obs), torch.from_numpy(ids), valid)
    probs = torch.softmax(logits, dim=-1)[0, : counts[0]].numpy()
    moves = [game.layout.decode(int(a)) for a in ids[0, : counts[0]]]
    return dict(sorted(zip(moves, probs), key=lambda kv: -kv[1]))


def position(hands, trump_card, moves=(), first_attacker=0, talon_size=None):
    """A deal from two hands and the face-up trump card; the rest of the deck forms the
    talon (or the discard, keeping ``talon_size`` cards), then ``moves`` are played."""
    used = {c for h in hands for c in h} | {trump_card}
    rest = [c for c in format_mask((1 << 52) - (1 << rules.low_card)) if c not in used]
    keep = len(rest) if talon_size is None else talon_size
    talon = rest[:keep] + [trump_card] if talon_size != 0 else []
    discard = rest[keep:] + ([trump_card] if talon_size == 0 else [])
    game = Game.from_deal(rules, hands=hands, talon=talon, discard=discard,
                          trump=trump_card[-1], first_attacker=first_attacker)
    for m in moves:
        game.play(m)
    return game


POSITIONS = {
    "Opening: a low pair, two trumps (trump hearts)": position(
        [["6S", "6C", "9D", "JH", "QS", "AH"], ["7S", "8C", "10D", "KS", "KC", "9S"]], "7H"),
    "Defending 6S: beat with 7S, with a trump, or take": position(
        [["6S", "9D", "JC", "QS", "KD", "AC"], ["7S", "8C", "10D", "8H", "KC", "9S"]], "7H",
        moves=["play 6S"]),
    "End game (talon empty): attack with the pair or the single card": position(
        [["8S", "8C", "AD"], ["9S", "QH", "10C"]], "7H", talon_size=0),
}
for title, game in POSITIONS.items():
    probs = move_probabilities(net, game)
    display(HTML(f"<h4>{title}</h4>" + render_html(game, seat=game.to_act)))
    fig, ax = plt.subplots(figsize=(6, 0.35 * len(probs) + 0.6))
    ax.barh(list(probs)[::-1], list(probs.values())[::-1])
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"probability (seat {game.to_act})")
    plt.show()
