"""Regenerate the generated parts of the docs: ``python scripts/gen_docs.py``.

Writes ``docs/agents.md`` and ``docs/results.md`` whole, the marked blocks of
``README.md``, ``docs/environments.md``, ``docs/cluster.md`` and ``checkpoints/README.md``,
and the site's copies of the two READMEs (``docs/index.md``, ``docs/checkpoints.md``, links
rewritten).
Everything comes from the code (``agents.registry``, ``durak_env.observation``, the AEC
module docstring) and from the committed tournament files
``docs/results/<name>/results.json``. ``--check`` writes nothing and exits 1 naming the
files that differ (``tests/test_docs.py`` runs it).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COMMAND = "python scripts/gen_docs.py"
RESULTS = ROOT / "docs" / "results"

# Result sets in the order docs/results.md shows them, with their headings; any other
# directory under docs/results/ follows, headed by its name.
TITLES = {
    "2p_heuristics": "Two players: the heuristics",
    "2p_ppo": "Two players: the PPO policy alone",
    "2p_ppo_symmetries": "Two players: the PPO policy averaged over 6 suit renamings against "
                         "itself as trained",
    "2p_ppo_solver": "Two players: the PPO policy with the exact end-game solver only",
    "2p_ppo_searches": "Two players: the PPO policy with the exact searches",
    "2p_ppo_searches_wider": "Two players: the PPO policy with wider and deeper searches",
    "2p_ppo_ismcts": "Two players: the PPO policy with the exact searches against ismcts",
    "2p_ismcts": "Two players: ISMCTS against expert",
    "2p_openspiel_ismcts": "Two players: OpenSpiel's IS-MCTS against ismcts, 0.25 s a move each",
    "2p_perevodnoy_heuristics": "Two players, perevodnoy: the heuristics",
    "2p_perevodnoy_ppo": "Two players, perevodnoy: the PPO policy alone",
    "4p_heuristics": "Four players: the heuristics",
    "3p_ppo": "Three players: the PPO policy alone among the heuristics",
    "4p_ppo": "Four players: the PPO policy alone among the heuristics",
}
# The README's headline rows: (result set, agent, opponent); rows whose file is missing
# are left out.
HEADLINE = [
    ("2p_heuristics", "expert", "card_counting"),
    ("2p_ismcts", "ismcts", "expert"),
    ("2p_ppo_searches", "ppo:path=checkpoints/ppo_2p_podkidnoy.pt,endgame_nodes=50000,pimc_talon=3",
     "expert"),
    ("2p_ppo", "ppo:checkpoints/ppo_2p_podkidnoy.pt", "expert"),
    ("2p_ppo", "ppo:checkpoints/ppo_2p_podkidnoy.pt", "random"),
]
# The shipped checkpoints, each with a model card in checkpoints/README.md.
CHECKPOINTS = ("ppo_2p_podkidnoy", "ppo_2p_perevodnoy", "ppo_3p_podkidnoy", "ppo_4p_podkidnoy")


# ---------------------------------------------------------------- marked blocks


def _begin(name: str) -> str:
    return f"<!-- generated: {name} ({COMMAND}) -->"


END = "<!-- end generated -->"


def fill_blocks(text: str, blocks: dict[str, str], where: str) -> str:
    """Replace the body of each ``<!-- generated: NAME ... -->`` block by ``blocks[NAME]``."""
    for name, body in blocks.items():
        begin = _begin(name)
        start = text.find(begin)
        if start < 0:
            raise ValueError(f"{where}: missing marker {begin!r}")
        end = text.find(END, start)
        if end < 0:
            raise ValueError(f"{where}: block {name!r} has no {END!r}")
        text = text[:start] + begin + "\n" + body.strip("\n") + "\n" + text[end:]
    return text


# ---------------------------------------------------------------- results tables


def _pct(rate, lo, hi) -> str:
    return f"{100 * rate:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _rules_text(rules: dict) -> str:
    from durak_env import Rules

    default = Rules(num_players=rules["num_players"]).to_dict()
    text = f"{rules['num_players']} players, {rules['deck_size']} cards, {rules['variant']}"
    extra = [f"`{k}={v}`" for k, v in rules.items()
             if k not in ("num_players", "deck_size", "variant") and v != default[k]]
    return text + ("".join(", " + e for e in extra))


def load_results() -> dict[str, dict]:
    """Every committed results.json, in the order of TITLES, then by name."""
    found = {p.parent.name: p for p in sorted(RESULTS.glob("*/results.json"))}
    order = [n for n in TITLES if n in found] + [n for n in found if n not in TITLES]
    return {n: json.loads(found[n].read_text()) for n in order}


def provenance(res: dict) -> str:
    c = res["config"]
    return (f"```bash\n{c['command']}\n```\n\n"
            f"Commit `{c['commit']}`, {c['date']}; {_rules_text(c['rules'])}; "
            f"{c['played']} games, seed {c['seed']}."
            + (f" {c['note'][0].upper()}{c['note'][1:]}." if c.get("note") else ""))


def _agent_order(res: dict) -> list[str]:
    return list(res["config"]["agents"])


def pair_rows(res: dict) -> list[dict]:
    """Each pair once, the agent listed first in the command as ``agent``."""
    order = _agent_order(res)
    return [p for p in res["pairs"] if order.index(p["agent"]) < order.index(p["opponent"])]


def pair_table(pairs: list[dict], label: bool = False) -> str:
    head = "| A | B | games | wins | losses | draws | A's win % [95% CI] |"
    rows = [head, "|---|---|---|---|---|---|---|"]
    for p in pairs:
        rows.append(f"| `{p['agent']}` | `{p['opponent']}` | {p['games']} | {p['wins']} | "
                    f"{p['losses']} | {p['draws']} | "
                    f"{_pct(p['win_rate'], p['win_rate_lo'], p['win_rate_hi'])} |")
    return "\n".join(rows)


def _ms(a: dict) -> str:
    return f"{a['ms_per_move']:.2f} | {a['max_ms_per_move']:.0f}"


def agent_table(res: dict) -> str:
    """Per agent: the win rate with two players, the durak rate with more."""
    agents = res["agents"]
    if res["config"]["rules"]["num_players"] == 2:
        rows = ["| agent | games | win % [95% CI] | Elo ± SE | ms/move | max ms |",
                "|---|---|---|---|---|---|"]
        for a in agents:
            rows.append(f"| `{a['agent']}` | {a['games']} | "
                        f"{_pct(a['win_rate'], a['win_rate_lo'], a['win_rate_hi'])} | "
                        f"{a['elo']:.0f} ± {a['elo_se']:.0f} | {_ms(a)} |")
    else:
        rows = ["| agent | games | durak | durak % [95% CI] | Elo ± SE | ms/move | max ms |",
                "|---|---|---|---|---|---|---|"]
        for a in sorted(agents, key=lambda a: a["durak_rate"]):
            rows.append(f"| `{a['agent']}` | {a['games']} | {a['losses']} | "
                        f"{_pct(a['durak_rate'], a['durak_rate_lo'], a['durak_rate_hi'])} | "
                        f"{a['elo']:.0f} ± {a['elo_se']:.0f} | {_ms(a)} |")
    return "\n".join(rows)


RESULTS_HEAD = f"""<!-- generated by {COMMAND} from docs/results/*/results.json; do not edit -->
# Results

Every table on this page is rendered from a committed tournament file
`docs/results/<name>/results.json`, written by `python -m agents.tournament`, and
carries the command, commit and date that produced it. To add or refresh a result, run
the command with `--out docs/results/<name>`, keep only `results.json`, and run
`{COMMAND}`.

Tournaments play paired deals: every deal in every seating, so the luck of the deal
cancels out. With two players the headline is the win rate over decided games with a
95% Wilson interval; with more players it is the durak rate (lower is better; a seat
that loses at random is the durak `1/n` of the time). Elo is a Bradley-Terry rating on
the Elo scale with its standard error; `ms/move` is the mean time per decision and
`max ms` the longest (an agent's first game in each worker, where numba loads compiled
code, is left out of the longest).

A tournament writes a terminal table, `results.json`, CSV files, a win-rate heatmap and
a rating plot to `--out` (default `runs/tournament_<time>/`); `--record N` also saves
the first N games as JSON game records (`OUT/records/game_00000.json`, ..., listed in
`results.json`) for `python -m durak_env.replay`. `max_time` and other time limits
make a searching agent's play depend on the machine's speed; the tables record each
run as it was.
"""


def results_page(results: dict[str, dict]) -> str:
    parts = [RESULTS_HEAD]
    if not results:
        parts.append("No result files are committed yet.\n")
    for name, res in results.items():
        parts.append(f"## {TITLES.get(name, name)}\n")
        parts.append(provenance(res) + "\n")
        if res["config"]["rules"]["num_players"] == 2:
            parts.append(pair_table(pair_rows(res)) + "\n")
            parts.append("Per agent, over all its games:\n")
        parts.append(agent_table(res) + "\n")
    return "\n".join(parts)


def _find_pair(res: dict, agent: str, opponent: str) -> dict | None:
    for p in res["pairs"]:
        if p["agent"] == agent and p["opponent"] == opponent:
            return p
    return None


def _provenance_list(names: list[str], results: dict[str, dict], prefix: str) -> str:
    lines = []
    for n in names:
        c = results[n]["config"]
        note = f"; {c['note']}" if c.get("note") else ""
        lines.append(f"- `{n}`: `{c['command']}` (commit `{c['commit']}`, {c['date']}{note})")
    return prefix + "\n\n" + "\n".join(lines) if lines else ""


def headline_table(results: dict[str, dict], link: str) -> str:
    """A few two-player rows; their commands, commits and dates are on the results page."""
    pairs = [p for name, agent, opponent in HEADLINE
             if name in results and (p := _find_pair(results[name], agent, opponent))]
    if not pairs:
        return f"No results committed yet; see [Results]({link})."
    return (pair_table(pairs) + "\n\n"
            + f"Two players, 36 cards, podkidnoy, paired deals; win rate over decided games "
              f"with a 95% Wilson interval. Rendered from the tournament files on "
              f"[the results page]({link}), which gives each one's command, commit and date.")


def _uses(spec: str, name: str) -> bool:
    path = f"checkpoints/{name}.pt"
    return spec == f"ppo:{path}" or spec.startswith(f"ppo:path={path}")


def _redrawn(fit: dict) -> int:
    """Positions read back with ``--data`` whose held-out split ``fit`` drew anew, so that
    its held-out ones may have been trained on by an earlier fit (none for a fresh expert,
    ``--replace``; reports from before the split was saved drew all of them anew)."""
    if fit.get("replaced"):
        return 0
    return fit.get("prior_split_redrawn", fit.get("prior_positions", 0))


def _cut_setting(cfg: dict) -> tuple[int, str] | None:
    """The end-game cut of a checkpoint's fine-tuning and the setting that made it."""
    for section, key in (("endgame", "finetune_cut_nodes"), ("ppo", "endgame_cut_nodes")):
        if nodes := cfg.get(section, {}).get(key):
            return nodes, f"{section}.{key}"
    return None


def _card_facts(name: str, data: dict) -> list[str]:
    cfg, net = data.get("config", {}), data["network"]
    hours = data.get("elapsed", 0.0) / 60
    im = data.get("imitation")
    critic = ("its own MLP " + "-".join(map(str, net.get("critic_hidden", [])))
              + " over the global state" if net.get("critic") == "global" else "the same trunk")
    size = (ROOT / "checkpoints" / f"{name}.pt").stat().st_size / 1e6
    rows = [
        f"| file | `checkpoints/{name}.pt` ({size:.1f} MB) |",
        f"| config | `configs/{name}.yaml`; the run's resolved config: `checkpoints/{name}.yaml` |",
        f"| rules | {_rules_text(data['rules'])} |",
        f"| network | MLP {'-'.join(map(str, net['hidden']))}, {net['activation']}, "
        f"{net['head']} head; value head on {critic}"
        + (f"; it plays the mean of its log-probabilities over {n} suit renamings of each "
           f"position (`network.policy_symmetries`, at play time only)"
           if (n := net.get("policy_symmetries", 1)) > 1 else "") + " |",
    ]
    eg = data.get("endgame")
    if im:
        rows.append(f"| imitation | {im['positions']:,} teacher positions "
                    f"({im.get('searched_share', 0):.0%} labelled by the searches); held-out "
                    f"agreement {im['agreement']:.3f} (chance {im['chance']:.3f}) |")
    sp = cfg.get("selfplay", {})
    rows += [
        f"| PPO | against itself {sp.get('self_share')}, its snapshot pool "
        f"{sp.get('pool_share')}, {', '.join(sp.get('heuristics', []))} "
        f"{sp.get('heuristic_share')}; KL toward the clone {cfg.get('ppo', {}).get('kl_coef')}, "
        f"distillation weight {cfg.get('distill', {}).get('coef')} |",
        f"| steps | {data.get('global_step', 0):,} environment steps ({data.get('update', 0)} "
        f"updates) of the config's {cfg.get('ppo', {}).get('total_timesteps', 0):,}"
        + (f" + {ft:,} of fine-tuning" if (ft := cfg.get("endgame", {}).get(
            "finetune_timesteps", 0)) else "") + " |",
        f"| wall time | {hours:.0f} minutes of training (imitation"
        + (" and the end-game stage" if _stage_timed(data, _evals(name)) else "")
        + " included, evaluations not) |",
    ]
    if eg:
        ecfg, fits = cfg.get("endgame", {}), _fits(eg)
        talon = net.get("endgame_talon")
        # the first fit on record went on from an expert fitted before it, whose fits the
        # report does not keep (a chain of commands: the model card's trained by lists them)
        earlier = "--refit" in (fits[0].get("command") or "").split()
        texts = [_fit_text(f, talon, ecfg.get("opponent")) for f in fits]
        rows.append(
            "| end-game expert | a second trunk and head "
            + (f"(MLP {'-'.join(map(str, own))}"
               + (")" if earlier else ", from fresh weights)")
               if (own := net.get("endgame_hidden")) not in (None, net["hidden"])
               else "of the same shape") + " for positions with "
            f"at most {talon} talon card(s), "
            + ("fitted by earlier commands (trained by) and then refitted" if earlier
               else "fitted")
            + (f" to {texts[0]}" if len(texts) == 1 else
               f" in {len(texts)} fits, one after another: to " + "; then to ".join(texts))
            + (" (the last fit drew anew which positions read back with `--data` it held out, "
               "so they may include some an earlier fit trained on: "
               "[training](../docs/training.md))"
               if _redrawn(eg) else "") + "; "
            f"{_minutes(fits):.0f} minutes"
            + ("; it reads each position with its dead ranks packed below the live ones "
               "(`network.endgame_pack_ranks`)" if net.get("endgame_pack_ranks") else "")
            + (f"; it plays the mean of its log-probabilities over {n} suit renamings of "
               f"each position (`network.endgame_symmetries`)"
               if (n := net.get("endgame_symmetries", 1)) > 1 else "") + " |")
    ecfg = cfg.get("endgame", {})
    prov_cmds = (data.get("provenance") or {}).get("commands", [])
    if eg and ecfg.get("finetune_timesteps"):
        rows.append(
            f"| fine-tuning | {ecfg['finetune_timesteps']:,} PPO steps after the end-game stage "
            f"with the expert frozen"
            + (", the heuristic opponents handing it their end game" if ecfg.get("handoff")
               else "")
            + (f"; each game cut at its first end game the solver settles within "
               f"{cut[0]:,} nodes a move, and scored by its solved value (`{cut[1]}`)"
               if (cut := _cut_setting(cfg)) else "")
            + f"; learning rate {ecfg.get('finetune_lr')}"
            + (" decayed linearly to 0 over them" if cfg.get("ppo", {}).get("anneal_lr")
               else "")
            + (f" (the settings of the last fine-tuning, `{name}.yaml`; the commands under "
               f"trained by set each step's own)"
               if sum("agents.finetune" in c for c in prov_cmds) > 1 else "") + " |")
    m = data.get("machine")
    if m:
        rows.append(f"| machine | {m['cpus']} CPU cores, {'a' if m['gpu'] else 'no'} GPU; "
                    f"torch {m['torch']}, numba {m['numba']}, Python {m['python']} |")
    tuned = (ROOT / "checkpoints" / f"{name}_finetune_curves.png").is_file()
    rows.append(f"| curves | `checkpoints/{name}_curves.png`"
                + (f" (PPO), `checkpoints/{name}_finetune_curves.png` (fine-tuning)" if tuned
                   else "") + f", time to strength: `checkpoints/{name}_strength.png` (from "
                f"`{name}_evals.jsonl`) |")
    prov = data.get("provenance")
    if prov:
        cmds = "; then ".join(f"`{c}`" for c in prov["commands"]) or "not recorded"
        later = "".join(f"; `--update` at commit `{c}`" for c in prov.get("updated", []))
        rows.append(f"| trained by | {cmds} (shipped at commit `{prov['commit']}`{later}) |")
    return ["| | |", "|---|---|", *rows]


def _evals(name: str) -> list[dict]:
    """The committed evaluations of checkpoint ``name`` (none if it has no file)."""
    path = ROOT / "checkpoints" / f"{name}_evals.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _stage_timed(data: dict, evals: list[dict]) -> bool:
    """Whether the training clock (``elapsed``) of a checkpoint counts its end-game stage:
    a stage run inside ``train.py`` (one fit) shows as a jump of at least its seconds
    between the last evaluation before the fine-tuning and the first one in it."""
    eg = data.get("endgame")
    ft = data.get("config", {}).get("endgame", {}).get("finetune_timesteps", 0)
    if not (eg and ft) or len(_fits(eg)) != 1:
        return False
    start = data.get("global_step", 0) - ft
    done = [e for e in evals if e.get("detail")]
    before = [e for e in done if e["global_step"] <= start]
    after = [e for e in done if e["global_step"] > start]
    return bool(before and after and after[0]["elapsed"] - before[-1]["elapsed"] >= eg["seconds"])


def _finetune_note(name: str, evals: list[dict]) -> str:
    """For a checkpoint fine-tuned after its end-game stage: from which row on the table is
    the fine-tuning, and that the stage's own minutes are not in the minutes column."""
    data = _checkpoint(name)
    if data is None:
        return ""
    ft = data.get("config", {}).get("endgame", {}).get("finetune_timesteps", 0)
    eg = data.get("endgame")
    if not (ft and eg):
        return ""
    start = data.get("global_step", 0) - ft
    first = next((e for e in evals if e.get("detail") and e["global_step"] > start), None)
    if first is None:
        return ""
    fits = _fits(eg)
    head = (f"From update {first['update']} on, `{name}`'s rows are the PPO fine-tuning "
            f"after the end-game stage (its expert fitted and frozen). ")
    if _stage_timed(data, evals):
        return head + (f"The minutes column includes the stage's {_minutes(fits):.0f} minutes "
                       f"of labelling and fitting: the rows time the recipe from scratch.")
    return head + (f"The stage's own time is not in the minutes column ({_minutes(fits):.0f} "
                   f"minutes of labelling and fitting in the {len(fits)} fit(s) its report "
                   f"keeps, model card), so those rows do not time the recipe from scratch.")


def strength_section() -> str:
    """The time-to-strength table of every shipped checkpoint with committed evaluations."""
    from agents.strength import table

    parts = []
    for name in CHECKPOINTS:
        if not (evals := _evals(name)):
            continue
        parts += [f"`{name}` (`checkpoints/{name}_evals.jsonl`):\n",
                  table([e for e in evals if e.get("detail")],
                        ["random", "expert_rules", "expert"]) + "\n"]
        if (note := _finetune_note(name, evals)):
            parts.append(note + "\n")
    if not parts:
        return "No evaluations committed yet (`checkpoints/NAME_evals.jsonl`)."
    return "\n".join(parts) + (
        "\nWin rates of the greedy policy alone (games in brackets; `expert` plays the same "
        "deals at every evaluation; with 3 and 4 players, a win is not being the durak, "
        "against the opponent in every other seat); minutes of training, imitation "
        "included, evaluations not.")


# The 2-player podkidnoy recipe run from scratch in one command (point 11 of the learned
# player's issue), finished: its committed run directory under checkpoints/in_progress/
# (the command in its command.txt) and the tournament of its final policy against expert.
RECIPE_RUNS = [
    ("run_2026-12-07", "tournament_vs_expert.json"),
    ("run_2026-12-05", "tournament_final_vs_expert.json"),
    ("fast_recipe", "tournament_vs_expert.json"),
    ("cheap_labels", "tournament_vs_expert.json"),
    ("deep_recipe", "tournament_vs_expert.json"),
    ("deep_fit_recipe", "tournament_vs_expert.json"),
    ("threaded_recipe", "tournament_vs_expert.json"),
    ("solver_recipe", "tournament_vs_expert.json"),
    ("pimc32_recipe", "tournament_vs_expert.json"),
    ("dagger_recipe", "tournament_vs_expert.json"),
    ("cut_recipe", "tournament_vs_expert.json"),
]
RECIPE_DIR = ROOT / "checkpoints" / "in_progress" / "ppo_2p_podkidnoy"
RECIPE_TARGET = 0.55


def recipe_section() -> str:
    """The from-scratch runs of the 2-player recipe: minutes to 55% against expert, from
    their committed evaluations, and their final tournament against expert."""
    from agents.strength import first_reaching, read_evals

    rows = [f"| run | command | minutes of training | first evaluation at {RECIPE_TARGET:.0%} "
            "vs expert (games) | final vs expert, paired deals [95% CI] |", "|---|---|---|---|---|"]
    for name, tour in RECIPE_RUNS:
        run = RECIPE_DIR / name
        if not (run / "evals.jsonl").is_file():
            continue
        command = (run / "command.txt").read_text().strip()
        evals = read_evals(run / "evals.jsonl")
        hit = first_reaching(evals, "expert", RECIPE_TARGET)
        if hit is None:
            best = max(evals, key=lambda e: e.get("expert", 0))
            reached = (f"not reached (best {100 * best['expert']:.1f}%, "
                       f"{best['detail']['expert']['games']} games)")
        else:
            reached = (f"{hit['elapsed'] / 60:.1f} minutes, update {hit['update']} "
                       f"({hit['detail']['expert']['games']} games)")
        final = "not measured"
        if (run / tour).is_file():
            res = json.loads((run / tour).read_text())
            pair = next(x for x in res["pairs"] if x["opponent"] == "expert")
            final = (f"{_pct(pair['win_rate'], pair['win_rate_lo'], pair['win_rate_hi'])} "
                     f"({pair['games']:,} games, seed {res['config']['seed']}, commit "
                     f"`{res['config']['commit']}`)")
        minutes = f"{evals[-1]['elapsed'] / 60:.1f}"
        if (run / "stopped.json").is_file():  # a run stopped by hand before its config's end
            stop = json.loads((run / "stopped.json").read_text())
            minutes += (f" at its last evaluation; stopped by hand at update {stop['update']}, "
                        f"{stop['minutes']:.1f} minutes, whose checkpoint the final column plays")
        rows.append(f"| `{name}/` | `{command}` | {minutes} | {reached} | {final} |")
    if len(rows) == 2:
        return "No from-scratch run is committed under `checkpoints/in_progress/ppo_2p_podkidnoy/`."
    return "\n".join(rows) + (
        "\n\nMinutes count training only (evaluations not), imitation and end-game stage "
        "included; each run ran on the 2-core machine alone but where its section of the "
        "README below says otherwise (some resumed across sessions with `train.py --resume`). "
        "The first-evaluation column reads the run's own evaluations, "
        "whose games against `expert` are few (200 games give a 95% interval of about 7 points "
        "either side); the 55% target is measured on the paired deals of the last column. "
        "Each command reads `configs/ppo_2p_podkidnoy.yaml` as it stood when the run "
        "started, and each run's `config.yaml` holds every setting it ran with: on "
        "2026-12-07 the config took the settings the shipped chain of commands ended with "
        "(a deeper end-game expert, wider labels, 4 rounds, 60M fine-tuning steps), so the "
        "same command on today's config runs longer. "
        "The runs, their configs and what was tried in between are in "
        "`checkpoints/in_progress/ppo_2p_podkidnoy/README.md`.")


RAY_SPS = RESULTS / "ray_train_sps.json"


def ray_sps_section() -> str:
    """Local rollouts against Ray actors, from docs/results/ray_train_sps.json."""
    if not RAY_SPS.exists():
        return "No `docs/results/ray_train_sps.json` is committed yet."
    res = json.loads(RAY_SPS.read_text())
    note = f" {res['note'][0].upper()}{res['note'][1:]}." if res.get("note") else ""
    rows = [f"```bash\n{res['command']}\n```\n",
            f"Commit `{res['commit']}`, {res['date']}; {res['cpus']} CPUs.{note}\n",
            "| rollouts | steps | median SPS | env / inference / bookkeeping / update "
            "| vs random [95% CI] | load average before, after |", "|---|---|---|---|---|---|"]
    for r in res["runs"]:
        share = " / ".join(f"{100 * v:.0f}%" for v in r["time_share"].values())
        ev, who = r["random"], f"{r['actors']} Ray actors" if r["actors"] else "local"
        rows.append(f"| {who} | "
                    f"{r['global_step']:,} | {r['sps_median']:,.0f} | {share} | "
                    f"{_pct(ev['winrate'], *ev['ci95'])} ({ev['games']}) | "
                    f"{r['load_before'][0]:.1f}, {r['load_after'][0]:.1f} |")
    rows.append(f"\nSPS ratio, actors to local: {res['sps_ratio']:.2f}.")
    return "\n".join(rows)


def model_cards(results: dict[str, dict]) -> str:
    """One card per shipped checkpoint: facts read from the file, results from the
    committed tournaments that play it."""
    parts = []
    for name in CHECKPOINTS:
        parts.append(f"## `{name}.pt`\n")
        data = _checkpoint(name)
        if data is None:
            parts.append(f"Not trained yet: `python train.py --config configs/{name}.yaml`.\n")
            continue
        parts.append("\n".join(_card_facts(name, data)) + "\n")
        sets = [n for n, res in results.items()
                if any(_uses(a, name) for a in res["config"]["agents"])]
        for n in sets:
            res = results[n]
            if res["config"]["rules"]["num_players"] == 2:
                pairs = []
                for p in res["pairs"]:  # two settings of one checkpoint: the first row only
                    if _uses(p["agent"], name) and not any(
                            (q["agent"], q["opponent"]) == (p["opponent"], p["agent"])
                            for q in pairs):
                        pairs.append(p)
                parts.append(pair_table(pairs) + "\n")
            else:
                parts.append(agent_table(res) + "\n")
        parts.append(_provenance_list(sets, results, "From `docs/results/` (see "
                                      "`docs/results.md`):") if sets else
                     "No committed tournament plays it yet.")
        parts.append("")
    return "\n".join(parts)


# ---------------------------------------------------------------- benchmarks


BENCH = RESULTS / "bench.json"


def env_tables(env: dict) -> list[str]:
    """The environment figures: each measurement's steps/s, and the num_envs sweep."""
    parts = ["| measurement | steps/s | steps per CPU-second |", "|---|---|---|"]
    parts += [f"| `{k}` | {_num(v['steps_per_s'])} | {_num(v['steps_per_cpu_s'])} |"
              for k, v in env.items() if isinstance(v, dict) and "steps_per_s" in v]
    sweep = [r for v in env.values() if isinstance(v, list) for r in v]
    sizes = sorted({r["num_envs"] for r in sweep})
    if sweep:
        parts += ["", "`VectorEnv` steps/s by `num_envs`:", "",
                  "| threads | " + " | ".join(str(n) for n in sizes) + " |",
                  "|---|" + "---|" * len(sizes)]
        for t in sorted({r["threads"] for r in sweep}):
            by = {r["num_envs"]: r["steps_per_s"] for r in sweep if r["threads"] == t}
            parts.append(f"| {t} | " + " | ".join(_num(by.get(n, "")) for n in sizes) + " |")
    return parts


def _num(v) -> str:
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.2f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def bench_section() -> str:
    """The tables of docs/benchmarks.md, from docs/results/bench.json."""
    if not BENCH.exists():
        return "No `docs/results/bench.json` is committed yet."
    wrapped = json.loads(BENCH.read_text())
    res = wrapped["result"]
    note = f" ({wrapped['note']})" if wrapped.get("note") else ""
    parts = [f"```bash\n{wrapped['command']}\n```\n",
             f"Commit `{wrapped['commit']}`, {wrapped['date']}; {res['machine']['cpus']} CPUs, "
             f"{res['machine']['numba_threads']} numba threads{note}.\n",
             "| configuration | games/s, 1 thread | decisions/s, 1 thread | games/s, all threads "
             "| scaling |", "|---|---|---|---|---|"]
    for name, r in res.items():
        if isinstance(r, dict) and "games_per_s_1thread" in r:
            parts.append(f"| `{name}` | {_num(r['games_per_s_1thread'])} | "
                         f"{_num(r['decisions_per_s_1thread'])} | "
                         f"{_num(r['games_per_s_all_threads'])} | "
                         f"{r['scaling_all_threads']:.2f}x |")
    parts.append(f"\nMachine ceiling (a loop that touches no memory): "
                 f"{res['machine']['scaling_arithmetic']:.2f}x. Cold compile "
                 f"{res['compile_s_cold']:.1f} s; import and first game with a warm cache "
                 f"{res['import_and_first_game_s_cached']:.2f} s.")
    ref = res.get("2p_podkidnoy", {}).get("reference_games_per_s")
    if ref:
        parts.append(f"Plain-Python reference: {_num(ref)} games/s "
                     f"({res['2p_podkidnoy']['speedup_vs_reference']:,.0f}x slower).")
    if "env" in res:
        parts += ["\nEnvironments (random legal actions; the AEC env through "
                  "`durak_env.env()`, actions drawn in Python):\n", *env_tables(res["env"])]
    return "\n".join(parts)


def _wrapped_head(data: dict) -> list[str]:
    """The command block and the "Commit `...`, date (note)." line of a result file that
    wraps its figures with the command, commit and date that produced them."""
    note = f" ({data['note']})" if data.get("note") else ""
    return [f"```bash\n{data['command']}\n```\n",
            f"Commit `{data['commit']}`, {data['date']}{note}.\n"]


def solver_section() -> str:
    """docs/benchmarks.md's solver table, from docs/results/solver_bench.json
    (``python -m agents.solver_bench --json``)."""
    path = RESULTS / "solver_bench.json"
    if not path.exists():
        return "No `docs/results/solver_bench.json` is committed yet."
    data = json.loads(path.read_text())
    r = data["result"]
    rows = [*_wrapped_head(data),
            f"{_num(r['label']['positions'])} positions, node cap {_num(r['nodes_cap'])} "
            "per move.\n",
            "| mode | positions/s | nodes | nodes/s | proven |", "|---|---|---|---|---|"]
    rows += [f"| {mode} | {_num(float(r[mode]['positions_per_s']))} | {_num(r[mode]['nodes'])} | "
             f"{_num(r[mode]['nodes_per_s'])} | {100 * r[mode]['proven']:.1f}% |"
             for mode in ("label", "play")]
    return "\n".join(rows)


def train_sps_section() -> str:
    """docs/training.md's table of SPS with and without distillation, from
    docs/results/train_sps.json (``python scripts/bench_train.py``)."""
    path = RESULTS / "train_sps.json"
    if not path.exists():
        return "No `docs/results/train_sps.json` is committed yet."
    data = json.loads(path.read_text())
    rows = [*_wrapped_head(data),
            "| variant | SPS (median) | steps | seconds | time split |", "|---|---|---|---|---|"]
    rows += [f"| {name} | {_num(r['sps_median'])} | {_num(r['steps'])} | {r['seconds']} | "
             f"{r['time_split']} |" for name, r in data["result"].items()]
    return "\n".join(rows)


def audit_section() -> str:
    """docs/training.md's end-game audits of the shipped two-player policy, one per
    docs/results/endgame_audit*.json (``python -m agents.endgame_audit ... --json``)."""
    import re

    from agents.stats import wilson

    paths = sorted(RESULTS.glob("endgame_audit*.json"))
    if not paths:
        return "No `docs/results/endgame_audit.json` is committed yet."
    head = ["| opponent | games | policy's wins | end-game decisions with a choice | not solved "
            "(node cap) | blunders [95% CI] | of which a win turned into a loss | games "
            "entered with a proven win | of those lost | entered with a proven loss |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    cmds, rows, ceilings = [], [], []
    for path in paths:
        data = json.loads(path.read_text())
        r = data["result"]
        lo, hi = wilson(r["blunders"], max(r["choices"], 1))
        rate = r["blunders"] / max(r["choices"], 1)
        m = re.search(r"--opponent (\S+)", data["command"])
        cmds.append(f"```bash\n{data['command']}\n```\n\nCommit `{data['commit']}`, "
                    f"{data['date']}.\n")
        rows.append(
            f"| `{m.group(1) if m else 'expert_rules'}` | {_num(r['games'])} | "
            f"{_num(r['wins'])} | {_num(r['choices'])} | {_num(r['unsolved'])} | "
            f"{100 * rate:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}] | {_num(r['win_to_loss'])} | "
            f"{_num(r['entered_won'])} | {_num(r['entered_won_lost'])} | "
            f"{_num(r['entered_lost'])} |")
        if m and m.group(1) == "expert":  # it never gives away its own proven wins
            unknown = r["games"] - r["entered_won"] - r["entered_lost"]
            ceilings.append(
                f"\nAgainst `expert`, a perfect end game from the first position with every "
                f"card placed would win at most {_num(r['entered_won'])} of "
                f"{_num(r['games'])} games ({100 * r['entered_won'] / r['games']:.1f}%; the "
                f"policy won {_num(r['wins'])}), plus some of the {_num(unknown)} others (a "
                f"proven draw there, or a first such position past the node cap): the "
                f"rest of the way to a higher score is played before the talon runs out.")
    return "\n".join([*cmds, *head, *rows, *ceilings])


@functools.cache
def _checkpoint(name: str) -> dict | None:
    """The shipped checkpoint ``checkpoints/NAME.pt`` as saved (None if not trained yet),
    loaded once for every section that reads it."""
    import torch

    path = ROOT / "checkpoints" / f"{name}.pt"
    if not path.is_file():
        return None
    return torch.load(path, map_location="cpu", weights_only=False)


def _talons(rounds: list[dict], talon: int) -> tuple[int, int]:
    """The fewest and most talon cards of the positions end-game rounds gathered: the
    talon sizes of their held-out blunders (``by_talon``), else 0 to the expert's ``talon``."""
    seen = sorted({int(t) for r in rounds for t in r.get("by_talon", {})})
    return (seen[0], seen[-1]) if seen else (0, talon)


def _span(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def _fit_text(fit: dict, talon: int, opponent) -> str:
    """One end-game fit for the model card: its positions, what labelled them, its games
    and its held-out blunders."""
    lo, hi = _talons(fit["rounds"], talon)
    if hi <= 1:
        labels = f"solved positions with {_span(lo, hi)} talon cards"
    elif lo >= 2:
        labels = f"positions with {_span(lo, hi)} talon cards labelled by the sampled search"
    else:
        labels = (f"positions labelled by the solver (talon {_span(lo, 1)}) and the sampled "
                  f"search (talon {_span(2, hi)})")
    # positions of earlier fits come back in a fit only through --data
    total, prior = fit["rounds"][-1]["positions"], fit.get("prior_positions", 0)
    return (f"{total - prior:,} {labels}"
            + (f" and {prior:,} read back with `--data` (solved by another run, or by an "
               f"earlier fit of this checkpoint)" if prior else "")
            + f" ({len(fit['rounds'])} round(s), {sum(r['games'] for r in fit['rounds']):,} "
            f"games against {opponent}; held-out blunders {100 * fit['blunders_before']:.2f}% "
            f"before, {100 * fit['blunders_after']:.2f}% after)")


def _minutes(fits: list[dict]) -> float:
    """Minutes of labelling and fitting of the end-game fits ``fits`` (``_fits``)."""
    return sum(f["seconds"] for f in fits) / 60


def _fits(rep: dict) -> list[dict]:
    """The end-game fits of a checkpoint's report, oldest first (``--refit`` keeps the
    earlier ones as ``previous``)."""
    return [*rep.get("previous", []), rep]


def endgame_section() -> str:
    """docs/training.md's end-game stage of each shipped checkpoint that has one, from
    the report stored in the checkpoint (``endgame``)."""
    rows = ["| checkpoint | round | talon | games | labelled positions (all rounds of the fit) "
            "| with a worse move | held-out positions | held-out blunders before | after "
            "| minutes |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    commands, notes = [], []
    for name in CHECKPOINTS:
        rep = (_checkpoint(name) or {}).get("endgame")
        if not rep:
            continue
        fits = _fits(rep)
        commands += [f"`{name}`: `{f['command']}`" if f.get("command") else
                     f"`{name}`: the end-game stage of its training run (model card, trained by)"
                     for f in fits]
        notes += [f"`{name}` fit {k}: its positions include {f['prior_positions']:,} solved in "
                  f"other runs and read back with `--data`" + (
                      f"; {redrawn:,} of them came from a file without its held-out split, "
                      f"which was drawn anew, so its held-out positions may include some "
                      f"an earlier fit was trained on" if redrawn else "")
                  for k, f in enumerate(fits, 1) if f.get("prior_positions")
                  for redrawn in [_redrawn(f)]]
        for i, r in enumerate((r for f in fits for r in f["rounds"]), 1):
            minutes = (r["play_seconds"] + r["solve_seconds"] + r["fit_seconds"]) / 60
            talon = _span(*_talons([r], r.get("talon", 1)))
            rows.append(f"| `{name}` | {i} | {talon} | {_num(r['games'])} | "
                        f"{_num(r['positions'])} | "
                        f"{100 * r['informative']:.0f}% | {_num(r['held_out'])} | "
                        f"{100 * r['blunders_before']:.2f}% | {100 * r['blunders_after']:.2f}% | "
                        f"{minutes:.0f} |")
            if r.get("by_talon"):
                by = ", ".join(f"talon {t}: {100 * b:.2f}% -> {100 * a:.2f}%"
                               for t, (b, a) in r["by_talon"].items())
                notes.append(f"`{name}` round {i}, held-out blunders by talon size: {by}")
    if not commands:
        return "No shipped checkpoint has an end-game expert yet."
    return "\n".join(["\n".join(f"- {c}" for c in commands) + "\n", *rows, "",
                      *(f"- {n}" for n in notes), *([""] if notes else []),
                      "Held-out blunders: the greedy move is not among the best, on the "
                      "positions of the held-out games of every round so far (both seats); "
                      "*before* is the expert at the start of the round (in round 1 a copy of "
                      "the main head, or fresh weights with a `network.endgame_hidden` of its "
                      "own)."])


def study_section() -> str:
    """docs/training.md's end-game learning study, from docs/results/endgame_study.json
    (``python scripts/endgame_study.py ... --json``)."""
    path = RESULTS / "endgame_study.json"
    if not path.exists():
        return "No `docs/results/endgame_study.json` is committed yet."
    data = json.loads(path.read_text())
    r = data["result"]
    rows = ["| training games | positions with a worse move | suit augmentation "
            "| held-out blunders |", "|---|---|---|---|",
            f"| (none: the checkpoint) | | | {100 * r['blunders_before']:.2f}% |"]
    for arm in r["arms"]:
        rows.append(f"| {100 * arm['share']:.0f}% | {_num(arm['train_positions'])} | "
                    f"{'yes' if arm['augment'] else 'no'} | {100 * arm['blunders']:.2f}% |")
    parts = [f"```bash\n{data['command']}\n```\n",
             f"Commit `{data['commit']}`, {data['date']}"
             f"{' (' + data['note'] + ')' if data.get('note') else ''}: "
             f"{_num(r['positions'])} solved "
             f"end-game decisions with a choice ({100 * r['informative']:.0f}% with a worse "
             f"move), {_num(r['held_out'])} of them from held-out games.\n", "\n".join(rows)]
    if "play" in r:
        play = ["", "| policy | games | vs expert_rules [95% CI] |", "|---|---|---|"]
        for name, label in (("checkpoint", "the checkpoint"),
                            ("fine_tuned", "last fine-tuned copy")):
            g = r["play"][name]
            play.append(f"| {label} | {_num(g['games'])} | {100 * g['rate']:.1f} "
                        f"[{100 * g['ci95'][0]:.1f}, {100 * g['ci95'][1]:.1f}] |")
        parts.append("\n".join(play))
    return "\n".join(parts)


RAY_BENCH = RESULTS / "ray_tournament.json"


def ray_bench_section() -> str:
    """The overhead table of docs/cluster.md, from docs/results/ray_tournament.json."""
    if not RAY_BENCH.exists():
        return "No `docs/results/ray_tournament.json` is committed yet."
    wrapped = json.loads(RAY_BENCH.read_text())
    res = wrapped["result"]
    cpus = res["cpus"]
    note = f" ({wrapped['note']})" if wrapped.get("note") else ""
    parts = [f"```bash\n{wrapped['command']}\n```\n",
             f"Commit `{wrapped['commit']}`, {wrapped['date']}; Ray {res['ray_version']}, "
             f"{cpus} CPUs{note}; 1-minute load average {res['load_average'][0]:.1f} "
             f"before, {res['load_average'][1]:.1f} after. `ray.init()` took "
             f"{res['ray_start_s']:.1f} s.\n",
             f"| agents | games | games/s, 1 process | games/s, `--workers {cpus}` "
             f"| games/s, `--ray`, first run | games/s, `--ray` | same games |",
             "|---|---|---|---|---|---|---|"]
    for r in res["lineups"].values():
        agents = ", ".join(f"`{a}`" for a in r["agents"])
        parts.append(f"| {agents} | {r['games']} | {_num(r['local_1_process'])} | "
                     f"{_num(r[f'local_{cpus}_processes'])} | {_num(r['ray_first_run'])} | "
                     f"{_num(r['ray'])} | {'yes' if r['identical'] else 'no'} |")
    return "\n".join(parts)


# ---------------------------------------------------------------- agents page


def _default(value) -> str:
    if value is inspect.Parameter.empty:
        return "required"
    if isinstance(value, float) and math.isinf(value):
        return "`inf`" if value > 0 else "`-inf`"
    return '`""`' if value == "" else f"`{value}`"


def split_args(doc: str) -> tuple[str, dict[str, tuple[tuple[str, ...], str]]]:
    """A Google-style docstring's text without its ``Args`` section, and the section's
    entries: parameter name -> (the names of its entry, text); ``a, b: text`` is one
    entry for both."""
    out, args, lines = [], {}, doc.splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^Args\b.*:$", lines[i]):
            i += 1
            entry: list[str] = []
            while i < len(lines) and (lines[i].startswith(" ") or not lines[i].strip()):
                line = lines[i]
                m = re.match(r"^ {4}([\w, ]+):\s*(.*)$", line)
                if m and not line.startswith("     "):
                    names = tuple(k.strip() for k in m.group(1).split(","))
                    entry = [names, m.group(2)]
                    for k in names:
                        args[k] = entry
                elif entry and line.strip():
                    entry[1] += " " + line.strip()
                elif not line.strip() and i + 1 < len(lines) and not lines[i + 1].startswith(" "):
                    break
                i += 1
            continue
        out.append(lines[i])
        i += 1
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out).strip())
    return text, {k: (v[0], v[1]) for k, v in args.items()}


def param_rows(params: dict[str, inspect.Parameter], args: dict) -> list[str]:
    """One row per docstring entry: parameters described together share a row."""
    rows, done = ["| parameter | default | meaning |", "|---|---|---|"], set()
    for k in params:
        if k in done:
            continue
        names = [n for n in args.get(k, ((k,), ""))[0] if n in params] or [k]
        done.update(names)
        meaning = args.get(k, ((), ""))[1].replace("|", "\\|")
        rows.append(f"| {', '.join(f'`{n}`' for n in names)} | "
                    f"{', '.join(_default(params[n].default) for n in names)} | {meaning} |")
    return rows


AGENTS_HEAD = f"""<!-- generated by {COMMAND} from agents.registry; do not edit -->
# Agents

Every agent implements `act(observation, action_mask, rng) -> action id` and
`reset()`, reads only its own observation and the mask, and is named by a spec string:
`name` or `name:key=value,key=value`, built by `agents.make_agent(spec, rules)`. The
parameters of a spec are the keyword-only parameters of the agent's class, each value
parsed as the type of its default (`none` is None where the parameter admits it).
`python -m agents.tournament --agents A,B,...` ranks any of them (see
[Results](results.md)).
"""


def agents_page() -> str:
    from agents.registry import POSITIONAL, REGISTRY, agent_params

    parts = [AGENTS_HEAD, "| spec | class |", "|---|---|"]
    parts += [f"| [`{n}`](#{n}) | `{p.replace(':', '.')}` |"
              for n, p in REGISTRY.items()]
    parts.append("")
    for name, path in REGISTRY.items():
        module, clsname = path.split(":")
        cls = getattr(importlib.import_module(module), clsname)
        text, args = split_args(inspect.getdoc(cls) or "")
        parts.append(f"## `{name}`\n")
        parts.append(f"Class `{module}.{clsname}`.")
        if name in POSITIONAL:
            parts.append(f"`{name}:VALUE` is short for `{name}:{POSITIONAL[name]}=VALUE`.")
        parts.append("")
        parts.append(text + "\n")
        params = agent_params(cls)
        if params:
            parts += param_rows(params, args)
        else:
            parts.append("No parameters.")
        parts.append("")
    return "\n".join(parts)


# ---------------------------------------------------------------- environments page


def aec_reference() -> str:
    """The AEC module docstring (PettingZoo's env-page format), headings one level up."""
    from durak_env import aec

    doc = inspect.cleandoc(aec.__doc__)
    doc = re.sub(r"^# Durak\n+", "", doc)
    return re.sub(r"^###", "##", doc, flags=re.M)


SIZE_RULES = [
    ("2 players, 36 cards, podkidnoy", {}),
    ("2 players, 36 cards, prostoy", {"variant": "prostoy"}),
    ("2 players, 36 cards, perevodnoy", {"variant": "perevodnoy"}),
    ("2 players, perevodnoy, `transfer_show_trump`",
     {"variant": "perevodnoy", "transfer_show_trump": True}),
    ("4 players, 36 cards, podkidnoy", {"num_players": 4}),
    ("2 players, 24 cards", {"deck_size": 24}),
    ("6 players, 52 cards", {"num_players": 6, "deck_size": 52}),
]


def sizes_table() -> str:
    from durak_env import ActionLayout, Rules, observation_size

    rows = ["| rules | actions | observation size |", "|---|---|---|"]
    for label, kw in SIZE_RULES:
        r = Rules(**kw)
        rows.append(f"| {label} | {ActionLayout.of(r).n} | {observation_size(r)} |")
    return "\n".join(rows)


# ---------------------------------------------------------------- site copies


def site_copy(text: str, source: str, links: dict[str, str]) -> str:
    """``text`` with its relative links rewritten for the docs site."""
    for old, new in links.items():
        text = text.replace(f"]({old}", f"]({new}")
    return f"<!-- copied from {source} by {COMMAND}; edit {source} -->\n" + text


README_LINKS = {"docs/": "", "checkpoints/README.md": "checkpoints.md"}
CARD_LINKS = {"../docs/": "", "ppo_2p_podkidnoy_curves.png": "ppo_2p_podkidnoy_curves.png"}


# ---------------------------------------------------------------- all outputs


GENERATED = ("README.md", "checkpoints/README.md", "docs/agents.md", "docs/benchmarks.md",
             "docs/checkpoints.md", "docs/cluster.md", "docs/environments.md", "docs/index.md",
             "docs/results.md", "docs/training.md")


def outputs() -> dict[Path, str]:
    """Every generated file's path (those of GENERATED) and its full expected content."""
    results = load_results()
    out = {
        ROOT / "docs" / "agents.md": agents_page(),
        ROOT / "docs" / "results.md": results_page(results),
    }
    readme = fill_blocks((ROOT / "README.md").read_text(),
                         {"headline": headline_table(results, "docs/results.md")}, "README.md")
    card = fill_blocks((ROOT / "checkpoints" / "README.md").read_text(),
                       {"cards": model_cards(results)}, "checkpoints/README.md")
    bench_page = ROOT / "docs" / "benchmarks.md"
    out[bench_page] = fill_blocks(bench_page.read_text(),
                                  {"bench": bench_section(), "solver": solver_section()},
                                  "docs/benchmarks.md")
    cluster_page = ROOT / "docs" / "cluster.md"
    out[cluster_page] = fill_blocks(cluster_page.read_text(), {"ray-bench": ray_bench_section()},
                                    "docs/cluster.md")
    train_page = ROOT / "docs" / "training.md"
    out[train_page] = fill_blocks(train_page.read_text(),
                                  {"strength": strength_section(),
                                   "recipes": recipe_section(),
                                   "train_sps": train_sps_section(),
                                   "ray_sps": ray_sps_section(),
                                   "audit": audit_section(),
                                   "endgame": endgame_section(),
                                   "study": study_section()}, "docs/training.md")
    env_page = ROOT / "docs" / "environments.md"
    out[env_page] = fill_blocks(env_page.read_text(),
                                {"sizes": sizes_table(), "aec": aec_reference()},
                                "docs/environments.md")
    out[ROOT / "README.md"] = readme
    out[ROOT / "checkpoints" / "README.md"] = card
    out[ROOT / "docs" / "index.md"] = site_copy(readme, "README.md", README_LINKS)
    out[ROOT / "docs" / "checkpoints.md"] = site_copy(card, "checkpoints/README.md", CARD_LINKS)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 naming the files that differ")
    args = ap.parse_args(argv)
    stale = []
    for path, text in outputs().items():
        text = text.rstrip("\n") + "\n"
        if not path.exists() or path.read_text() != text:
            stale.append(path.relative_to(ROOT).as_posix())
            if not args.check:
                path.write_text(text)
    if args.check and stale:
        print(f"out of date: {', '.join(stale)}; regenerate with `{COMMAND}`")
        return 1
    if stale:
        print(f"wrote {', '.join(stale)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
