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
# # 01 · A tour of the Durak environment
#
# This notebook walks through what the package offers, top to bottom:
#
# 1. the rules and their options (`Rules`),
# 2. one game with the `Game` API, including positions set up by hand and game records,
# 3. the PettingZoo AEC loop with agents from `agents`,
# 4. the batched `VectorEnv`,
# 5. the observation layout and how to read an observation back,
# 6. rendering (HTML cards in the notebook, Unicode text in the terminal).
#
# The rule book is `docs/rules.md` in this repository; everything here
# follows it move for move.

# %% tags=["parameters"]
# Parameters. DURAK_NB_FAST=1 (set by CI) selects the small budgets.
import os

FAST = os.environ.get("DURAK_NB_FAST", "0") == "1"
SEED = 0
RANDOM_GAMES = 30 if FAST else 300  # Game API games for the statistics of section 2
VECTOR_ENVS = 64 if FAST else 1024  # games stepped together by the vector env
VECTOR_STEPS = 100 if FAST else 1000  # vector env steps

# %% [markdown]
# ## 1. Rules and their options
#
# `Rules` is a frozen dataclass; every field is an option of the rule book. Invalid
# values raise `ValueError` naming the field.

# %%
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
display(Markdown("\n".join(rows)))

# %%
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

# %% [markdown]
# The action space is a fixed `Discrete(n)` per rule set, built from named blocks
# (`pass`, `take`, `play C`, `beat A B`, `transfer C`, `show C`):

# %%
rows = ["| deck | variant | show trump | actions |", "|---|---|---|---|"]
for deck in (24, 36, 52):
    for variant, show in [("podkidnoy", False), ("perevodnoy", False), ("perevodnoy", True)]:
        lay = ActionLayout.of(Rules(deck_size=deck, variant=variant, transfer_show_trump=show))
        rows.append(f"| {deck} | {variant} | {show} | {lay.n} |")
display(Markdown("\n".join(rows)))
lay = ActionLayout.of(Rules())
print([lay.decode(a) for a in (0, 1, 2, lay.beat + 5)], lay.encode("Beat 6s 7♠"))

# %% [markdown]
# ## 2. One game with the `Game` API
#
# `Game.new(rules, seed)` deals at random. In a notebook a game shows itself as HTML
# (the referee's view: every hand face up; the seat to act is highlighted).

# %%
game = Game.new(Rules(num_players=3), seed=SEED)
game

# %%
print("trump:", game.trump_suit, "| talon:", len(game.talon), "cards")
print("attacker:", game.attacker, "defender:", game.defender, "to act:", game.to_act)
print("legal moves:", game.legal_moves())

# %% [markdown]
# Moves are strings in the rule book's notation; any spelling the card parser accepts
# works (`"Play 10h"`, `"play T♥"`). An illegal or malformed move raises
# `IllegalMoveError` (a `ValueError`) and changes nothing. After each move the engine
# applies every *forced* move (a player with exactly one legal move is not asked);
# they appear in `history` too.

# %%
game.play(game.legal_moves()[0])
for bad in ["beat 6S 6S", "play 1Z", "dance"]:
    try:
        game.play(bad)
    except IllegalMoveError as e:
        print(f"{bad!r}: {e}")
game.history

# %% [markdown]
# What the seat to act may know (other hands as card backs, known cards face up):

# %%
from durak_env.html import render_html

HTML(render_html(game, seat=game.to_act))

# %%
rng = random.Random(SEED)
while not game.over:
    game.play(rng.choice(game.legal_moves()))
print(f"{len(game.history)} moves; durak: seat {game.durak}; left in order: {game.out_order}")
print("rewards:", game.rewards)
game

# %% [markdown]
# ### A position set up by hand: the worked example of docs/rules.md section 8
#
# `Game.from_deal` starts from any position at the start of a round. Here three
# players, trump spades; the rule book's table of decisions is replayed and the forced
# passes of seat 2 appear in the history without being asked.

# %%
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

# %% [markdown]
# ### Game records
#
# `game.to_record()` is a JSON-able dict: the rules, the dealt position and every
# move with its seat (forced moves included). `Game.from_record` replays it and checks
# it; `python -m durak_env.replay FILE` steps through a saved one, and
# `python -m agents.play` saves one for every game you play.

# %%
import json

from durak_env.records import dumps

record = game.to_record(meta={"note": "random moves"})
print(dumps(record)[:700], "...")
again = Game.from_record(json.loads(json.dumps(record)))
assert again.history == game.history and again.rewards == game.rewards

# %% [markdown]
# A few statistics over random games: how long a game lasts, and who ends up the durak.

# %%
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

# %% [markdown]
# ## 3. The PettingZoo AEC environment
#
# `durak_env.env(**rules)` is a standard PettingZoo AEC environment (`durak_v0`).
# Each agent sees `{"observation", "action_mask"}`. Here three of the baseline
# players from `agents` play a perevodnoy game; any agent spec string works
# (`"ismcts:iterations=200"`, `"ppo:checkpoints/....pt"`).

# %%
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

# %% [markdown]
# ## 4. The vector environment
#
# `VectorEnv` steps many games in one numba call, each from the point of view of its
# seat to act (`info["to_act"]`). Finished games are reset in the same step
# (`AutoresetMode.SAME_STEP`); `rewards[g]` then holds every seat's final reward.

# %%
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

# %% [markdown]
# ## 5. The observation
#
# One flat float32 vector per seat, built from named pieces; seats are rotated so that
# the observer is always seat 0. The table below is generated from the code
# (`observation.layout_table`), so it cannot drift from it.

# %%
from durak_env import decode
from durak_env.observation import layout_table

rules3 = Rules(num_players=3)
display(Markdown(layout_table(rules3)))

# %%
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

# %% [markdown]
# ## 6. Rendering
#
# `Game` shows itself as HTML (above). In a terminal, `durak_env.term.render_terminal`
# prints the text renderer's picture (`durak_env.render_text`) with Unicode suits, in
# colour when writing to a terminal (red hearts and diamonds).

# %%
from durak_env.term import render_terminal

print(render_terminal(g, color=False))
print()
print(render_terminal(g, seat=seat, color=False))
