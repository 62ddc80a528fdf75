"""The learned player's training stages: cloning learns the teacher, distillation labels
are legal searched moves, the global state reaches the critic only, and the stages run
end to end in train.py (tiny budgets)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.distill import DistillConfig, Distiller  # noqa: E402
from agents.imitation import ImitationConfig, agreement, clone, generate_positions  # noqa: E402
from agents.ppo import NetworkConfig, PPOAgent, PPONet, legal_lists, legal_valid  # noqa: E402
from agents.strength import first_reaching, read_evals  # noqa: E402
from agents.teacher import SearchConfig, SearchLabeler  # noqa: E402
from durak_env import Rules, VectorEnv, raw_env  # noqa: E402
from durak_env.core import kernel_params  # noqa: E402
from durak_env.observation import encode_at, encode_state_at  # noqa: E402
from tests.envs.test_leaks import reshuffle_hidden  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL_SEARCH = SearchConfig(endgame_nodes=3000, pimc_talon=1, pimc_samples=2, pimc_nodes=300)


@pytest.mark.parametrize("augment", [False, True])
def test_cloning_learns_the_teacher_well_above_chance(augment):
    torch.manual_seed(0)
    rules = Rules()
    cfg = ImitationConfig(positions=6000, epochs=4, num_envs=64, lr=2e-3, minibatch_size=256,
                          holdout=0.15, augment=augment)
    data = generate_positions(rules, cfg.positions, cfg, SearchLabeler(rules, SMALL_SEARCH),
                              seed=3, with_state=True, num_threads=1, progress=False)
    assert len(data) >= cfg.positions and data.searched.any()
    net = PPONet(rules, NetworkConfig(hidden=[128], critic="global", critic_hidden=[64]))
    report = clone(net, data, cfg, seed=0, progress=False)
    # a uniform pick agrees about a third of the time; the teacher is learnable
    assert report["agreement"] > report["chance"] + 0.25, report
    assert report["history"][-1]["agreement"] > report["history"][0]["agreement"] - 0.02
    untrained = PPONet(rules, NetworkConfig(hidden=[128], critic="global", critic_hidden=[64]))
    rows = np.arange(len(data))
    assert agreement(untrained, data, rows)["agreement"] < report["agreement"] - 0.2


def test_teacher_labels_are_legal_and_searched_where_the_search_applies():
    rules = Rules()
    cfg = ImitationConfig(positions=1500, num_envs=32)
    data = generate_positions(rules, cfg.positions, cfg, SearchLabeler(rules, SMALL_SEARCH),
                              seed=5, with_state=False, num_threads=1, progress=False)
    assert (data.label >= 0).all() and (data.label < data.counts).all()
    talon = np.rint(data.obs[:, _talon_offset(rules)] * rules.hand_size)
    assert (talon[data.searched] <= 1).all()
    assert set(np.unique(data.ret)) <= {-1.0, 0.0, 1.0}


def test_labels_of_solvers_side_by_side_are_each_solvers_own():
    """``threads=2``: rows of even index get the labels of a labeler of the seed alone,
    rows of odd index those of a labeler of the seed + 1 (the sampled deals differ), so
    the labels do not depend on which thread finishes first."""
    from .positions import random_positions

    rules = Rules()
    search = SearchConfig(endgame_nodes=5000, pimc_talon=3, pimc_samples=2, pimc_nodes=300)
    obs, _, ids, counts = random_positions(rules, games=32, seed=3)
    rows = np.flatnonzero(counts > 1)
    first = ids[np.arange(len(ids)), 0]
    both = SearchLabeler(rules, search, seed=7, threads=2).label_rows(obs, ids, counts, first, rows)
    even, odd = rows % 2 == 0, rows % 2 == 1
    alone = [SearchLabeler(rules, search, seed=s).label_rows(obs, ids, counts, first, rows[part])
             for s, part in ((7, even), (8, odd))]
    assert np.array_equal(both[even], alone[0]) and np.array_equal(both[odd], alone[1])
    assert (both >= 0).sum() > 50  # searched positions, both kinds
    talon = np.rint(obs[rows, _talon_offset(rules)] * rules.hand_size)
    assert ((both >= 0) & (talon >= 2)).any() and ((both >= 0) & (talon <= 1)).any()
    got = both >= 0
    assert (ids[rows[got]] == both[got, None]).any(1).all()  # legal moves


def _talon_offset(rules):
    from durak_env.observation import observation_layout

    return next(p.offset for p in observation_layout(rules) if p.name == "talon_size")


def _filled_distiller(rules, cfg: DistillConfig, seed: int, steps: int):
    """A distiller fed ``steps`` random-play steps of 64 games (the first legal move as
    both the played and the greedy move); returns it and the rng it drew from."""
    venv = VectorEnv(rules, 64, seed=seed, num_threads=1)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    dist = Distiller(rules, SMALL_SEARCH, cfg, obs.shape[1], seed=0)
    for _ in range(steps):
        ids, counts = legal_lists(info["action_mask"])
        dist.submit(obs, ids, counts, ids[:, 0], ids[:, 0], rng)
        obs, _, _, _, info = venv.step(venv.random_actions())
    return dist, rng


def test_distillation_labels_only_legal_moves():
    rules = Rules()
    dist, rng = _filled_distiller(rules, DistillConfig(coef=1.0, labels_per_update=64,
                                                       buffer_size=500, background=False),
                                  seed=2, steps=120)
    assert dist.size > 20
    n = dist.size
    valid = np.arange(dist.good.shape[1]) < dist.counts[:n, None]
    assert (dist.good[:n].sum(1) == 1).all()  # one searched move per position
    assert not (dist.good[:n] & ~valid).any()  # inside the legal list
    for i in range(n):  # the labelled id is legal in its position's mask
        legal = dist.ids[i, : dist.counts[i]]
        assert len(set(legal.tolist())) == dist.counts[i]
    sample = dist.sample(rng)
    assert sample is not None and sample[3].any(1).all()
    assert not (sample[3] & ~legal_valid(sample[2], sample[3].shape[1])).any()


def test_distillation_set_targets_are_exactly_the_best_moves():
    """``target: set``: once every card is placed, the labelled set is every legal move of
    the best proven value, checked against a separate solver."""
    from agents.endgame import UNKNOWN, EndgameSolver
    from agents.view import fast_decode

    rules = Rules()
    dist, _ = _filled_distiller(rules, DistillConfig(coef=1.0, labels_per_update=32,
                                                     buffer_size=2000, background=False,
                                                     target="set"), seed=4, steps=150)
    solver = EndgameSolver(rules, SMALL_SEARCH.endgame_nodes, last_card=True, cheap_first=True)
    checked = several = 0
    for i in range(dist.size):
        v = fast_decode(dist.obs[i], rules)
        legal = dist.ids[i, : dist.counts[i]].tolist()
        good = dist.good[i, : dist.counts[i]]
        assert good.any() and not dist.good[i, dist.counts[i]:].any()
        if not solver.applies(v):
            continue
        solver.reset()
        solver.load(v)
        values = solver.root_values(legal, SMALL_SEARCH.endgame_nodes)
        if (values == UNKNOWN).any():
            continue
        assert (values[good] == values.max()).all() and (values[~good] < values.max()).all()
        checked += 1
        several += int(good.sum() > 1)
    assert checked > 20 and several > 0  # ties are common: the set is more than one move


def test_distillation_loss_is_the_log_probability_of_the_labelled_set():
    from agents.ppo import set_cross_entropy

    torch.manual_seed(0)
    rules = Rules()
    venv = VectorEnv(rules, 16, seed=1, num_threads=1)
    obs, info = venv.reset()
    ids, counts = legal_lists(info["action_mask"])
    net = PPONet(rules, NetworkConfig(hidden=[32]))
    obs_t, ids_t, counts_t = (torch.from_numpy(a) for a in (obs, ids, counts))
    valid = legal_valid(counts_t, ids.shape[1])
    with torch.no_grad():
        logp = torch.log_softmax(net.legal_logits(net.trunk(obs_t), ids_t, valid), 1)
        one = torch.zeros_like(valid)
        one[:, 0] = True
        got = set_cross_entropy(net, obs_t, ids_t, counts_t, one)
        assert torch.isclose(got, -logp[:, 0].mean())
        both = one.clone()
        both[:, 1] = counts_t > 1
        want = -torch.logsumexp(logp.masked_fill(~both, -1e9), 1).mean()
        assert torch.isclose(set_cross_entropy(net, obs_t, ids_t, counts_t, both), want)


def test_distillation_augmented_samples_rename_position_and_label_together():
    """Under suit renaming, the labelled move's cards are in the renamed hand."""
    from durak_env.actions import ActionLayout
    from durak_env.observation import observation_layout

    rules = Rules()
    dist, rng = _filled_distiller(rules, DistillConfig(coef=1.0, labels_per_update=64,
                                                       buffer_size=500, background=False,
                                                       augment=True), seed=2, steps=120)
    lay = ActionLayout.of(rules)
    hand = next(p.offset for p in observation_layout(rules) if p.name == "hand")
    renamed = 0
    for _ in range(5):
        s_obs, s_ids, _, s_good = (t.numpy() for t in dist.sample(rng))
        for o, row, good in zip(s_obs, s_ids, s_good, strict=True):
            a = int(row[good.argmax()])
            if a < lay.play:
                continue  # pass or take: no card
            own = a - lay.play if a < lay.beat else (a - lay.beat) % lay.deck_size
            assert o[hand + own] == 1  # the card played or covering is in the hand
        raw = dist.obs[: dist.size]
        renamed += sum(not (raw == o).all(1).any() for o in s_obs)
    assert renamed > 0  # some samples were shown renamed


def test_policy_never_reads_the_global_state():
    """Two deals that differ only in what the acting seat cannot see: the same policy
    output; the global critic's value may differ (it reads the hidden cards)."""
    rules = Rules()
    torch.manual_seed(1)
    net = PPONet(rules, NetworkConfig(hidden=[64], critic="global", critic_hidden=[64]))
    e = raw_env(rules=rules)
    e.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(6):  # a few moves in, so that hands and talon are mixed
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    st, prm, off = e._b.st, kernel_params(rules), e._b.off
    me = int(st[0]["to_act"])
    other = reshuffle_hidden(st, me, 2, rng)
    obs = np.zeros((2, e._b.obs_size), np.float32)
    states = np.zeros((2, e._b.state_size), np.float32)
    for i, s in enumerate((st, other)):
        encode_at(s, 0, prm, off, me, obs[i])
        encode_state_at(s, 0, prm, off, me, states[i])
    assert (obs[0] == obs[1]).all() and not (states[0] == states[1]).all()
    mask = np.repeat(e.observe(e.agent_selection)["action_mask"][None], 2, 0)
    ids, counts = legal_lists(mask)
    valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
    with torch.no_grad():
        *_, v, logp = net.get_action_and_value(torch.from_numpy(obs), torch.from_numpy(ids),
                                               valid, greedy=True,
                                               state=torch.from_numpy(states),
                                               with_logp_all=True)
    assert torch.equal(logp[0], logp[1])
    assert v[0] != v[1]
    # the agent interface has no way to pass a state
    import inspect

    assert list(inspect.signature(PPOAgent.act).parameters) == [
        "self", "observation", "action_mask", "rng"]


def test_train_runs_imitation_kl_and_distillation_then_resumes(tmp_path):
    args = ["--config", "configs/tiny.yaml", f"logging.runs_dir={tmp_path}",
            "imitation.positions=600", "imitation.num_envs=32", "imitation.epochs=1",
            "ppo.kl_coef=0.2", "ppo.kl_decay_updates=3", "network.critic=global",
            "network.critic_hidden=[16]", "distill.coef=0.5", "distill.labels_per_update=16",
            "search.endgame_nodes=2000", "search.pimc_talon=1", "search.pimc_samples=2",
            "eval.opponents=[random,expert_rules]"]
    out = subprocess.run([sys.executable, str(ROOT / "train.py"), *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "held-out agreement with the teacher" in out.stdout
    (run,) = tmp_path.iterdir()
    rep = json.loads((run / "imitation.json").read_text())
    assert rep["positions"] >= 600 and 0 <= rep["agreement"] <= 1
    assert (run / "checkpoints" / "imitation.pt").is_file()
    evals = read_evals(run)
    assert evals[0]["global_step"] == 0  # the clone is evaluated before PPO starts
    assert {"random", "expert_rules"} <= set(evals[-1])
    assert first_reaching(evals, "random", 0.0) is evals[0]
    out = subprocess.run([sys.executable, str(ROOT / "train.py"), "--resume", str(run),
                          "ppo.total_timesteps=2048"], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "held-out agreement" not in out.stdout  # the clone is not made twice
    summary = json.loads((run / "final_eval.json").read_text())
    assert summary["global_step"] == 2048
    strength = subprocess.run([sys.executable, "-m", "agents.strength", str(run),
                               "--opponents", "random,expert_rules"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
    assert strength.returncode == 0, strength.stderr
    assert "| update | steps | minutes |" in strength.stdout
    assert (run / "strength.png").is_file()


def test_distillation_prefer_greedy_labels_a_best_greedy_move_as_itself():
    """With ``prefer: greedy`` the search tries the learner's most likely move first, so
    wherever that move is as good as any, it is the label (ties never pull the policy
    toward the move it happened to sample)."""
    rules = Rules()
    venv = VectorEnv(rules, 64, seed=5, num_threads=1)
    obs, info = venv.reset()
    runs = {}
    for prefer in ("chosen", "greedy"):
        dist = Distiller(rules, SMALL_SEARCH,
                         DistillConfig(coef=1.0, labels_per_update=16, buffer_size=2000,
                                       background=False, prefer=prefer),
                         obs.shape[1], seed=0)
        runs[prefer] = dist
    for _ in range(100):
        ids, counts = legal_lists(info["action_mask"])
        greedy = ids[:, 0]  # "most likely": the first listed move
        chosen = ids[np.arange(len(ids)), counts - 1]  # "played": the last listed move
        for dist in runs.values():
            dist.submit(obs, ids, counts, chosen, greedy, np.random.default_rng(1))
        obs, _, _, _, info = venv.step(venv.random_actions())
    g, c = runs["greedy"], runs["chosen"]
    assert g.size > 20 and g.size == c.size
    # the same positions, labelled; greedy-first labels pick list position 0 more often
    g_label, c_label = g.good[: g.size].argmax(1), c.good[: c.size].argmax(1)
    assert (g_label == 0).mean() > (c_label == 0).mean()
    assert (c_label == c.counts[: c.size] - 1).mean() > (g_label == g.counts[: g.size] - 1).mean()


def test_distill_prefer_is_validated():
    from agents.ppo_config import ConfigError, load_config

    with pytest.raises(ConfigError, match="distill.prefer"):
        load_config("configs/ppo_2p_podkidnoy.yaml", ["distill.prefer=best"])
    with pytest.raises(ConfigError, match="distill.target"):
        load_config("configs/ppo_2p_podkidnoy.yaml", ["distill.target=all"])
