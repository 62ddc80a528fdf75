"""Tournament: who beats whom, by how much, with what certainty.

    python -m agents.tournament --agents expert,greedy,random --players 2 --games 10000

Design (paired deals, so that the luck of the deal cancels out):

- Two players: every pair of agents plays ``--games`` games, ``--games / 2`` deals
  each played twice with the seats swapped. Deal ``k`` is the same deck for
  every pair.
- More players: ``--games`` games in total, ``--games / n`` deals each played
  ``n`` times with the lineup rotated one seat at a time, so every agent of the
  lineup sits in every seat on the same deck. With ``K <= n`` agents the lineup of
  deal ``k`` is agents ``k, k+1, ...`` cyclically (an agent may hold several seats;
  each seat counts as one game of it); with ``K > n`` the lineups cycle through
  every ``n``-subset of the agents.

Per agent: games, losses (durak), wins, draws and rates with 95% Wilson intervals.
Per pair of agents, within the same games: games together, wins (the other one is
the durak), losses, and "draws" (neither is the durak: a drawn game, or with more
than two players a third player is the durak). Ratings: Bradley-Terry over the
decided pairwise results, fit by maximum likelihood, on the Elo scale with
standard errors from the Fisher information. With more than two players the durak
rate is the headline and the rating is read from the pairwise durak comparisons.

Every game is a ``durak_env.Game`` driven by ``observe(seat)``, ``action_mask()``
and ``step``. Deal seeds and agent RNGs are derived from ``--seed`` and the game's
index only, so the result is the same for any number of workers: worker processes
(``--workers``) or the CPUs of a Ray cluster (``--ray [ADDRESS]``, docs/cluster.md).

``--record N`` saves the first ``N`` games of the schedule as game records
(``durak_env.records``, the format ``python -m agents.play`` writes) in ``OUT/records/``;
``python -m durak_env.replay OUT/records/game_00000.json`` steps through one.
"""

# Modules: scheduling (who plays which deal in which seat), play (playing the schedule, in
# worker processes or as Ray tasks if asked), summary (tallies and ratings), report (tables,
# CSV, JSON, plots, game records) and cli (the command line; its --help prints this docstring).

from ..results import provenance
from .cli import main, parse_args, rules_from_args, split_specs
from .play import GameResult, play_game, run
from .report import format_tables, write_outputs, write_records
from .scheduling import Match, deal_seed, schedule
from .summary import Summary, Tally, Timing, summarize

__all__ = [
    "GameResult", "Match", "Summary", "Tally", "Timing", "deal_seed", "format_tables",
    "main", "parse_args", "play_game", "provenance", "rules_from_args", "run", "schedule",
    "split_specs", "summarize", "write_outputs", "write_records",
]
