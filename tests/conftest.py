"""What the tests of every layer run over: the rule sets and the agent lists, declared once.

Each rule set the tests use is declared once in ``RULES``, under a name that says how it
differs from the default game (two players, 36 cards, hands of six, podkidnoy, everyone
throws in); the lists below pick from it for what each group of tests must cover.
Test modules import them (``from tests.conftest import AGENT_RULE_SETS, rules_id``) and
pass ``ids=rules_id`` to ``pytest.mark.parametrize``, so a test id names its rule set.
"""

from __future__ import annotations

from durak_env import Rules

RULES: dict[str, Rules] = {
    # two players
    "2p": Rules(),
    "2p-prostoy": Rules(variant="prostoy"),
    "2p-perevodnoy": Rules(variant="perevodnoy"),
    "2p-perevodnoy-show": Rules(variant="perevodnoy", transfer_show_trump=True),
    "2p-24": Rules(deck_size=24),
    "2p-24-prostoy": Rules(deck_size=24, variant="prostoy"),
    "2p-24-hand3-first2": Rules(deck_size=24, hand_size=3, first_round_max_attack=2),
    "2p-52-perevodnoy": Rules(deck_size=52, variant="perevodnoy"),
    # three players
    "3p": Rules(num_players=3),
    "3p-neighbors": Rules(num_players=3, throw_in="neighbors"),
    "3p-prostoy-neighbors": Rules(num_players=3, variant="prostoy", throw_in="neighbors"),
    "3p-perevodnoy-show": Rules(num_players=3, variant="perevodnoy", transfer_show_trump=True),
    "3p-24-hand4": Rules(num_players=3, deck_size=24, hand_size=4),
    "3p-24-hand4-prostoy": Rules(num_players=3, deck_size=24, hand_size=4, variant="prostoy"),
    "3p-52": Rules(num_players=3, deck_size=52),
    "3p-52-hand8-max4": Rules(num_players=3, deck_size=52, hand_size=8, max_attack=4),
    # four players
    "4p-neighbors": Rules(num_players=4, throw_in="neighbors"),
    "4p-perevodnoy-show": Rules(num_players=4, variant="perevodnoy", transfer_show_trump=True),
    "4p-perevodnoy-show-neighbors": Rules(num_players=4, variant="perevodnoy",
                                          transfer_show_trump=True, throw_in="neighbors"),
    "4p-24-perevodnoy-show": Rules(num_players=4, deck_size=24, variant="perevodnoy",
                                   transfer_show_trump=True),
    "4p-52-hand5": Rules(num_players=4, deck_size=52, hand_size=5),
    "4p-52-perevodnoy-show": Rules(num_players=4, deck_size=52, variant="perevodnoy",
                                   transfer_show_trump=True),
    # five to eight players
    "5p-prostoy": Rules(num_players=5, variant="prostoy"),
    "5p-neighbors-first5": Rules(num_players=5, throw_in="neighbors", first_round_max_attack=5),
    "5p-52-perevodnoy-neighbors-max4": Rules(num_players=5, deck_size=52, variant="perevodnoy",
                                             throw_in="neighbors", max_attack=4),
    "6p": Rules(num_players=6),  # 36 cards: no talon, the trump card stays in a hand
    "6p-perevodnoy": Rules(num_players=6, variant="perevodnoy"),
    "8p-52": Rules(num_players=8, deck_size=52),
    "8p-52-neighbors-first5": Rules(num_players=8, deck_size=52, throw_in="neighbors",
                                    first_round_max_attack=5),
}

_NAMES = {rules: name for name, rules in RULES.items()}


def rule_sets(*names: str) -> list[Rules]:
    """The rule sets of ``RULES`` with these names, in this order."""
    return [RULES[name] for name in names]


def rules_id(rules: Rules) -> str:
    """A test id for ``rules``: its name in ``RULES``, else its field values."""
    if rules in _NAMES:
        return _NAMES[rules]
    return str(rules)


# Every variant and option, two to eight players: whole games by every agent.
EVERY_VARIANT = rule_sets(
    "2p", "2p-prostoy", "2p-perevodnoy", "2p-perevodnoy-show", "3p-neighbors",
    "4p-perevodnoy-show-neighbors", "5p-prostoy", "6p", "6p-perevodnoy", "2p-24",
    "4p-24-perevodnoy-show", "2p-52-perevodnoy", "8p-52-neighbors-first5", "3p-52-hand8-max4")

# One rule set per axis (transfers with the trump shown, neighbours, a 52-card deck) for
# checks that run every agent on many positions.
AGENT_RULE_SETS = rule_sets("2p", "2p-perevodnoy-show", "4p-neighbors", "3p-52")

# The tree searches and their numba playouts.
SEARCH_RULE_SETS = rule_sets(
    "2p", "3p", "4p-52-perevodnoy-show", "3p-24-hand4-prostoy", "5p-neighbors-first5",
    "2p-perevodnoy-show", "6p")

# The environments (AEC, vector) against each other and against the PettingZoo suites.
ENV_RULE_SETS = rule_sets(
    "2p", "4p-perevodnoy-show", "3p-prostoy-neighbors", "6p", "8p-52", "2p-24-hand3-first2",
    "5p-52-perevodnoy-neighbors-max4")

# The two-player end-game solver.
ENDGAME_RULE_SETS = rule_sets("2p", "2p-perevodnoy-show", "2p-24-prostoy")

# The policy network's masks and the searching PPO agent (the searches apply to two players).
POLICY_RULE_SETS = rule_sets("2p", "2p-perevodnoy-show", "3p-24-hand4")

# What an observation may reveal, with transfers, neighbours, a 52-card deck and short hands.
LEAK_RULE_SETS = rule_sets("2p", "3p-perevodnoy-show", "4p-52-hand5", "3p-prostoy-neighbors")

# The rule-based agents (no network to load, no tree-search budget to set), by registry name.
HEURISTICS = ["random", "greedy", "card_counting", "pair_holding", "trump_saving", "expert",
              "expert_rules"]
