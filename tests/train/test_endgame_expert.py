"""The end-game expert: a second head chosen by the observation alone, which leaves the
policy unchanged until fitted, and the stage that fits it to solved positions while the
main trunk and head stay as they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.endgame import UNKNOWN, EndgameSolver  # noqa: E402
from agents.endgame_expert import blunder_rate, collect, fit, label  # noqa: E402
from agents.ppo import (  # noqa: E402
    NetworkConfig,
    PPOAgent,
    PPONet,
    legal_valid,
    load_checkpoint,
    save_checkpoint,
)
from agents.ppo_config import ConfigError, EndgameConfig, load_config  # noqa: E402
from agents.teacher import SearchConfig  # noqa: E402
from agents.view import fast_decode  # noqa: E402
from durak_env import Rules  # noqa: E402

from .positions import random_positions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = NetworkConfig(hidden=[64], endgame_talon=1)
SEARCH = SearchConfig(endgame_nodes=20000)


def _positions(rules, games=64, seed=0, steps=400):
    obs, _, ids, counts = random_positions(rules, games, seed, steps)
    return obs, ids, counts


def _logits(net, obs, ids, counts):
    with torch.no_grad():
        return net.policy_logits(torch.from_numpy(obs), torch.from_numpy(ids),
                                 legal_valid(torch.from_numpy(counts), ids.shape[1])).numpy()


def test_the_expert_plays_exactly_the_end_game_rows_and_nothing_else():
    rules = Rules()
    torch.manual_seed(0)
    net = PPONet(rules, SMALL)
    obs, ids, counts = _positions(rules)
    talon = np.array([fast_decode(o, rules).talon_size for o in obs])
    assert (talon <= 1).any() and (talon > 1).any()
    assert (net.endgame.plays(obs) == (talon <= 1)).all()
    assert (net.endgame.plays(torch.from_numpy(obs)).numpy() == (talon <= 1)).all()
    before = _logits(net, obs, ids, counts)
    plain = PPONet(rules, NetworkConfig(hidden=[64]))
    plain.load_state_dict({k: v for k, v in net.state_dict().items()
                           if not k.startswith("endgame.")})
    assert np.array_equal(_logits(plain, obs, ids, counts), before)  # inactive: no effect
    with torch.no_grad():  # an inactive expert is not read, whatever its weights
        for p in net.endgame.parameters():
            p.add_(torch.randn_like(p))
    assert np.array_equal(_logits(net, obs, ids, counts), before)
    net.endgame.start()  # a copy of the main head: the policy is unchanged
    assert np.allclose(_logits(net, obs, ids, counts), before, atol=1e-5)
    with torch.no_grad():
        for p in net.endgame.parameters():
            p.add_(0.5 * torch.randn_like(p))
    after = _logits(net, obs, ids, counts)
    changed = np.abs(after - before).max(1) > 1e-4
    assert (changed == (talon <= 1)).all()


def _active_expert(rules, seed):
    """A network whose started expert differs from its main head (as a fitted one does)."""
    torch.manual_seed(seed)
    net = PPONet(rules, SMALL)
    net.endgame.start()
    with torch.no_grad():
        for p in net.endgame.parameters():
            p.add_(0.5 * torch.randn_like(p))
    return net


def test_an_active_expert_survives_a_checkpoint(tmp_path):
    rules = Rules()
    net = _active_expert(rules, 1)
    save_checkpoint(tmp_path / "eg.pt", net)
    back, data = load_checkpoint(tmp_path / "eg.pt")
    assert back.endgame.active and data["network"]["endgame_talon"] == 1
    obs, ids, counts = _positions(rules, games=16, steps=200)
    assert np.array_equal(_logits(back, obs, ids, counts), _logits(net, obs, ids, counts))
    agent = PPOAgent(rules, path=str(tmp_path / "eg.pt"))
    mask = np.zeros((len(obs), agent.net.layout.n), np.bool_)
    for i in range(len(obs)):
        mask[i, ids[i, :counts[i]]] = True
    best = ids[np.arange(len(obs)), _logits(net, obs, ids, counts).argmax(1)]
    assert np.array_equal(agent.act_batch(obs, mask), best)


def _renamed(rules, k, obs, ids):
    from durak_env.symmetry import SuitSymmetry

    sym = SuitSymmetry(rules)
    kk = np.full(len(obs), k)
    return sym.observations(obs, kk), sym.actions(ids, kk)


def test_symmetries_average_the_expert_over_suit_renamings_when_it_plays(tmp_path):
    rules = Rules()
    net = _active_expert(rules, 3)
    obs, ids, counts = _positions(rules)
    eg = net.endgame.plays(obs)
    save_checkpoint(tmp_path / "plain.pt", net)
    data = torch.load(tmp_path / "plain.pt", weights_only=False)
    data["network"]["endgame_symmetries"] = 24
    torch.save(data, tmp_path / "sym.pt")
    sym, _ = load_checkpoint(tmp_path / "sym.pt")
    assert sym.endgame.active and len(sym.endgame._sym_obs) == 24
    # by hand: the mean of the plain expert's log-probabilities under the 24 renamings
    valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
    logp = []
    for k in range(24):
        o, i = _renamed(rules, k, obs, ids)
        logp.append(torch.log_softmax(torch.from_numpy(_logits(net, o, i, counts)), 1))
    want = torch.where(valid, torch.stack(logp).mean(0), torch.full_like(logp[0], -1e9))
    got = _logits(sym, obs, ids, counts)
    assert np.allclose(got[eg], want.numpy()[eg], atol=1e-4)
    assert np.array_equal(got[~eg], _logits(net, obs, ids, counts)[~eg])  # main head: as is
    # so the averaged expert does not tell renamed suits apart, and the plain one does
    o, i = _renamed(rules, 7, obs, ids)
    assert np.allclose(_logits(sym, o, i, counts)[eg], got[eg], atol=1e-4)
    assert not np.allclose(_logits(net, o, i, counts)[eg], _logits(net, obs, ids, counts)[eg],
                           atol=1e-3)
    sym.train()  # fitting shows one renaming at a time: the plain expert's logits
    assert np.allclose(_logits(sym, obs, ids, counts), _logits(net, obs, ids, counts),
                       atol=1e-5)
    for p in sym.endgame.parameters():  # frozen (fine-tuning): it plays as it will play
        p.requires_grad_(False)
    assert np.allclose(_logits(sym, obs, ids, counts), got, atol=1e-5)


def _gaps_moved(rules, obs, ids, seed):
    """Each position with its live ranks placed at random, in their order, among all ranks
    (the dead ones in the places left): the same position to the rules."""
    from durak_env.observation import observation_layout
    from durak_env.symmetry import RankPacking

    pack, rng = RankPacking(rules), np.random.default_rng(seed)
    ranks = rules.deck_size // 4
    at = {p.name: p for p in observation_layout(rules)}["discard"].offset
    dead = (obs[:, at:at + rules.deck_size] > 0.5).reshape(len(obs), ranks, 4).all(2)
    maps = np.empty((len(obs), rules.deck_size), np.int64)
    for i, d in enumerate(dead):
        slots = np.sort(rng.choice(ranks, int((~d).sum()), replace=False))
        new = np.empty(ranks, np.int64)
        new[~d], new[d] = slots, np.setdiff1d(np.arange(ranks), slots)
        maps[i] = new[np.arange(rules.deck_size) // 4] * 4 + np.arange(rules.deck_size) % 4
    return pack.observations(obs, maps), pack.actions(ids, maps), dead.any(1)


def test_a_packing_expert_does_not_tell_where_the_gaps_of_dead_ranks_lie():
    rules = Rules()
    obs, ids, counts = _positions(rules, games=64, steps=600)
    moved_obs, moved_ids, has_dead = _gaps_moved(rules, obs, ids, 5)
    torch.manual_seed(4)
    packing = PPONet(rules, NetworkConfig(hidden=[64], endgame_talon=1, endgame_pack_ranks=True))
    plain = PPONet(rules, SMALL)
    for net in (packing, plain):
        net.endgame.start()
        with torch.no_grad():
            for p in net.endgame.parameters():
                p.add_(0.5 * torch.randn_like(p))
    eg = plain.endgame.plays(obs)
    rows = eg & has_dead
    assert rows.sum() > 20
    got, twin = _logits(packing, obs, ids, counts), _logits(packing, moved_obs, moved_ids, counts)
    assert np.allclose(got[rows], twin[rows], atol=1e-5)
    assert not np.allclose(_logits(plain, obs, ids, counts)[rows],
                           _logits(plain, moved_obs, moved_ids, counts)[rows], atol=1e-3)
    with pytest.raises(ValueError, match="endgame_talon"):
        NetworkConfig(endgame_pack_ranks=True).validate()
    with pytest.raises(ValueError, match="true or false"):
        NetworkConfig(endgame_talon=1, endgame_pack_ranks="yes").validate()


def test_labels_are_the_solver_best_moves_and_unproven_positions_are_dropped():
    rules = Rules()
    torch.manual_seed(2)
    net = PPONet(rules, SMALL)
    cfg = EndgameConfig(games=40, workers=1)
    data = collect(net, rules, cfg, seed=3)
    assert len(data["obs"]) > 50
    assert all(fast_decode(o, rules).talon_size <= 1 for o in data["obs"])
    assert (data["counts"] > 1).all()
    labelled = label(data, rules, SEARCH, workers=2, chunk=64)
    assert 0 < len(labelled["obs"]) <= len(data["obs"])
    assert (np.diff(labelled["game"]) >= 0).all()  # each game's positions together
    assert not (np.diff(data["game"]) >= 0).all()  # (collected turn by turn)
    solver = EndgameSolver(rules, SEARCH.endgame_nodes, last_card=True, cheap_first=True)
    for i in range(0, len(labelled["obs"]), 7):  # a fresh solver agrees
        n = labelled["counts"][i]
        legal = labelled["ids"][i, :n].tolist()
        solver.reset()
        solver.load(fast_decode(labelled["obs"][i], rules))
        values = solver.root_values(legal, SEARCH.endgame_nodes)
        good = labelled["good"][i, :n]
        assert good.any() and not labelled["good"][i, n:].any()
        # the labeller's workers keep their tables across chunks, so under the node cap
        # each side may settle a move the other leaves unknown; where both know a value
        # it is the same, so no labelled move is worse than a move the fresh solver knows
        known = values != UNKNOWN
        if known[good].any():
            best = values[good & known]
            assert (best == best[0]).all() and best[0] >= values[known].max()
        if known.all():
            assert np.array_equal(good, values == values.max()) or values[good].min() == 1
    tight = label(data, rules, SearchConfig(endgame_nodes=30), workers=1)  # prove little
    assert len(tight["obs"]) < len(labelled["obs"])


def test_fitting_moves_the_expert_toward_the_best_moves_and_leaves_the_main_head_alone():
    rules = Rules()
    torch.manual_seed(3)
    net = PPONet(rules, SMALL)
    main = {k: v.clone() for k, v in net.state_dict().items() if not k.startswith("endgame.")}
    cfg = EndgameConfig(games=150, epochs=30, lr=3e-3, minibatch_size=128, workers=2)
    data = label(collect(net, rules, cfg, seed=4), rules, SEARCH, cfg.workers)
    rows = np.arange(len(data["obs"]))
    informative = rows[data["good"].sum(1) < data["counts"]]
    assert len(informative) > 100
    net.endgame.start()
    before = blunder_rate(net, data, rows)
    curve = fit(net, data, informative, rows, cfg, seed=5)
    assert len(curve) == cfg.epochs and curve[-1] == blunder_rate(net, data, rows)
    assert curve[-1] < 0.5 * before, (before, curve)
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in main.items())


@pytest.mark.parametrize("overrides, message", [
    (["endgame.games=10", "rules.num_players=3"], "needs two players"),
    (["endgame.games=10"], "needs network.endgame_talon from 0 to 3"),
    (["endgame.games=10", "network.endgame_talon=4"], "needs network.endgame_talon from 0 to 3"),
    (["endgame.games=10", "network.endgame_talon=2", "search.pimc_talon=0"],
     "needs network.endgame_talon from 0 to 1"),
    (["endgame.games=10", "network.endgame_talon=1", "search.endgame_nodes=0"],
     "needs the end-game solver"),
    (["endgame.games=10", "network.endgame_talon=1", "endgame.opponent=nobody"],
     "endgame.opponent"),
    (["endgame.rounds=0"], "endgame.rounds must be >= 1"),
    (["endgame.pimc_samples=-1"], "endgame.pimc_samples must be >= 0"),
    (["endgame.games=10", "network.endgame_talon=1", "endgame.collect_talon=2"],
     r"collect_talon must be null or an integer from 0 to network.endgame_talon \(1\)"),
    (["endgame.games=10", "network.endgame_talon=1", "endgame.collect_talon=-1"],
     "collect_talon must be null or an integer"),
    (["endgame.games=10", "network.endgame_talon=3", "endgame.collect_talon=1",
      "endgame.collect_min_talon=2"],
     r"collect_min_talon must be an integer from 0 to endgame.collect_talon or "
     r"network.endgame_talon \(1\), got 2"),
    (["endgame.games=10", "network.endgame_talon=1", "endgame.collect_min_talon=-1"],
     "collect_min_talon must be an integer"),
    (["network.endgame_talon=-1"], "endgame_talon must be null or an int >= 0"),
    (["network.endgame_talon=1", "network.endgame_symmetries=0"],
     "endgame_symmetries must be an int from 1 to 24, got 0"),
    (["network.endgame_talon=1", "network.endgame_symmetries=25"],
     "endgame_symmetries must be an int from 1 to 24, got 25"),
    (["network.endgame_symmetries=6"], "averages the end-game expert: set network.endgame_talon"),
])
def test_bad_endgame_configs_are_refused(overrides, message):
    from agents.ppo_config import preflight

    with pytest.raises(ConfigError, match=message):
        preflight(load_config(ROOT / "configs" / "tiny.yaml", overrides))


def test_train_runs_the_stage_after_ppo_and_a_resume_skips_it(tmp_path):
    args = ["configs/tiny.yaml", f"logging.runs_dir={tmp_path}", "network.endgame_talon=1",
            "endgame.games=40", "endgame.epochs=2", "endgame.workers=1"]
    out = subprocess.run([sys.executable, "train.py", "--config", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "end game:" in out.stdout
    (run,) = tmp_path.iterdir()
    rep = json.loads((run / "endgame.json").read_text())
    assert rep["rounds"][0]["positions"] > 0
    net, _ = load_checkpoint(run / "checkpoints" / "final.pt")
    assert net.endgame.active
    again = subprocess.run([sys.executable, "train.py", "--resume", str(run)], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "end game:" not in again.stdout


STOP_AFTER_ROUND = """
import os, runpy, sys
import agents.endgame_expert as stage

real = stage.write_report

def write_report(path, rep):
    real(path, rep)
    if path.name == "endgame_rounds.json":
        os._exit(3)  # killed right after the first round was saved

stage.write_report = write_report
sys.argv = ["train.py", *sys.argv[1:]]
runpy.run_path("train.py", run_name="__main__")
"""


def test_a_run_killed_during_the_stage_goes_on_after_its_last_round(tmp_path):
    """The stage saves the checkpoint, the positions and the report after each round;
    ``--resume`` plays the rounds left only, on the saved positions and the expert of the
    last round, and the run then ends as an uninterrupted one does."""
    driver = tmp_path / "stop.py"
    driver.write_text(STOP_AFTER_ROUND)
    runs = tmp_path / "runs"
    args = ["--config", "configs/tiny.yaml", f"logging.runs_dir={runs}", "eval.every=0",
            "network.endgame_talon=1", "endgame.games=30", "endgame.rounds=2",
            "endgame.epochs=1", "endgame.workers=1", "endgame.finetune_timesteps=256"]
    out = subprocess.run([sys.executable, str(driver), *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 3, out.stderr
    (run,) = runs.iterdir()
    first = json.loads((run / "endgame_rounds.json").read_text())
    assert len(first["rounds"]) == 1 and not (run / "endgame.json").exists()
    saved = np.load(run / "endgame_data.npz")
    assert len(saved["obs"]) == first["rounds"][0]["positions"] > 0
    net, ck = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert net.endgame.active  # the expert of round 1
    # fine-tuning starts a new optimizer and pool: between the stages only the weights
    assert ck["optimizer"] is None and "pool" not in ck

    again = subprocess.run([sys.executable, "train.py", "--resume", str(run)], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "end game:" in again.stdout
    rep = json.loads((run / "endgame.json").read_text())
    assert len(rep["rounds"]) == 2
    assert rep["rounds"][0] == first["rounds"][0]  # not played again
    assert rep["rounds"][1]["positions"] == (rep["rounds"][0]["positions"]
                                             + rep["rounds"][1]["new_positions"])
    assert rep["seconds"] > first["seconds"]
    data = np.load(run / "endgame_data.npz")
    assert np.array_equal(data["obs"][: len(saved["obs"])], saved["obs"])
    assert set(np.unique(data["game"] // 30)) == {0, 1}
    assert json.loads((run / "final_eval.json").read_text())["updates"] == 4 + 1
    done = subprocess.run([sys.executable, "train.py", "--resume", str(run)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "end game:" not in done.stdout


@pytest.mark.parametrize("hidden, first_round_active", [(None, True), ([24], False)])
def test_a_fresh_expert_lets_the_main_head_play_the_first_rounds_games(
        monkeypatch, hidden, first_round_active):
    """An expert copied from the main head plays from the start (the same moves); one of
    its own widths has random weights, so the first round's games are the main head's."""
    import agents.endgame_expert as stage

    torch.manual_seed(3)
    net = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=1, endgame_hidden=hidden))
    active, real = [], stage.collect

    def collect(net, *args, **kwargs):
        active.append(net.endgame.active)
        return real(net, *args, **kwargs)

    monkeypatch.setattr(stage, "collect", collect)
    stage.run_stage(net, EndgameConfig(games=12, rounds=2, epochs=1, workers=1), SEARCH,
                    seed=0, num_threads=1, progress=False)
    assert active == [first_round_active, True] and net.endgame.active


@pytest.mark.parametrize("stage_samples, used", [(0, 5), (24, 24)])
def test_the_stage_labels_with_its_own_deal_count_if_it_sets_one(
        monkeypatch, stage_samples, used):
    """``endgame.pimc_samples`` replaces ``search.pimc_samples`` for this stage's labels
    only (0 keeps the search section's)."""
    import agents.endgame_expert as stage

    torch.manual_seed(3)
    net = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=3))
    seen, real = [], stage.label

    def label(data, rules, search, *args, **kwargs):
        seen.append(search)
        return real(data, rules, search, *args, **kwargs)

    monkeypatch.setattr(stage, "label", label)
    search = SearchConfig(endgame_nodes=20000, pimc_talon=3, pimc_samples=5, pimc_nodes=200)
    stage.run_stage(net, EndgameConfig(games=8, epochs=1, workers=1, collect_min_talon=2,
                                       pimc_samples=stage_samples),
                    search, seed=0, num_threads=1, progress=False)
    assert [s.pimc_samples for s in seen] == [used]
    assert seen[0].pimc_nodes == 200 and search.pimc_samples == 5  # the rest as it was


def test_the_stage_labels_with_its_own_node_cap_if_it_sets_one(monkeypatch):
    """``endgame.solver_nodes`` replaces ``search.endgame_nodes`` for this stage's labels
    only (0 keeps the search section's)."""
    import agents.endgame_expert as stage

    torch.manual_seed(3)
    net = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=1))
    seen, real = [], stage.label

    def label(data, rules, search, *args, **kwargs):
        seen.append(search.endgame_nodes)
        return real(data, rules, search, *args, **kwargs)

    monkeypatch.setattr(stage, "label", label)
    search = SearchConfig(endgame_nodes=20000)
    for nodes in (0, 200):
        stage.run_stage(net, EndgameConfig(games=8, epochs=1, workers=1, solver_nodes=nodes),
                        search, seed=0, num_threads=1, progress=False)
    assert seen == [20000, 200] and search.endgame_nodes == 20000


def test_the_cli_adds_an_expert_to_a_checkpoint_without_one(tmp_path):
    rules = Rules()
    torch.manual_seed(5)
    plain = PPONet(rules, NetworkConfig(hidden=[32]))
    save_checkpoint(tmp_path / "plain.pt", plain, extra={"imitation": {"agreement": 0.5}})
    cli = [sys.executable, "-m", "agents.endgame_expert", str(tmp_path / "plain.pt"),
           "--config", "configs/tiny.yaml", "--out", str(tmp_path / "eg.pt"), "--no-progress"]
    refused = subprocess.run(cli, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "endgame.games is 0" in refused.stderr
    out = subprocess.run([*cli, "network.endgame_talon=1", "endgame.games=30",
                          "endgame.epochs=1", "endgame.workers=1",
                          "--save-data", str(tmp_path / "positions.npz")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    net, data = load_checkpoint(tmp_path / "eg.pt")
    assert net.endgame.active and data["imitation"] == {"agreement": 0.5}
    assert data["endgame"]["rounds"][0]["positions"] > 0
    assert data["config"]["endgame"]["games"] == 30
    saved = np.load(tmp_path / "positions.npz")
    assert len(saved["obs"]) == data["endgame"]["rounds"][0]["positions"]
    legal = np.arange(saved["ids"].shape[1])[None, :] < saved["counts"][:, None]
    assert saved["good"].any(1).all() and not (saved["good"] & ~legal).any()
    for k, v in plain.state_dict().items():  # the main trunk and head are the old ones
        assert torch.equal(net.state_dict()[k], v)


def test_refit_goes_on_from_the_fitted_expert_and_can_take_over_larger_talons(tmp_path):
    rules = Rules()
    torch.manual_seed(7)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1))
    net.endgame.start()
    with torch.no_grad():  # an expert unlike the main head, so that a restart would show
        for p in net.endgame.parameters():
            p.add_(0.5 * torch.randn_like(p))
    first = {"command": "first fit", "rounds": [], "seconds": 1.0}
    save_checkpoint(tmp_path / "eg.pt", net, extra={"endgame": first})
    save_checkpoint(tmp_path / "plain.pt", PPONet(rules, NetworkConfig(hidden=[32])))
    options = ["--config", "configs/tiny.yaml", "--out", str(tmp_path / "eg2.pt"),
               "--no-progress", "endgame.games=40", "endgame.epochs=1", "endgame.workers=1",
               "endgame.lr=1e-9"]

    def run(checkpoint, *args):
        return subprocess.run([sys.executable, "-m", "agents.endgame_expert", checkpoint,
                               *options, *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)

    for args, message in [((str(tmp_path / "eg.pt"), "network.endgame_talon=2"),
                           "already has a fitted end-game expert (--refit"),
                          ((str(tmp_path / "plain.pt"), "network.endgame_talon=2", "--refit"),
                           "--refit needs a fitted end-game expert"),
                          ((str(tmp_path / "eg.pt"), "network.endgame_talon=0", "--refit"),
                           "would stop the expert playing")]:
        out = run(*args)
        assert out.returncode == 2 and message in out.stderr, out.stderr
    out = run(str(tmp_path / "eg.pt"), "network.endgame_talon=2", "--refit")
    assert out.returncode == 0, out.stderr
    new, data = load_checkpoint(tmp_path / "eg2.pt")
    assert new.endgame.active and new.endgame.talon == 2
    assert data["endgame"]["previous"] == [first]
    assert data["endgame"]["command"].startswith("python -m agents.endgame_expert ")
    assert {"commit", "date"} <= set(data["endgame"])  # what made the fit, beside it
    (r,) = data["endgame"]["rounds"]
    assert r["talon"] == 2 and set(r["by_talon"]) <= {"0", "1", "2"}
    # with a learning rate of 1e-9 the weights barely move: it went on from the fitted
    # expert, not from a fresh copy of the main head
    for k, v in net.state_dict().items():
        assert torch.allclose(new.state_dict()[k], v, atol=1e-5), k
    obs, ids, counts = _positions(rules, games=16, steps=300)
    talon = np.array([fast_decode(o, rules).talon_size for o in obs])
    assert (talon == 2).any()
    assert (new.endgame.plays(obs) == (talon <= 2)).all()


def test_an_expert_of_its_own_width_starts_fresh_and_replace_swaps_it_in(tmp_path):
    """``network.endgame_hidden`` gives the expert a trunk of its own widths (fresh weights,
    not a copy of the main head); ``--replace`` fits such an expert in place of a fitted
    one (here one that packs dead ranks), the main trunk and head untouched, and ``--refit``
    refuses to change its shape or its packing."""
    rules = Rules()
    torch.manual_seed(9)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1, endgame_hidden=[48, 16]))
    widths = [m.out_features for m in net.endgame.trunk if isinstance(m, torch.nn.Linear)]
    assert widths == [48, 16] and net.endgame.actor.in_features == 16
    obs, ids, counts = _positions(rules)
    main = PPONet(rules, NetworkConfig(hidden=[32]))
    main.load_state_dict({k: v for k, v in net.state_dict().items()
                          if not k.startswith("endgame.")})
    assert np.array_equal(_logits(net, obs, ids, counts), _logits(main, obs, ids, counts))
    net.endgame.start()  # now it plays the end game with its own (fresh) weights
    after, plain = _logits(net, obs, ids, counts), _logits(main, obs, ids, counts)
    ends = net.endgame.plays(obs) & (counts > 1)
    assert np.array_equal(after[~ends], plain[~ends]) and not np.allclose(after[ends],
                                                                          plain[ends])
    save_checkpoint(tmp_path / "wide.pt", net)
    back, _ = load_checkpoint(tmp_path / "wide.pt")
    assert np.array_equal(_logits(back, obs, ids, counts), after)

    torch.manual_seed(10)
    fitted = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1))
    fitted.endgame.start()
    save_checkpoint(tmp_path / "eg.pt", fitted, extra={"endgame": {"rounds": []}})
    base = [sys.executable, "-m", "agents.endgame_expert", str(tmp_path / "eg.pt"), "--config",
            "configs/tiny.yaml", "--out", str(tmp_path / "eg2.pt"), "--no-progress",
            "network.endgame_talon=1", "network.endgame_hidden=[24]", "endgame.games=20",
            "endgame.epochs=1", "endgame.workers=1"]
    for flags, message in [(["--refit"], "--replace fits a new one"),
                           (["--refit", "--replace"], "give one of them"),
                           ([], "already has a fitted end-game expert")]:
        out = subprocess.run([*base, *flags], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 2 and message in out.stderr, out.stderr
    same_shape = [a for a in base if not a.startswith("network.endgame_hidden")]
    out = subprocess.run([*same_shape, "--refit", "network.endgame_pack_ranks=true"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "network.endgame_pack_ranks=False" in out.stderr, out.stderr
    out = subprocess.run([*base, "--replace", "network.endgame_pack_ranks=true"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    new, data = load_checkpoint(tmp_path / "eg2.pt")
    assert new.cfg.endgame_hidden == [24] and new.endgame.active and data["endgame"]["replaced"]
    assert new.cfg.endgame_pack_ranks and new.endgame._pack is not None
    assert new.endgame.trunk[0].out_features == 24
    assert data["endgame"]["rounds"][0]["positions"] > 0
    for k, v in fitted.state_dict().items():
        if not k.startswith("endgame."):
            assert torch.equal(new.state_dict()[k], v), k


def test_positions_of_an_earlier_run_are_fitted_on_again_and_bad_files_refused(tmp_path):
    """``--data`` reads back what ``--save-data`` wrote: the positions the expert plays
    join each round's (their games held out apart from this run's), other talons are
    left out, and files of other rules or no positions at all are refused up front."""
    from agents.endgame_expert import load_positions

    rules = Rules()
    torch.manual_seed(8)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1))
    net.endgame.start()
    save_checkpoint(tmp_path / "eg.pt", net, extra={"endgame": {"rounds": []}})
    obs, ids, counts = _positions(rules, games=24, steps=300)
    talon = np.array([fast_decode(o, rules).talon_size for o in obs])
    rows = np.flatnonzero((talon <= 2) & (counts > 1))
    labelled = label({"obs": obs[rows], "ids": ids[rows], "counts": counts[rows],
                      "game": rows % 24}, rules, SearchConfig(endgame_nodes=20000, pimc_talon=2),
                     workers=1)
    kept_talon = np.array([fast_decode(o, rules).talon_size for o in labelled["obs"]])
    assert (kept_talon == 2).any() and (kept_talon <= 1).any()
    np.savez(tmp_path / "earlier.npz", **labelled)
    expected = int((kept_talon <= 1).sum())  # the expert below plays talons 0 and 1
    assert len(load_positions(tmp_path / "earlier.npz", net)["obs"]) == expected
    np.savez(tmp_path / "wide.npz", **dict(labelled, obs=np.zeros((len(labelled["obs"]), 7),
                                                                np.float32)))
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    base = [sys.executable, "-m", "agents.endgame_expert", str(tmp_path / "eg.pt"), "--config",
            "configs/tiny.yaml", "--out", str(tmp_path / "eg2.pt"), "--no-progress", "--refit",
            "network.endgame_talon=1", "endgame.games=20", "endgame.epochs=1",
            "endgame.workers=1"]
    for path, message in [("wide.npz", "other rules"),
                          ("other.npz", "not a file of labelled positions")]:
        with pytest.raises(ValueError, match=message):
            load_positions(tmp_path / path, net)
    out = subprocess.run([*base, "--data", str(tmp_path / "missing.npz")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "no such file" in out.stderr, out.stderr
    assert not (tmp_path / "eg2.pt").exists()
    out = subprocess.run([*base, "--data", str(tmp_path / "earlier.npz"),  # twice: two runs
                          "--data", str(tmp_path / "earlier.npz"),
                          "--save-data", str(tmp_path / "all.npz")], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    _, data = load_checkpoint(tmp_path / "eg2.pt")
    rep = data["endgame"]
    (r,) = rep["rounds"]
    assert rep["prior_positions"] == 2 * expected
    assert r["positions"] == 2 * expected + r["new_positions"]
    saved = np.load(tmp_path / "all.npz")
    assert len(saved["obs"]) == r["positions"]
    # the earlier games keep their own ids, after this run's 20 games, and the two files'
    # games stay apart
    earlier_games = len(np.unique(labelled["game"][kept_talon <= 1]))
    assert len(np.unique(saved["game"][:expected])) == earlier_games
    assert len(np.unique(saved["game"][:2 * expected])) == 2 * earlier_games
    assert saved["game"][:expected].min() == 20
    # the earlier file had no held-out split: it was drawn anew; the file written now keeps
    # it, and a fit that reads that file holds out the same positions
    assert rep["prior_split_redrawn"] == 2 * expected
    assert set(np.unique(saved["held"])) <= {0, 1}
    from agents.endgame_expert import run_stage

    cfg = load_config(ROOT / "configs/tiny.yaml", [
        "network.endgame_talon=1", "endgame.games=8", "endgame.epochs=1", "endgame.workers=1",
        "endgame.holdout=0.5"])
    again = load_positions(tmp_path / "all.npz", net)
    rep2 = run_stage(net, cfg.endgame, SEARCH, seed=99, progress=False, start=False,
                     prior=again, save_data=tmp_path / "again.npz")
    assert rep2["prior_split_redrawn"] == 0
    resaved = np.load(tmp_path / "again.npz")
    assert (resaved["held"][: len(saved["held"])] == saved["held"]).all()
    assert rep2["rounds"][0]["held_out"] == int(resaved["held"].sum())
    np.savez(tmp_path / "bad_held.npz", **dict(labelled, held=np.full(len(labelled["obs"]), 3)))
    with pytest.raises(ValueError, match="held-out flags"):
        load_positions(tmp_path / "bad_held.npz", net)


def test_anneal_lr_decays_the_step_size_linearly_to_zero(monkeypatch):
    rules = Rules()
    torch.manual_seed(6)
    net = PPONet(rules, SMALL)
    rng = np.random.default_rng(0)
    obs, ids, counts = _positions(rules, games=32, steps=300)
    rows = np.flatnonzero(net.endgame.plays(obs) & (counts > 1))[:200]
    good = np.zeros(ids.shape, np.bool_)
    good[rows, rng.integers(0, counts[rows])] = True  # any labels: the schedule is tested
    data = {"obs": obs, "ids": ids, "counts": counts, "good": good}
    seen = []
    step = torch.optim.Adam.step

    def record(self, *a, **k):
        seen.append(self.param_groups[0]["lr"])
        return step(self, *a, **k)

    monkeypatch.setattr(torch.optim.Adam, "step", record)
    net.endgame.start()
    fit(net, data, rows, rows[:10], EndgameConfig(epochs=3, lr=0.01, minibatch_size=64,
                                                  anneal_lr=True), seed=0)
    steps = 3 * 4  # 200 rows in minibatches of 64
    assert seen == pytest.approx([0.01 * (1 - i / steps) for i in range(steps)])
    seen.clear()
    fit(net, data, rows, rows[:10], EndgameConfig(epochs=1, lr=0.01, minibatch_size=64), seed=0)
    assert seen == [0.01] * 4


def test_collect_keeps_both_seats_and_sampled_play_is_seeded():
    """``play_against`` with ``both_seats`` shows the opponent's decisions too (the
    stage keeps the end-game positions of both seats), and sampled play depends on its
    seed alone, leaving torch's global generator as it was."""
    from agents.selfplay import play_against

    rules = Rules()
    torch.manual_seed(4)
    net = PPONet(rules, SMALL)
    seen = {False: [], True: []}
    for both in (False, True):
        def hook(obs, ids, counts, rows, actions, both=both):
            assert all(actions[g] in ids[g, : counts[g]] for g in rows)
            seen[both].append(set(rows.tolist()))

        play_against(net, rules, "expert_rules", 16, seed=5, greedy=False,
                     on_decision=hook, both_seats=both)
    # the same games (the hook does not change play): every live game at each step with
    # both seats, a strict subset (the learner's turns) without
    assert len(seen[True]) >= len(seen[False]) > 10
    assert seen[True][0] == set(range(16))
    assert all(any(m <= s for s in seen[True]) for m in seen[False])
    assert sum(map(len, seen[True])) > sum(map(len, seen[False])) + 50
    state = torch.get_rng_state()
    a = collect(net, rules, EndgameConfig(games=24), seed=6)
    assert torch.equal(state, torch.get_rng_state())
    torch.rand(3)  # another global stream: the same positions
    b = collect(net, rules, EndgameConfig(games=24), seed=6)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    c = collect(net, rules, EndgameConfig(games=24), seed=7)
    assert not np.array_equal(a["counts"], c["counts"]) or not np.array_equal(a["obs"], c["obs"])
    # collect_talon keeps the same games' positions with at most that many talon cards
    talon = np.rint(net.endgame.talon_sizes(a["obs"]))
    assert (talon == 0).any() and (talon == 1).any()
    d = collect(net, rules, EndgameConfig(games=24, collect_talon=0), seed=6)
    assert np.array_equal(d["obs"], a["obs"][talon == 0])
    assert np.array_equal(d["game"], a["game"][talon == 0])
    # collect_min_talon keeps those with at least that many
    e = collect(net, rules, EndgameConfig(games=24, collect_min_talon=1), seed=6)
    assert np.array_equal(e["obs"], a["obs"][talon >= 1])
    assert np.array_equal(e["game"], a["game"][talon >= 1])


def test_agent_symmetries_average_the_main_head_and_leave_the_expert_as_it_plays(tmp_path):
    rules = Rules()
    net = _active_expert(rules, 4)
    obs, ids, counts = _positions(rules, games=16, steps=120)
    eg = net.endgame.plays(obs)
    assert eg.any() and (~eg).any()
    save_checkpoint(tmp_path / "net.pt", net)
    mask = np.zeros((len(obs), net.layout.n), bool)
    for r in range(len(obs)):
        mask[r, ids[r, :counts[r]]] = True
    plain = PPOAgent(rules, path=str(tmp_path / "net.pt"))
    agent = PPOAgent(rules, path=str(tmp_path / "net.pt"), symmetries=24)
    _, _, got = agent._legal_logits(obs, mask)
    ids_a, _, base = plain._legal_logits(obs, mask)
    assert np.array_equal(ids_a, ids)
    valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
    main_only = PPONet(rules, NetworkConfig(hidden=[64]))  # the main trunk and head alone
    main_only.load_state_dict({k: v for k, v in net.state_dict().items()
                               if not k.startswith("endgame.")})
    logp = [torch.log_softmax(torch.from_numpy(_logits(main_only, *_renamed(rules, k, obs, ids),
                                                       counts)), 1) for k in range(24)]
    want = torch.where(valid, torch.stack(logp).mean(0), torch.full_like(logp[0], -1e9))
    assert np.allclose(got[~eg], want.numpy()[~eg], atol=1e-4)
    assert np.array_equal(got[eg], base[eg])  # the expert plays as its own setting says
    # the main head's log-probabilities no longer depend on the names of the suits
    o, i = _renamed(rules, 11, obs, ids)
    renamed_mask = np.zeros_like(mask)
    for r in range(len(obs)):
        renamed_mask[r, i[r, :counts[r]]] = True
    ids_r, _, got_r = agent._legal_logits(o, renamed_mask)
    for r in np.flatnonzero(~eg):  # the agent lists legal ids in id order: match them up
        at = {a: j for j, a in enumerate(ids_r[r, :counts[r]])}
        back = [at[a] for a in i[r, :counts[r]]]
        assert np.allclose(got_r[r, back], got[r, :counts[r]], atol=1e-4)
    for bad in (0, 25, 1.5):
        with pytest.raises(ValueError, match="symmetries must be an integer from 1 to 24"):
            PPOAgent(rules, path=str(tmp_path / "net.pt"), symmetries=bad)
