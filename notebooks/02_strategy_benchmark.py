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
# # 02 · Strategy benchmark
#
# A tournament of the baseline players with `agents.tournament` (the Python API behind
# `python -m agents.tournament`): paired deals (every deal is replayed with the agents
# rotated through the seats, so the luck of the deal cancels out), win rates with
# Wilson 95% intervals, and Bradley-Terry ratings on the Elo scale. Then the shipped
# PPO checkpoint, if the repository has one, and how the picture changes with the
# number of players and with the variant.
#
# The budgets here are small, so the intervals are wide; the README has the figures of
# the long runs and the commands that print them.

# %% tags=["parameters"]
# Parameters. DURAK_NB_FAST=1 (set by CI) selects the small budgets.
import os

FAST = os.environ.get("DURAK_NB_FAST", "0") == "1"
SEED = 0
WORKERS = 1  # worker processes for the tournaments
if FAST:
    AGENTS = ["random", "greedy", "trump_saving", "expert"]
else:
    AGENTS = ["random", "greedy", "card_counting", "pair_holding", "trump_saving", "expert"]
GAMES = 16 if FAST else 100  # games per pair of agents (two players)
PLAYER_COUNTS = [2, 3, 4] if FAST else [2, 3, 4, 5, 6]
GAMES_MULTI = 24 if FAST else 300  # games per player count (more than two players)
GAMES_VARIANT = 12 if FAST else 100  # games per pair, per variant

# %%
from pathlib import Path

# The repository root (notebooks run with notebooks/ as the working directory).
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "pyproject.toml").is_file())

# %%
import matplotlib.pyplot as plt
import numpy as np

from IPython.display import Markdown, display

from agents.tournament import format_tables, run, summarize
from durak_env import Rules


def tournament(rules, specs, games):
    results = run(rules, specs, games, seed=SEED, workers=WORKERS, progress=False)
    return summarize(specs, results)


def heatmap(summary, ax, title=""):
    k = len(summary.specs)
    rate = np.full((k, k), np.nan)
    for (i, j), t in summary.pairs.items():
        if t.wins + t.losses:
            rate[i, j] = t.wins / (t.wins + t.losses)
    ax.imshow(rate, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(k), summary.specs, rotation=45, ha="right")
    ax.set_yticks(range(k), summary.specs)
    for i in range(k):
        for j in range(k):
            if not np.isnan(rate[i, j]):
                ax.text(j, i, f"{100 * rate[i, j]:.0f}", ha="center", va="center")
    ax.set_title(title or "win % of row vs column (decided games)")


def ratings(summary, ax):
    order = np.argsort(summary.elo)
    ax.errorbar(summary.elo[order], range(len(order)), xerr=1.96 * summary.elo_se[order],
                fmt="o", capsize=4)
    ax.set_yticks(range(len(order)), [summary.specs[i] for i in order])
    ax.set_xlabel("Bradley-Terry rating (Elo scale), 95% interval")
    ax.grid(axis="x", alpha=0.3)


# %% [markdown]
# ## 1. The baselines, two players, podkidnoy

# %%
two = tournament(Rules(), AGENTS, GAMES)
print(format_tables(two, 2))
fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
heatmap(two, a)
ratings(two, b)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 2. The shipped PPO checkpoint
#
# `checkpoints/*.pt` in the repository (written by `train.py`), as the agent spec
# `ppo:PATH`, against a few baselines under the rules it was trained for.

# %%
from agents.ppo import load_checkpoint

shipped = sorted((ROOT / "checkpoints").glob("*.pt"))
if not shipped:
    print("no checkpoint in", ROOT / "checkpoints", "- train one with train.py (see the README)")
for path in shipped[:1]:
    net, _ = load_checkpoint(path)
    specs = [f"ppo:{path}", "random", "greedy", "expert"]
    ppo = tournament(net.rules, specs, GAMES)
    ppo.specs = ["ppo", *specs[1:]]  # short names for the tables and plots
    print(net.rules)
    print(format_tables(ppo, net.rules.num_players))
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    heatmap(ppo, a)
    ratings(ppo, b)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## 3. More players
#
# With more than two players the headline is the *durak rate*: how often an agent ends
# up the loser. A random player's expected share is `1/n`; lower is better.

# %%
SPECS = ["random", "greedy", "expert"]
durak = {spec: [] for spec in SPECS}
for n in PLAYER_COUNTS:
    s = tournament(Rules(num_players=n), SPECS, GAMES if n == 2 else GAMES_MULTI)
    for i, spec in enumerate(SPECS):
        row = s.agents[i].row()
        durak[spec].append((row["durak_rate"], row["durak_rate_lo"], row["durak_rate_hi"]))
fig, ax = plt.subplots(figsize=(7, 3.5))
for k, spec in enumerate(SPECS):
    x = np.array(PLAYER_COUNTS) + (k - 1) * 0.2
    rate, lo, hi = np.array(durak[spec]).T
    yerr = np.clip([rate - lo, hi - rate], 0, None)  # Wilson bounds can miss by rounding
    ax.errorbar(x, rate, yerr=yerr, fmt="o", capsize=3, label=spec)
ax.plot(PLAYER_COUNTS, [1 / n for n in PLAYER_COUNTS], "k:", label="1/n")
ax.set_xlabel("players")
ax.set_ylabel("durak rate (95% interval)")
ax.set_xticks(PLAYER_COUNTS)
ax.legend()
plt.show()

# %% [markdown]
# ## 4. The variants
#
# The same three players in two-player prostoy, podkidnoy and perevodnoy: how long a
# game lasts, and how much skill decides it.

# %%
rows = ["| variant | decisions per game | expert vs greedy (win %) | greedy vs random (win %) |",
        "|---|---|---|---|"]


def pct(summary, a, b):
    """Win rate of agent a against agent b with its 95% interval, in percent."""
    r = summary.pairs[summary.specs.index(a), summary.specs.index(b)].row()
    return f"{100 * r['win_rate']:.0f} [{100 * r['win_rate_lo']:.0f}, {100 * r['win_rate_hi']:.0f}]"


for variant in ("prostoy", "podkidnoy", "perevodnoy"):
    s = tournament(Rules(variant=variant), SPECS, GAMES_VARIANT)
    rows.append(f"| {variant} | {s.mean_decisions:.1f} | {pct(s, 'expert', 'greedy')} | "
                f"{pct(s, 'greedy', 'random')} |")
display(Markdown("\n".join(rows)))
