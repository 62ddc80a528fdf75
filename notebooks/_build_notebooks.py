"""Write the notebooks of this directory from the cell lists below, without outputs.

    python notebooks/_build_notebooks.py        # then: pytest --nbmake notebooks/

Edit the cells here, not in the ``.ipynb`` files, so that the notebooks stay
reviewable as code and are committed without outputs. Each notebook starts with
one code cell tagged ``parameters`` holding its budgets; ``DURAK_NB_FAST=1`` (set
by CI) shrinks them so that every notebook runs in about a minute.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

FIND_ROOT = '''\
from pathlib import Path

# The repository root (notebooks run with notebooks/ as the working directory).
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "pyproject.toml").is_file())'''


def md(text: str):
    return new_markdown_cell(text.strip("\n"))


def code(text: str, tags: list[str] | None = None):
    cell = new_code_cell(text.strip("\n"))
    if tags:
        cell.metadata["tags"] = tags
    return cell


def params(text: str):
    return code(text, tags=["parameters"])


# ---------------------------------------------------------------- 01: environment tour

TOUR = [
    md("""
# 01 · A tour of the Durak environment

This notebook walks through what the package offers, top to bottom:

1. the rules and their options (`Rules`),
2. one game with the `Game` API, including positions set up by hand and game records,
3. the PettingZoo AEC loop with agents from `agents`,
4. the batched `VectorEnv`,
5. the observation layout and how to read an observation back,
6. rendering (HTML cards in the notebook, Unicode text in the terminal).

The rule book is `docs/rules.md` in this repository; everything here
follows it move for move.
"""),
    params("""
# Parameters. DURAK_NB_FAST=1 (set by CI) selects the small budgets.
import os

FAST = os.environ.get("DURAK_NB_FAST", "0") == "1"
SEED = 0
RANDOM_GAMES = 30 if FAST else 300  # Game API games for the statistics of section 2
VECTOR_ENVS = 64 if FAST else 1024  # games stepped together by the vector env
VECTOR_STEPS = 100 if FAST else 1000  # vector env steps
"""),
    md("""
## 1. Rules and their options

`Rules` is a frozen dataclass; every field is an option of the rule book. Invalid
values raise `ValueError` naming the field.
"""),
    code("""
import dataclasses
import random

import numpy as np
from IPython.display import HTML, Markdown, display

from durak_env import ActionLayout, Game, IllegalMoveError, Rules

rows = ["| option | default | meaning |", "|---|---|---|"]
docs = {
    "num_players": "2-6 (36 cards), 2-8 (52), 2-4 (24)",
    "deck_size": "24 (9..A), 36 (6..A), 52 (2..A)",
    "hand_size": "cards dealt, and drawn up to after each round",
    "variant": "prostoy (one volley), podkidnoy (throw-ins), perevodnoy (transfers)",
    "throw_in": "who may throw in: all players or the defender's neighbours",
    "max_attack": "most attack cards in a round",
    "first_round_max_attack": "limit until the first bito (None: max_attack)",
    "transfer_show_trump": "perevodnoy: transfer by showing the trump of the attack rank",
}
for f in dataclasses.fields(Rules):
    rows.append(f"| `{f.name}` | `{f.default!r}` | {docs.get(f.name, '')} |")
display(Markdown("\\n".join(rows)))
"""),
    code("""
for bad in [
    dict(num_players=7),
    dict(variant="durak"),
    dict(transfer_show_trump=True),
    dict(deck_size=24, num_players=4, hand_size=7),
]:
    try:
        Rules(**bad)
    except ValueError as e:
        print(f"Rules(**{bad}) -> ValueError: {e}")
"""),
    md("""
The action space is a fixed `Discrete(n)` per rule set, built from named blocks
(`pass`, `take`, `play C`, `beat A B`, `transfer C`, `show C`):
"""),
    code("""
rows = ["| deck | variant | show trump | actions |", "|---|---|---|---|"]
for deck in (24, 36, 52):
    for variant, show in [("podkidnoy", False), ("perevodnoy", False), ("perevodnoy", True)]:
        lay = ActionLayout.of(Rules(deck_size=deck, variant=variant, transfer_show_trump=show))
        rows.append(f"| {deck} | {variant} | {show} | {lay.n} |")
display(Markdown("\\n".join(rows)))
lay = ActionLayout.of(Rules())
print([lay.decode(a) for a in (0, 1, 2, lay.beat + 5)], lay.encode("Beat 6s 7♠"))
"""),
    md("""
## 2. One game with the `Game` API

`Game.new(rules, seed)` deals at random. In a notebook a game shows itself as HTML
(the referee's view: every hand face up; the seat to act is highlighted).
"""),
    code("""
game = Game.new(Rules(num_players=3), seed=SEED)
game
"""),
    code("""
print("trump:", game.trump_suit, "| talon:", len(game.talon), "cards")
print("attacker:", game.attacker, "defender:", game.defender, "to act:", game.to_act)
print("legal moves:", game.legal_moves())
"""),
    md("""
Moves are strings in the rule book's notation; any spelling the card parser accepts
works (`"Play 10h"`, `"play T♥"`). An illegal or malformed move raises
`IllegalMoveError` (a `ValueError`) and changes nothing. After each move the engine
applies every *forced* move (a player with exactly one legal move is not asked);
they appear in `history` too.
"""),
    code("""
game.play(game.legal_moves()[0])
for bad in ["beat 6S 6S", "play 1Z", "dance"]:
    try:
        game.play(bad)
    except IllegalMoveError as e:
        print(f"{bad!r}: {e}")
game.history
"""),
    md("What the seat to act may know (other hands as card backs, known cards face up):"),
    code("""
from durak_env.html import render_html

HTML(render_html(game, seat=game.to_act))
"""),
    code("""
rng = random.Random(SEED)
while not game.over:
    game.play(rng.choice(game.legal_moves()))
print(f"{len(game.history)} moves; durak: seat {game.durak}; left in order: {game.out_order}")
print("rewards:", game.rewards)
game
"""),
    md("""
### A position set up by hand: the worked example of docs/rules.md section 8

`Game.from_deal` starts from any position at the start of a round. Here three
players, trump spades; the rule book's table of decisions is replayed and the forced
passes of seat 2 appear in the history without being asked.
"""),
    code("""
example = Game.from_deal(
    Rules(num_players=3),
    hands=[["7S", "7C", "7D", "8H", "9C", "JD"],
           ["KC", "10D", "9S", "6H", "8C", "QD"],
           ["KH", "6C", "6D", "10H", "JC", "QH"]],
    talon="10C QC AC 8D 9D KD AD 7H 9H JH AH 6S 8S 10S JS QS KS AS".split(),
)
decisions = ["play 7C", "pass", "beat 7C KC", "play 7D", "pass", "play KH", "pass",
             "beat 7D 10D", "beat KH 9S", "pass", "pass"]
for move in decisions:
    example.play(move)
print(example.history)
example
"""),
    md("""
### Game records

`game.to_record()` is a JSON-able dict: the rules, the dealt position and every
move with its seat (forced moves included). `Game.from_record` replays it and checks
it; `python -m durak_env.replay FILE` steps through a saved one, and
`python -m durak_env.play` saves one for every game you play.
"""),
    code("""
import json

from durak_env.records import dumps

record = game.to_record(meta={"note": "random moves"})
print(dumps(record)[:700], "...")
again = Game.from_record(json.loads(json.dumps(record)))
assert again.history == game.history and again.rewards == game.rewards
"""),
    md("A few statistics over random games: how long a game lasts, and who ends up the durak."),
    code("""
import matplotlib.pyplot as plt

lengths, duraks = [], []
rng = random.Random(SEED)
for i in range(RANDOM_GAMES):
    g = Game.new(Rules(num_players=3), seed=1000 + i)
    while not g.over:
        g.play(rng.choice(g.legal_moves()))
    lengths.append(len(g.history))
    duraks.append(-1 if g.durak is None else g.durak)
fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3))
a.hist(lengths, bins=20)
a.set_xlabel("moves per game (forced included)")
b.bar(["draw", "seat 0", "seat 1", "seat 2"], [duraks.count(s) for s in (-1, 0, 1, 2)])
b.set_title("durak (random play)")
plt.show()
"""),
    md("""
## 3. The PettingZoo AEC environment

`durak_env.env(**rules)` is a standard PettingZoo AEC environment (`durak_v0`).
Each agent sees `{"observation", "action_mask"}`. Here three of the baseline
players from `agents` play a perevodnoy game; any agent spec string works
(`"ismcts:iterations=200"`, `"ppo:checkpoints/....pt"`).
"""),
    code("""
from agents.registry import make_agent
from durak_env import env

aec = env(num_players=3, variant="perevodnoy")
aec.reset(seed=SEED)
rules = aec.unwrapped.rules
specs = dict(zip(aec.possible_agents, ["greedy", "expert", "random"]))
players = {name: make_agent(spec, rules) for name, spec in specs.items()}
for p in players.values():
    p.reset()
np_rng = np.random.default_rng(SEED)
final, decisions = {}, 0
for name in aec.agent_iter():
    obs, reward, terminated, truncated, info = aec.last()
    if terminated or truncated:
        final[name] = reward
        action = None
    else:
        action = players[name].act(obs["observation"], obs["action_mask"], np_rng)
        decisions += 1
    aec.step(action)
print(f"{decisions} decisions;", {f"{n} ({specs[n]})": r for n, r in final.items()})
"""),
    md("""
## 4. The vector environment

`VectorEnv` steps many games in one numba call, each from the point of view of its
seat to act (`info["to_act"]`). Finished games are reset in the same step
(`AutoresetMode.SAME_STEP`); `rewards[g]` then holds every seat's final reward.
"""),
    code("""
import time

from durak_env import VectorEnv

venv = VectorEnv(Rules(num_players=2), num_envs=VECTOR_ENVS, seed=SEED, num_threads=1)
obs, info = venv.reset()
print("obs", obs.shape, obs.dtype, "| mask", info["action_mask"].shape)
print("to_act", info["to_act"][:8])
venv.step(venv.random_actions())  # the first call may compile
t0 = time.perf_counter()
finished, lengths, seat0_wins = 0, [], 0
for _ in range(VECTOR_STEPS):
    obs, rew, term, trunc, info = venv.step(venv.random_actions())
    finished += int(term.sum())
    lengths += info["game_length"][term].tolist()
    seat0_wins += int((rew[term, 0] > 0).sum())
dt = time.perf_counter() - t0
print(f"{VECTOR_ENVS * VECTOR_STEPS / dt:,.0f} decisions/s on one thread; {finished} games, "
      f"mean {np.mean(lengths):.1f} decisions; seat 0 won {seat0_wins / max(finished, 1):.1%}")
"""),
    md("""
## 5. The observation

One flat float32 vector per seat, built from named pieces; seats are rotated so that
the observer is always seat 0. The table below is generated from the code
(`observation.layout_table`), so it cannot drift from it.
"""),
    code("""
from durak_env import decode
from durak_env.observation import layout_table

rules3 = Rules(num_players=3)
display(Markdown(layout_table(rules3)))
"""),
    code("""
g = Game.new(rules3, seed=SEED + 1)
rng = random.Random(SEED)
for _ in range(12):
    g.play(rng.choice(g.legal_moves()))
seat = g.to_act
view = decode(g.observe(seat), rules3)
print(f"seat {seat}:", view.describe())
print("hand sizes (relative seats):", view.hand_size, "| talon:", view.talon_size,
      "| phase:", view.phase, "| take declared:", view.take)
HTML(render_html(g, seat=seat))
"""),
    md("""
## 6. Rendering

`Game` shows itself as HTML (above). In a terminal, `durak_env.term.render_terminal`
prints the text renderer's picture (`durak_env.render_text`) with Unicode suits, in
colour when writing to a terminal (red hearts and diamonds).
"""),
    code("""
from durak_env.term import render_terminal

print(render_terminal(g, color=False))
print()
print(render_terminal(g, seat=seat, color=False))
"""),
]


# ---------------------------------------------------------------- 02: benchmark

BENCHMARK = [
    md("""
# 02 · Strategy benchmark

A tournament of the baseline players with `agents.tournament` (the Python API behind
`python -m agents.tournament`): paired deals (every deal is replayed with the agents
rotated through the seats, so the luck of the deal cancels out), win rates with
Wilson 95% intervals, and Bradley-Terry ratings on the Elo scale. Then the shipped
PPO checkpoint, if the repository has one, and how the picture changes with the
number of players and with the variant.

The budgets here are small, so the intervals are wide; the README has the figures of
the long runs and the commands that print them.
"""),
    params("""
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
"""),
    code(FIND_ROOT),
    code("""
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
"""),
    md("## 1. The baselines, two players, podkidnoy"),
    code("""
two = tournament(Rules(), AGENTS, GAMES)
print(format_tables(two, 2))
fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
heatmap(two, a)
ratings(two, b)
plt.tight_layout()
plt.show()
"""),
    md("""
## 2. The shipped PPO checkpoint

`checkpoints/*.pt` in the repository (written by `train.py`), as the agent spec
`ppo:PATH`, against a few baselines under the rules it was trained for.
"""),
    code("""
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
"""),
    md("""
## 3. More players

With more than two players the headline is the *durak rate*: how often an agent ends
up the loser. A random player's expected share is `1/n`; lower is better.
"""),
    code("""
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
"""),
    md("""
## 4. The variants

The same three players in two-player prostoy, podkidnoy and perevodnoy: how long a
game lasts, and how much skill decides it.
"""),
    code("""
rows = ["| variant | decisions per game | expert vs greedy (win %) | greedy vs random (win %) |",
        "|---|---|---|---|"]


def pct(summary, a, b):
    \"\"\"Win rate of agent a against agent b with its 95% interval, in percent.\"\"\"
    r = summary.pairs[summary.specs.index(a), summary.specs.index(b)].row()
    return f"{100 * r['win_rate']:.0f} [{100 * r['win_rate_lo']:.0f}, {100 * r['win_rate_hi']:.0f}]"


for variant in ("prostoy", "podkidnoy", "perevodnoy"):
    s = tournament(Rules(variant=variant), SPECS, GAMES_VARIANT)
    rows.append(f"| {variant} | {s.mean_decisions:.1f} | {pct(s, 'expert', 'greedy')} | "
                f"{pct(s, 'greedy', 'random')} |")
display(Markdown("\\n".join(rows)))
"""),
]


# ---------------------------------------------------------------- 03: training analysis

TRAINING = [
    md("""
# 03 · Training analysis

A short self-play PPO run with `configs/tiny.yaml` through the trainer's Python API
(`agents.ppo_train`, what `train.py` calls), or an existing run directory; its
learning curves read from the TensorBoard event files; an evaluation of its
checkpoints; and the trained policy's action probabilities on a few positions set up
by hand with `Game.from_deal`.

The tiny budget learns little: the point is the workflow. Point `RUN_DIR` at a real
run (`python train.py`, see the README) to analyse it instead.
"""),
    params("""
# Parameters. DURAK_NB_FAST=1 (set by CI) selects the small budgets.
import os

FAST = os.environ.get("DURAK_NB_FAST", "0") == "1"
RUN_DIR = None  # an existing run directory to analyse instead of training one
TOTAL_TIMESTEPS = 2048 if FAST else 20_000  # environment steps of the short run
EVAL_GAMES = 32 if FAST else 400  # games per opponent when evaluating checkpoints
EVAL_OPPONENTS = ["random", "greedy"]
"""),
    code(FIND_ROOT),
    md("## 1. A short training run (or an existing one)"),
    code("""
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
"""),
    md("""
## 2. Learning curves from the TensorBoard event files

The trainer logs CleanRL's tags: `charts/…` (speed, game length, win rates) and
`losses/…`, plus `eval/winrate_vs_<opponent>` with its 95% interval.
"""),
    code("""
import matplotlib.pyplot as plt
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
acc.Reload()
tags = sorted(acc.Tags()["scalars"])
print(len(tags), "scalar tags:", ", ".join(tags))
curves = {t: ([e.step for e in acc.Scalars(t)], [e.value for e in acc.Scalars(t)]) for t in tags}
"""),
    code("""
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
"""),
    md("""
## 3. Evaluating the checkpoints

Each checkpoint plays `EVAL_GAMES` games against each opponent (seats alternating),
with the evaluation the trainer uses, once with its most likely move (greedy, what
the trainer reports) and once sampling from the policy. The shipped checkpoint in
`checkpoints/` is included when the repository has one. (After a tiny run the
policy is still close to uniform, and its argmax can be a degenerate player.)
"""),
    code("""
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
display(Markdown("\\n".join(rows)))
"""),
    md("""
## 4. What the policy does in positions set up by hand

`Game.from_deal` builds a position; the network's probabilities over the legal moves
of the seat to act are read from its masked logits (`PPONet.legal_logits`).
"""),
    code("""
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
    logits = net.legal_logits(net.trunk(torch.from_numpy(obs)), torch.from_numpy(ids), valid)
    probs = torch.softmax(logits, dim=-1)[0, : counts[0]].numpy()
    moves = [game.layout.decode(int(a)) for a in ids[0, : counts[0]]]
    return dict(sorted(zip(moves, probs), key=lambda kv: -kv[1]))


def position(hands, trump_card, moves=(), first_attacker=0, talon_size=None):
    \"\"\"A deal from two hands and the face-up trump card; the rest of the deck forms the
    talon (or the discard, keeping ``talon_size`` cards), then ``moves`` are played.\"\"\"
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
"""),
]


def write(name: str, cells: list) -> Path:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3",
        "language": "python",
        "name": "python3",
    }
    nb.metadata["language_info"] = {"name": "python"}
    path = HERE / name
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path


def main() -> None:
    for name, cells in [
        ("01_environment_tour.ipynb", TOUR),
        ("02_strategy_benchmark.ipynb", BENCHMARK),
        ("03_training_analysis.ipynb", TRAINING),
    ]:
        print("wrote", write(name, cells))


if __name__ == "__main__":
    main()
