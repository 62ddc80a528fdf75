"""Masked policy: never an illegal action; checkpoints round-trip; mismatches are errors."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ppo import (  # noqa: E402
    NetworkConfig,
    PPOAgent,
    PPONet,
    legal_lists,
    legal_valid,
    load_checkpoint,
    save_checkpoint,
)
from durak_env import Game, Rules  # noqa: E402
from durak_env.observation import observation_size  # noqa: E402
from tests.conftest import POLICY_RULE_SETS, rules_id  # noqa: E402


def _positions(rules, n, seed=0):
    """Observations and masks from random games."""
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    g = Game.new(rules, seed=seed)
    while len(obs) < n:
        if g.over:
            g = Game.new(rules, seed=int(rng.integers(1 << 30)))
            continue
        obs.append(g.observe(g.to_act))
        masks.append(g.action_mask())
        g.step(int(rng.choice(g.legal_actions())))
    return np.array(obs), np.array(masks)


@pytest.mark.parametrize("head", ["factored", "dense"])
@pytest.mark.parametrize("rules", POLICY_RULE_SETS, ids=rules_id)
def test_masked_policy_never_samples_an_illegal_action(head, rules):
    torch.manual_seed(0)
    net = PPONet(rules, NetworkConfig(hidden=[64], head=head))
    # push logits of illegal actions up, so that only the mask can keep them out
    with torch.no_grad():
        net.actor.bias.fill_(0.0)
        net.actor.bias[0] = 50.0
    obs, masks = _positions(rules, 300)
    ids, counts = legal_lists(masks)
    valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
    for _ in range(20):
        pos, logp, ent, _ = net.get_action_and_value(torch.from_numpy(obs), torch.from_numpy(ids),
                                                    valid)
        actions = ids[np.arange(len(ids)), pos.numpy()]
        assert masks[np.arange(len(ids)), actions].all()
        assert torch.isfinite(logp).all() and torch.isfinite(ent).all()
    # probabilities of the legal list sum to one
    h = net.trunk(torch.from_numpy(obs))
    p = torch.softmax(net.legal_logits(h, torch.from_numpy(ids), valid), -1)
    assert torch.allclose(p.sum(-1), torch.ones(len(p)), atol=1e-5)
    assert (p[~valid] == 0).all()


def test_legal_lists_are_the_mask():
    rules = Rules()
    _, masks = _positions(rules, 50)
    ids, counts = legal_lists(masks)
    for m, row, c in zip(masks, ids, counts, strict=True):
        assert sorted(row[:c]) == list(np.flatnonzero(m))


def test_checkpoint_round_trip_gives_identical_actions(tmp_path):
    rules = Rules()
    torch.manual_seed(3)
    net = PPONet(rules, NetworkConfig(hidden=[48, 32]))
    opt = torch.optim.Adam(net.parameters())
    path = tmp_path / "ck.pt"
    save_checkpoint(path, net, opt, {"note": "test"})
    obs, masks = _positions(rules, 200, seed=5)
    agent = PPOAgent.load(path)
    again, data = load_checkpoint(path, rules)
    assert data["optimizer"] is not None and data["config"] == {"note": "test"}
    a1 = agent.act_batch(obs, masks)
    ids, counts = legal_lists(masks)
    with torch.no_grad():
        h = net.trunk(torch.from_numpy(obs))
        logits = net.legal_logits(h, torch.from_numpy(ids),
                                  legal_valid(torch.from_numpy(counts), ids.shape[1]))
    assert (a1 == ids[np.arange(len(ids)), logits.argmax(1).numpy()]).all()
    rng = np.random.default_rng(0)
    single = [agent.act(o, m, rng) for o, m in zip(obs, masks, strict=True)]
    assert single == list(a1)
    sampler1 = PPOAgent(rules, path=str(path), greedy=False)
    sampler2 = PPOAgent(rules, path=str(path), greedy=False)
    s1 = sampler1.act_batch(obs, masks, np.random.default_rng(7))
    s2 = sampler2.act_batch(obs, masks, np.random.default_rng(7))
    assert (s1 == s2).all() and masks[np.arange(len(s1)), s1].all()
    assert observation_size(again.rules) == obs.shape[1]


def test_registry_spec_loads_ppo(tmp_path):
    from agents.registry import make_agent

    rules = Rules()
    path = tmp_path / "ck.pt"
    save_checkpoint(path, PPONet(rules, NetworkConfig(hidden=[16])))
    agent = make_agent(f"ppo:{path}", rules)
    obs, masks = _positions(rules, 5)
    assert masks[0, agent.act(obs[0], masks[0], np.random.default_rng(0))]


def test_mismatching_rules_or_layout_is_a_clear_error(tmp_path):
    path = tmp_path / "ck.pt"
    save_checkpoint(path, PPONet(Rules(), NetworkConfig(hidden=[16])))
    with pytest.raises(ValueError, match="other rules.*num_players"):
        PPOAgent(Rules(num_players=3), path=str(path))
    data = torch.load(path, weights_only=False)
    data["layout_version"] = -1
    torch.save(data, path)
    with pytest.raises(ValueError, match=r"layout version -1.*LAYOUT_VERSION=2"):
        PPOAgent.load(path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        PPOAgent.load(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_text("not a checkpoint")
    with pytest.raises(ValueError, match="not a readable PPO checkpoint"):
        PPOAgent.load(tmp_path / "junk.pt")


def _biased_checkpoint(path, rules, favourite: int):
    """A dense-head net whose policy plays ``favourite`` whenever it is legal."""
    net = PPONet(rules, NetworkConfig(hidden=[16], head="dense"))
    with torch.no_grad():
        net.actor.bias.fill_(0.0)
        net.actor.bias[favourite] = 50.0
    save_checkpoint(path, net)
    return path


def _end_game(rules):
    # Talon empty, trump spades; seat 0 holds 6C 6D AS against 7C 7D and attacks.
    deck = Game.new(rules, 0)
    rest = [c for h in deck.hands for c in h] + deck.talon
    mine, theirs = ["6C", "6D", "AS"], ["7C", "7D"]
    discard = [c for c in rest if c not in mine + theirs]
    return Game.from_deal(rules, hands=[mine, theirs], discard=discard, trump="S",
                          first_attacker=0)


def test_end_game_solver_overrides_a_losing_policy_move(tmp_path):
    from agents.endgame import EndgameSolver
    from agents.view import fast_decode

    rules = Rules()
    game = _end_game(rules)
    obs, mask = game.observe(0), game.action_mask()
    legal = game.legal_actions().tolist()
    solver = EndgameSolver(rules)
    solver.load(fast_decode(obs, rules))
    values = dict(zip(legal, solver.root_values(legal, 100000).tolist(), strict=True))
    losing = [a for a in legal if values[a] == -1]
    assert losing and max(values.values()) == 1
    path = _biased_checkpoint(tmp_path / "ck.pt", rules, losing[0])
    rng = np.random.default_rng(0)
    assert PPOAgent(rules, path=str(path)).act(obs, mask, rng) == losing[0]
    hybrid = PPOAgent(rules, path=str(path), endgame_nodes=10000)
    a = hybrid.act(obs, mask, rng)
    assert values[a] == 1
    # among the winning moves it keeps the policy's order
    order = hybrid.preference(obs[None], mask[None]).tolist()
    assert order[0] == losing[0] and sorted(order) == legal
    assert a == next(b for b in order if values[b] == 1)


def test_sampled_search_overrides_a_policy_move_that_loses_every_deal(tmp_path):
    # Trump clubs; the talon is 6C on top of the face-up 10C. Seat 0 holds 7C 10D and
    # attacks; seat 1 holds AD 9H. Opening with 10D loses whatever lies on the talon,
    # 7C wins (tests/test_agents_endgame.py checks both against every deal).
    rules = Rules()
    deck = Game.new(rules, 0)
    everything = [c for h in deck.hands for c in h] + deck.talon
    discard = [c for c in everything if c not in ["7C", "10D", "10C", "AD", "9H", "6C"]]
    game = Game.from_deal(rules, hands=[["7C", "10D"], ["AD", "9H"]], talon=["6C", "10C"],
                          discard=discard, first_attacker=0)
    obs, mask = game.observe(0), game.action_mask()
    bad, good = game.layout.encode("play 10D"), game.layout.encode("play 7C")
    path = _biased_checkpoint(tmp_path / "ck.pt", rules, bad)
    rng = np.random.default_rng(0)
    assert PPOAgent(rules, path=str(path), endgame_nodes=10000).act(obs, mask, rng) == bad
    hybrid = PPOAgent(rules, path=str(path), endgame_nodes=10000, pimc_talon=3)
    assert hybrid.act(obs, mask, rng) == good


@pytest.mark.parametrize("rules", POLICY_RULE_SETS, ids=rules_id)
def test_searching_ppo_agent_plays_legal_games(tmp_path, rules):
    """The spec with the searches moves legally all through random games; with three
    players the searches do not apply and it plays as the policy alone."""
    from agents.registry import make_agent

    path = tmp_path / "ck.pt"
    torch.manual_seed(1)
    save_checkpoint(path, PPONet(rules, NetworkConfig(hidden=[32])))
    agent = make_agent(f"ppo:path={path},endgame_nodes=2000,pimc_talon=3,pimc_samples=4", rules)
    plain = PPOAgent(rules, path=str(path))
    rng = np.random.default_rng(0)
    differs = 0
    for seed in range(6):
        game = Game.new(rules, seed)
        agent.reset()
        while not game.over:
            obs, mask = game.observe(game.to_act), game.action_mask()
            a = agent.act(obs, mask, rng)
            assert mask[a]
            differs += a != plain.act(obs, mask, rng)
            game.step(int(rng.choice(game.legal_actions())))
    assert (differs > 0) == (rules.num_players == 2)


@pytest.mark.parametrize("key", ["endgame_nodes", "pimc_talon", "pimc_samples", "pimc_nodes"])
def test_bad_search_parameters_are_rejected(tmp_path, key):
    path = tmp_path / "ck.pt"
    save_checkpoint(path, PPONet(Rules(), NetworkConfig(hidden=[16])))
    with pytest.raises(ValueError, match=key):
        PPOAgent(Rules(), path=str(path), **{key: -1})


def test_sampled_search_without_the_solver_is_rejected(tmp_path):
    path = tmp_path / "ck.pt"
    save_checkpoint(path, PPONet(Rules(), NetworkConfig(hidden=[16])))
    with pytest.raises(ValueError, match="pimc_talon needs the end-game solver"):
        PPOAgent(Rules(), path=str(path), pimc_talon=3)


def test_evaluation_stops_games_at_the_decision_cap(monkeypatch):
    """Deterministic players can cycle for ever with three or more seats: the evaluation
    stops every game at ``MAX_DECISIONS`` and scores it a draw, as the tournament does."""
    import agents.ppo_train as ppo_train
    import agents.selfplay as selfplay
    from agents.ppo import NetworkConfig, PPONet

    rules = Rules(num_players=3)
    torch.manual_seed(0)  # an unseeded network can itself cycle past the cap now and then
    net = PPONet(rules, NetworkConfig(hidden=[16]))
    full = ppo_train.evaluate(net, rules, "expert_rules", games=12, seed=4)
    assert full["unfinished"] == 0 and full["wins"] + full["losses"] + full["draws"] == 12
    monkeypatch.setattr(selfplay, "MAX_DECISIONS", 6)  # no game of three ends in 6 moves
    cut = ppo_train.evaluate(net, rules, "expert_rules", games=12, seed=4)
    assert cut["unfinished"] == cut["draws"] == 12 and cut["winrate"] == 0.0
