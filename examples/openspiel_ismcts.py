"""OpenSpiel on Durak: pyspiel's own random-simulation check, then its IS-MCTS against random.

    pip install -e ".[openspiel]"
    python examples/openspiel_ismcts.py --games 20 --simulations 100

``durak_env.spiel`` registers ``python_durak``; any ``Rules`` loads with
``durak_env.spiel.load_game(rules)``. OpenSpiel's Python IS-MCTS resamples the hidden
cards through the game's ``resample_from_infostate`` (its C++ ``ISMCTSBot`` cannot call
into a Python game's resampling).
"""

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from durak_env import Rules
from durak_env.spiel import load_game


def play(game, bot, seat: int, rng: np.random.Generator) -> float:
    """One game: ``bot`` in ``seat``, uniformly random legal moves elsewhere; its return."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.current_player() == seat:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state.returns()[seat]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--simulations", type=int, default=100)
    p.add_argument("--sims-check", type=int, default=2, help="pyspiel.random_sim_test games")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    game = load_game(Rules())
    pyspiel.random_sim_test(game, num_sims=a.sims_check, serialize=True, verbose=False)
    print(f"pyspiel.random_sim_test: {a.sims_check} games of {game} passed")
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(a.seed)),
                           uct_c=2.0, max_simulations=a.simulations,
                           random_state=np.random.RandomState(a.seed),
                           final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                           allow_inconsistent_action_sets=True)
    rng = np.random.default_rng(a.seed)
    wins = [play(game, bot, g % 2, rng) > 0 for g in range(a.games)]
    print(f"win rate vs random: {np.mean(wins):.3f}")


if __name__ == "__main__":
    main()
