"""ISMCTS: determinizations agree with the observation, no peeking, legality, strength."""

from __future__ import annotations

import numpy as np
import pytest

from agents.determinize import determinize_at, view_array
from agents.expert_kernel import expert_action
from agents.heuristics import ExpertAgent, Situation
from agents.ismcts import KEY_SEATS, ISMCTSAgent
from agents.playouts import SAVE_TALON, greedy_action
from durak_env import Game, Rules, core, decode, observation
from durak_env.cards import BEATS, NUM_CARDS, deck_mask, format_mask
from tests.conftest import SEARCH_RULE_SETS, rule_sets, rules_id


def random_positions(rules, games, seed):
    """Yield games stopped at random decisions of random-play games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        game = Game.new(rules, seed=int(rng.integers(1 << 62)))
        while not game.over:
            yield game
            game.step(int(rng.choice(game.legal_actions())))


def observe_rebuilt(rules, st, prm):
    out = np.zeros(observation.observation_size(rules), np.float32)
    observation.encode_at(st, 0, prm, observation.obs_offsets(rules), 0, out)
    return out


@pytest.mark.parametrize("rules", SEARCH_RULE_SETS, ids=rules_id)
def test_determinization_matches_observation(rules):
    prm = core.kernel_params(rules)
    st = core.new_state(1)
    buf = np.zeros(int(prm[core.A_N]), np.int64)
    cards = np.zeros(NUM_CARDS, np.int64)
    checked = 0
    for game in random_positions(rules, games=10, seed=rules.num_players):
        seat = game.to_act
        obs = game.observe(seat)
        view = view_array(decode(obs, rules))
        for k in range(2):  # two different samples of the same information set
            st["rng"][0] = 1000 * checked + k + 1
            assert determinize_at(st, 0, prm, view, cards)
            np.testing.assert_array_equal(observe_rebuilt(rules, st, prm), obs)
            n = core.legal_actions_at(st, 0, prm, buf)
            assert sorted(buf[:n].tolist()) == sorted(game.legal_actions().tolist())
            hands = [int(h) for h in st["hands"][0]]
            talon = st["talon"][0, st["talon_top"][0] : st["talon_end"][0]].tolist()
            placed = sum(bin(h).count("1") for h in hands) + len(talon)
            table = 0
            na = st["n_attack"][0]
            for a, b in zip(st["attack"][0, :na], st["cover"][0, :na], strict=True):
                table |= (1 << int(a)) | ((1 << int(b)) if b >= 0 else 0)
            rest = int(st["discard"][0]) | table
            placed += bin(rest).count("1")
            every = rest
            for h in hands:
                every |= h
            for c in talon:
                every |= 1 << c
            assert placed == rules.deck_size and every == deck_mask(rules.deck_size)
        checked += 1
    assert checked > 100


def _reshuffle_hidden(game, seat, rng):
    """Re-deal, inside the game, every card ``seat`` cannot see among the same slots."""
    st, n = game._st, game.rules.num_players
    hands, talon = st["hands"], st["talon"]
    face_up = int(st["trump_card"][0])
    top, end = int(st["talon_top"][0]), int(st["talon_end"][0])
    pool = [int(c) for c in talon[0, top:end] if c != face_up]
    free = {}
    for p in range(n):
        if p == seat:
            continue
        hidden = int(hands[0, p]) & ~int(st["known"][0, p])
        free[p] = bin(hidden).count("1")
        pool += [c for c in range(NUM_CARDS) if hidden >> c & 1]
        hands[0, p] = np.uint64(int(hands[0, p]) & ~hidden)
    rng.shuffle(pool)
    for p, k in free.items():
        hands[0, p] |= np.uint64(sum(1 << c for c in pool[:k]))
        pool = pool[k:]
    talon[0, top : top + len(pool)] = pool


@pytest.mark.parametrize("rules", SEARCH_RULE_SETS[:3], ids=rules_id)
@pytest.mark.parametrize("opponent", ["tree", "expert_count", "expert_count:0.5"])
def test_decision_ignores_hidden_information(rules, opponent):
    rng = np.random.default_rng(5)
    seen = 0
    for game in random_positions(rules, games=4, seed=11):
        if rng.random() > 0.3:
            continue
        seat = game.to_act
        obs, mask = game.observe(seat), game.action_mask()
        # max_time=None: with a clock, how many deals the sampled search gets depends on
        # the machine (the first call may spend its budget loading compiled kernels)
        model, _, share = opponent.partition(":")
        kw = dict(iterations=60, seed=3, opponent=model, model_share=float(share or 1),
                  max_time=None)
        first = ISMCTSAgent(rules, **kw).act(obs, mask, None)
        _reshuffle_hidden(game, seat, rng)
        np.testing.assert_array_equal(game.observe(seat), obs)
        assert ISMCTSAgent(rules, **kw).act(obs, mask, None) == first
        seen += 1
    assert seen > 10


def play(rules, agents, seed):
    """One game; returns the durak seat (None on a draw). Fails on any illegal action."""
    game = Game.new(rules, seed=seed)
    rng = np.random.default_rng(seed)
    for a in agents:
        a.reset()
    while not game.over:
        seat = game.to_act
        mask = game.action_mask()
        action = agents[seat].act(game.observe(seat), mask, rng)
        assert mask[action] == 1, f"illegal action {action} by seat {seat}"
        game.step(action)
    return game.durak


class _Random:
    def reset(self):
        pass

    def act(self, observation, action_mask, rng):
        return int(rng.choice(np.flatnonzero(action_mask)))


@pytest.mark.parametrize("rules", SEARCH_RULE_SETS, ids=rules_id)
@pytest.mark.parametrize("playout", ["random", "greedy", "saving", "expert", "expert_count"])
def test_legal_in_every_variant(rules, playout):
    agents = [ISMCTSAgent(rules, iterations=8, playout=playout) for _ in range(rules.num_players)]
    agents[-1] = _Random()
    for g in range(3):
        play(rules, agents, seed=100 + g)


@pytest.mark.parametrize("rules", SEARCH_RULE_SETS, ids=rules_id)
@pytest.mark.parametrize("opponent", ["expert_count", "random", "greedy", "expert",
                                      "expert_count:0.5"])
def test_legal_with_every_opponent_model(rules, opponent):
    model, _, share = opponent.partition(":")
    agents = [ISMCTSAgent(rules, iterations=8, opponent=model, model_share=float(share or 1))
              for _ in range(rules.num_players)]
    agents[-1] = _Random()
    for g in range(2):
        play(rules, agents, seed=200 + g)


@pytest.mark.parametrize("bad", ["expert_rules", "", "Tree"])
def test_bad_opponent_is_rejected(bad):
    with pytest.raises(ValueError, match="opponent"):
        ISMCTSAgent(Rules(), opponent=bad)


def _children(agent, node):
    out, ch = [], agent._t_child[node]
    while ch >= 0:
        out.append(int(ch))
        ch = agent._t_sib[ch]
    return out


def _opponent_replies(agent):
    """For each tree node where seat 1 moves: how many different moves it was seen to make."""
    counts, stack = [], [0]
    while stack:
        node = stack.pop()
        kids = _children(agent, node)
        stack.extend(kids)
        replies = [ch for ch in kids if agent._t_key[ch] % KEY_SEATS == 1]
        if replies:
            counts.append(len(replies))
    return counts


@pytest.mark.parametrize("opponent", ["expert_count", "expert", "greedy"])
def test_a_modelled_opponent_has_one_reply_when_its_hand_is_known(opponent):
    # Talon empty, two players: the defender's hand is known, so every determinization
    # is the same deal and an opponent played by a (deterministic) policy makes one move
    # wherever it is asked. The UCB opponent of opponent="tree" tries several.
    game = _end_game(["6C", "6D", "AS"], ["7C", "7D", "8H"])
    obs, mask = game.observe(0), game.action_mask()
    replies = {}
    for model in ("tree", opponent):
        agent = ISMCTSAgent(game.rules, iterations=300, endgame_nodes=0, seed=1,
                            opponent=model, model_share=1.0, max_time=None)
        agent.act(obs, mask, None)
        replies[model] = _opponent_replies(agent)
        assert len(replies[model]) > 5
    assert set(replies[opponent]) == {1}
    assert max(replies["tree"]) > 1


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_bad_model_share_is_rejected(bad):
    with pytest.raises(ValueError, match="model_share"):
        ISMCTSAgent(Rules(), opponent="expert_count", model_share=bad)


def _tree(agent):
    k = int(agent._meta[0])
    return agent._t_key[:k].copy(), agent._t_stats[:k].copy()


@pytest.mark.parametrize("seed", [2, 9])
def test_model_share_moves_between_the_plain_and_the_modelled_search(seed):
    # model_share=0 is the plain search and model_share=1 the model, node for node; in
    # between, the modelled seat follows its policy in some iterations and UCB in others.
    game = Game.new(Rules(), seed=seed)
    obs, mask = game.observe(game.to_act), game.action_mask()
    trees = {}
    for model, share in [("tree", 1.0), ("expert_count", 0.0), ("expert_count", 1.0),
                         ("expert_count", 0.5)]:
        agent = ISMCTSAgent(Rules(), iterations=400, seed=seed, opponent=model,
                            model_share=share, max_time=None)
        agent.act(obs, mask, None)
        trees[model, share] = _tree(agent)
    for a, b in zip(trees["tree", 1.0], trees["expert_count", 0.0], strict=True):
        np.testing.assert_array_equal(a, b)
    sizes = {key: len(t[0]) for key, t in trees.items()}
    assert sizes["expert_count", 1.0] != sizes["tree", 1.0]
    assert sizes["expert_count", 0.5] not in (sizes["tree", 1.0], sizes["expert_count", 1.0])


def test_a_partly_modelled_opponent_still_tries_other_replies():
    game = _end_game(["6C", "6D", "AS"], ["7C", "7D", "8H"])
    obs, mask = game.observe(0), game.action_mask()
    agent = ISMCTSAgent(game.rules, iterations=300, endgame_nodes=0, seed=1,
                        opponent="expert_count", model_share=0.5, max_time=None)
    agent.act(obs, mask, None)
    assert max(_opponent_replies(agent)) > 1
    # the modelled iterations keep the availability counts that UCB reads: a child was
    # available at least as often as it was visited, bar the visit that created it
    visits, avail = agent._t_stats[1 : agent._meta[0], 0], agent._t_stats[1 : agent._meta[0], 2]
    assert (avail >= visits - 1).all()


def test_max_time_caps_the_search():
    agent = ISMCTSAgent(Rules(), iterations=10**7, max_time=0.05, seed=0)
    game = Game.new(Rules(), seed=1)
    t = __import__("time").perf_counter()
    agent.act(game.observe(game.to_act), game.action_mask(), None)
    assert __import__("time").perf_counter() - t < 0.5
    assert 0 < agent.last_iterations < 10**7


def test_a_cap_that_is_not_reached_changes_nothing():
    # The capped search runs in chunks; unless the clock stops it, it is the same search.
    game = Game.new(Rules(), seed=5)
    picks = []
    for max_time in (None, 60.0):
        agent = ISMCTSAgent(Rules(), iterations=1000, max_time=max_time, seed=3)
        picks.append((agent.act(game.observe(game.to_act), game.action_mask(), None),
                      agent.last_iterations, agent._t_stats[:agent._meta[0]].copy()))
    assert picks[0][:2] == picks[1][:2] == (picks[0][0], 1000)
    np.testing.assert_array_equal(picks[0][2], picks[1][2])


@pytest.mark.parametrize("bad", [0, -1.0])
def test_bad_max_time_is_rejected(bad):
    with pytest.raises(ValueError, match="max_time"):
        ISMCTSAgent(Rules(), max_time=bad)


def test_time_budget_is_respected():
    rules = Rules()
    agent = ISMCTSAgent(rules, time_per_move=0.02)
    game = Game.new(rules, seed=1)
    t = __import__("time").perf_counter()
    agent.act(game.observe(game.to_act), game.action_mask(), np.random.default_rng(0))
    assert __import__("time").perf_counter() - t < 0.2
    assert agent.last_iterations > 0


def test_beats_random():
    rules = Rules()
    wins = decided = 0
    # against random play the end games are mostly too big to solve: a small budget
    # gives up quickly instead of costing ten times the 30-iteration search
    agent, rand = ISMCTSAgent(rules, iterations=30, endgame_nodes=1000), _Random()
    for g in range(100):
        seats = [agent, rand] if g % 2 == 0 else [rand, agent]
        durak = play(rules, seats, seed=g // 2)
        if durak is not None:
            decided += 1
            wins += seats[durak] is rand
    assert wins >= 0.8 * decided


def _end_game(mine, theirs):
    """Two players, talon empty, trump spades, seat 0 to open; every other card discarded."""
    rules = Rules()
    deck = Game.new(rules, 0)
    rest = [c for h in deck.hands for c in h] + deck.talon
    discard = [c for c in rest if c not in mine + theirs]
    return Game.from_deal(rules, hands=[mine, theirs], discard=discard, trump="S",
                          first_attacker=0)


def test_end_game_is_solved_exactly():
    # 6C 6D AS against 7C 7D: opening with AS (the defender must take it), then 6C and
    # 6D (each covered, the volley ends with the attacker out) wins; opening with a six
    # loses. One search iteration alone finds AS only by luck: the solver must decide.
    game = _end_game(["6C", "6D", "AS"], ["7C", "7D"])
    obs, mask = game.observe(0), game.action_mask()
    for seed in range(5):
        agent = ISMCTSAgent(game.rules, iterations=1, seed=seed)
        assert game.layout.decode(agent.act(obs, mask, None)) == "play AS"
        assert agent.last_iterations == 0  # no search was run
    # off: the one-iteration search picks whichever move it happened to try
    picks = set()
    for seed in range(12):
        agent = ISMCTSAgent(game.rules, iterations=1, seed=seed, endgame_nodes=0)
        a = agent.act(obs, mask, None)
        assert mask[a] == 1 and agent.last_iterations == 1
        picks.add(a)
    assert len(picks) > 1


def test_proven_loss_falls_back_to_the_search():
    # 6C 6D 6H against AS: any six is beaten by AS and the defender is out; the attacker
    # loses whatever it does, so the search (which may hope for a mistake) decides.
    game = _end_game(["6C", "6D", "6H"], ["AS"])
    agent = ISMCTSAgent(game.rules, iterations=3, seed=0)
    a = agent.act(game.observe(0), game.action_mask(), None)
    assert game.action_mask()[a] == 1
    assert agent._solver.value == -1 and agent.last_iterations == 3


def test_end_game_nodes_from_the_spec():
    from agents import make_agent

    assert make_agent("ismcts:endgame_nodes=0", Rules())._solver is None
    assert make_agent("ismcts:endgame_nodes=500", Rules())._solver.max_nodes == 500
    assert make_agent("ismcts", Rules(num_players=3))._solver is None


@pytest.mark.parametrize("talon_cards, saving_move", [(7, "take"), (SAVE_TALON, "beat 6H AS")])
def test_saving_playout_keeps_a_high_trump_while_the_talon_is_full(talon_cards, saving_move):
    # Seat 1 can beat 6H only with the ace of trumps (the talon's bottom card is KS).
    rules = Rules()
    hands = [["6H", "7D", "8C", "9C", "10C", "JC"], ["AS", "6D", "7C", "8D", "9D", "10D"]]
    rest = [c for c in format_mask(deck_mask(36)) if c not in hands[0] + hands[1]]
    talon = [c for c in rest if not c.endswith("S")][: talon_cards - 1] + ["KS"]
    discard = [c for c in rest if c not in talon]
    game = Game.from_deal(rules, hands=hands, talon=talon, discard=discard, first_attacker=0)
    game.step(game.layout.encode("play 6H"))
    assert sorted(game.legal_moves()) == ["beat 6H AS", "take"]
    buf = np.zeros(game.layout.n, np.int64)
    n = core.legal_actions_at(game._st, 0, game._prm, buf)
    for save, expected in ((False, "beat 6H AS"), (True, saving_move)):
        assert game.layout.decode(int(greedy_action(game._st[0], game._prm, buf, n, save))) \
            == expected


def _two_player_deal(hands, talon_cards):
    """hands of seats 0 and 1, a talon of ``talon_cards`` cards ending with KS (trump
    spades), the rest discarded; seat 0 attacks."""
    rest = [c for c in format_mask(deck_mask(36)) if c not in hands[0] + hands[1]]
    talon = [c for c in rest if not c.endswith("S")][: talon_cards - 1] + ["KS"]
    discard = [c for c in rest if c not in talon]
    return Game.from_deal(Rules(), hands=hands, talon=talon, discard=discard, first_attacker=0)


def _expert_move(game):
    buf = np.zeros(game.layout.n, np.int64)
    n = core.legal_actions_at(game._st, 0, game._prm, buf)
    return game.layout.decode(int(expert_action(game._st[0], game._prm, buf, n)))


@pytest.mark.parametrize("talon_cards, move", [(20, "take"), (2, "beat 6H AS")])
def test_expert_playout_pays_the_trump_ace_only_late(talon_cards, move):
    # Covering 6H costs the ace of trumps; taking one card costs less while the talon
    # is nearly full, more once it is nearly empty.
    game = _two_player_deal([["6H", "7D", "8C", "9C", "10C", "JC"],
                             ["AS", "6D", "7C", "8D", "9D", "10D"]], talon_cards)
    game.step(game.layout.encode("play 6H"))
    assert sorted(game.legal_moves()) == ["beat 6H AS", "take"]
    assert _expert_move(game) == move


def test_expert_playout_opens_with_a_pair_card_the_defender_cannot_beat():
    # 6H is the lowest card, but the defender beats it (AH); 7C is one of a pair and
    # the defender has no club and no trump. Greedy opens 6H, the expert rules 7C.
    game = _two_player_deal([["6H", "7C", "7D", "9C", "10C", "JC"],
                             ["AH", "6D", "8D", "9D", "10D", "KD"]], 12)
    buf = np.zeros(game.layout.n, np.int64)
    n = core.legal_actions_at(game._st, 0, game._prm, buf)
    assert game.layout.decode(int(greedy_action(game._st[0], game._prm, buf, n))) == "play 6H"
    assert _expert_move(game) == "play 7C"


@pytest.mark.parametrize("rules", rule_sets("2p", "2p-52-perevodnoy", "3p-neighbors"),
                         ids=rules_id)
@pytest.mark.parametrize("count", [True, False], ids=["counting", "real-hand"])
def test_expert_playout_follows_the_expert_rules(rules, count, monkeypatch):
    # The numba rules mirror ExpertAgent's (searches off), except that they cover several
    # cards by a greedy plan where the agent finds the cheapest one. With ``count`` they
    # count cards as the agent does; without, they read the defender's hand, and so must
    # the agent. Either way the moves agree wherever at most one attack card is uncovered.
    agent = ExpertAgent(rules, search_nodes=0, pimc_talon=0)
    defender = {}
    if not count:
        def beat_prob(self, c, seat):
            return float(bool(defender["hand"] & int(BEATS[self.trump, c])))

        monkeypatch.setattr(Situation, "beat_prob", beat_prob)
    buf = np.zeros(core.kernel_params(rules)[core.A_N], np.int64)
    compared, kinds = 0, set()
    for game in random_positions(rules, games=100, seed=11):
        r = game._st[0]
        mask = game.action_mask()
        if mask.sum() < 2 or sum(1 for k in range(r["n_attack"]) if r["cover"][k] < 0) > 1:
            continue
        defender["hand"] = int(r["hands"][r["defender"]])
        n = core.legal_actions_at(game._st, 0, game._prm, buf)
        want = agent.act(game.observe(game.to_act), mask, None)
        got = int(expert_action(r, game._prm, buf, n, count))
        assert game.layout.decode(got) == game.layout.decode(want), game.legal_moves()
        compared += 1
        kinds.add(game.layout.decode(want).split()[0])
    assert compared > 1000
    assert kinds >= {"play", "pass", "beat", "take"} | (
        {"transfer"} if rules.variant == "perevodnoy" else set())
