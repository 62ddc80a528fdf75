"""OpenSpiel: ``python_durak`` passes pyspiel's own checks, resamples consistently, and
OpenSpiel's IS-MCTS plays on it."""

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason='needs the openspiel extra: pip install -e ".[openspiel]"')

import durak_env.spiel as ds  # noqa: E402
from durak_env import Game, Rules  # noqa: E402


def play_random(state, rng, decisions):
    """Deal, then make ``decisions`` random moves (fewer if the game ends)."""
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    for _ in range(decisions):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("rules", [Rules(), Rules(num_players=3, variant="perevodnoy",
                                                  transfer_show_trump=True)],
                         ids=["2p", "3p-perevodnoy-show"])
def test_random_sim_test_with_serialization(rules):
    game = ds.load_game(rules)
    assert game.num_distinct_actions() == Game(rules).layout.n
    assert game.get_type().short_name == "python_durak"
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_string_round_trip_and_defaults():
    rules = Rules(num_players=4, deck_size=52, first_round_max_attack=5, throw_in="neighbors")
    game = pyspiel.load_game(ds.game_string(rules))
    assert game.rules == rules and game.num_players() == 4
    assert ds.game_string(Rules()) == "python_durak"
    assert ds.load_game().rules == Rules()


def test_legal_actions_are_the_engines_sorted():
    rng = np.random.default_rng(0)
    state = play_random(ds.load_game().new_initial_state(), rng, 0)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal == sorted(int(a) for a in state.game.legal_actions())
        state.apply_action(int(rng.choice(legal)))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.parametrize("rules", [Rules(), Rules(num_players=3, variant="perevodnoy")],
                         ids=["2p", "3p-perevodnoy"])
def test_resample_keeps_the_information_state(rules):
    rng = np.random.default_rng(1)
    game = ds.load_game(rules)
    differs = 0
    for depth in (0, 5, 25, 60):
        state = play_random(game.new_initial_state(), rng, depth)
        if state.is_terminal():
            continue
        player = state.current_player()
        for _ in range(4):
            other = state.resample_from_infostate(player, lambda: rng.random())
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.legal_actions() == state.legal_actions()
            np.testing.assert_array_equal(other.information_state_tensor(player),
                                          state.information_state_tensor(player))
            differs += other.game.hands != state.game.hands
    assert differs > 0


def test_resample_mid_deal():
    rng = np.random.default_rng(2)
    state = ds.load_game().new_initial_state()
    for _ in range(10):  # seat 0 has its six cards, seat 1 four
        state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
    other = state.resample_from_infostate(0, lambda: rng.random())
    assert other.deck[:6] == state.deck[:6] and len(other.deck) == 10
    assert other.information_state_string(0) == state.information_state_string(0)


def test_openspiel_ismcts_bot_plays():
    from open_spiel.python.algorithms import ismcts, mcts

    game = ds.load_game()
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0,
                           max_simulations=8, random_state=np.random.RandomState(0),
                           allow_inconsistent_action_sets=True)
    rng = np.random.default_rng(3)
    state, moves = play_random(game.new_initial_state(), rng, 0), 0
    while not state.is_terminal() and moves < 6:
        if state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert moves > 0


def test_openspiel_ismcts_agent_plays_whole_games():
    """The tournament agent: OpenSpiel's IS-MCTS from determinizations of its observation."""
    from agents import make_agent

    rules = Rules()
    agent = make_agent("openspiel_ismcts:simulations=4,seed=0", rules)
    rng = np.random.default_rng(0)
    for seed in range(2):
        game, searched = Game.new(rules, seed=seed), 0
        agent.reset()
        while not game.over:
            if game.to_act == 0:
                action = agent.act(game.observe(0), game.action_mask(), rng)
                searched += 1
            else:
                action = int(rng.choice(game.legal_actions()))
            assert action in game.legal_actions()
            game.step(action)
        assert searched > 0


def test_position_state_resamples_its_root():
    from agents.determinize import determinize_at, view_array
    from agents.view import fast_decode
    from durak_env import core

    rules = Rules()
    game = Game.new(rules, seed=5)
    view = view_array(fast_decode(game.observe(game.to_act), rules))
    st, prm, cards = core.new_state(1), core.kernel_params(rules), np.zeros(52, np.int64)

    def sample(rng):
        st["rng"][0] = np.uint64(int(rng.integers(0, 2**63)))
        assert determinize_at(st, 0, prm, view, cards)
        return st[0].copy()

    root = ds.position_state(ds.load_game(rules), sample, np.random.default_rng(0))
    player = root.current_player()
    np.testing.assert_array_equal(root.game.observe(player), game.observe(game.to_act))
    other = root.resample_from_infostate(player, np.random.default_rng(1).random)
    assert other.information_state_string(player) == root.information_state_string(player)
    assert other.legal_actions() == root.legal_actions() == sorted(game.legal_actions())
    child = root.child(root.legal_actions()[0])
    with pytest.raises(Exception, match="only at the root"):
        child.resample_from_infostate(player, np.random.default_rng(2).random)
