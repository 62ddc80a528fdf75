"""Fine-tuning after the end-game stage: the expert is frozen while PPO moves the main
head, heuristic opponents hand their end game to it, and a finished checkpoint can be
fine-tuned from the command line."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.finetune import adopt  # noqa: E402
from agents.ppo import (  # noqa: E402
    NetworkConfig,
    PPONet,
    legal_valid,
    load_checkpoint,
    save_checkpoint,
)
from agents.ppo_config import ConfigError, PPOConfig, load_config, preflight  # noqa: E402
from agents.ppo_train import Trainer  # noqa: E402
from agents.ppo_update import ppo_update  # noqa: E402
from agents.selfplay import EndgameHandoff, RandomPlayer  # noqa: E402
from durak_env import Rules  # noqa: E402
from durak_env.observation import state_size  # noqa: E402

from .positions import random_positions  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ["network.endgame_talon=1", "endgame.games=8", "endgame.workers=1",
        "endgame.finetune_timesteps=512"]


def test_the_handoff_plays_the_expert_greedy_move_exactly_where_the_expert_plays():
    rules = Rules()
    torch.manual_seed(0)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1))
    obs, mask, ids, counts = random_positions(rules)
    keep = counts > 1
    obs, mask, ids, counts = obs[keep], mask[keep], ids[keep], counts[keep]
    plays = net.endgame.plays(obs)
    assert plays.any() and not plays.all()
    rows = np.arange(len(obs))
    player = EndgameHandoff(RandomPlayer(), net)
    before = player.act(obs, mask, ids, counts, rows, np.random.default_rng(1))
    alone = RandomPlayer().act(obs, mask, ids, counts, rows, np.random.default_rng(1))
    assert np.array_equal(before, alone)  # no fitted expert yet: the player alone
    net.endgame.start()
    with torch.no_grad():  # make the expert differ from the main head
        for p in net.endgame.parameters():
            p.add_(torch.randn_like(p))
    got = player.act(obs, mask, ids, counts, rows, np.random.default_rng(1))
    assert np.array_equal(got[~plays], alone[~plays])
    with torch.no_grad():
        logits = net.endgame.logits(torch.from_numpy(obs[plays]), torch.from_numpy(ids[plays]),
                                    legal_valid(torch.from_numpy(counts[plays]), ids.shape[1]))
    assert np.array_equal(got[plays], ids[plays][np.arange(plays.sum()), logits.argmax(1)])
    assert mask[rows, got].all()


def test_greedy_expert_sampling_takes_the_expert_argmax_on_its_rows_only():
    """``greedy_expert``: where the fitted expert plays, the sampled action is its most
    likely one on every draw; elsewhere the policy still samples."""
    rules = Rules()
    torch.manual_seed(0)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1))
    obs, _, ids, counts = random_positions(rules)
    keep = counts > 1
    obs, ids, counts = (torch.from_numpy(a[keep]) for a in (obs, ids, counts))
    valid = legal_valid(counts, ids.shape[1])
    plays = net.endgame.plays(obs)
    assert plays.any() and not plays.all()
    with torch.no_grad():  # not fitted: the flag changes nothing
        torch.manual_seed(3)
        a, *_ = net.get_action_and_value(obs, ids, valid)
        torch.manual_seed(3)
        b, *_ = net.get_action_and_value(obs, ids, valid, greedy_expert=True)
    assert torch.equal(a, b)
    net.endgame.start()
    with torch.no_grad():
        for p in net.endgame.parameters():
            p.add_(torch.randn_like(p))
        best = net.policy_logits(obs, ids, valid).argmax(1)
        draws = [net.get_action_and_value(obs, ids, valid, greedy_expert=True)[0]
                 for _ in range(20)]
        plain = [net.get_action_and_value(obs, ids, valid)[0] for _ in range(20)]
    for d in draws:
        assert torch.equal(d[plays], best[plays])
        assert bool(valid[torch.arange(len(d)), d].all())
    # the main head's rows and, without the flag, the expert's rows keep sampling
    assert any(not torch.equal(d[~plays], draws[0][~plays]) for d in draws)
    assert any(not torch.equal(d[plays], best[plays]) for d in plain)


def test_finetune_greedy_reaches_the_learner_and_its_snapshots(tmp_path):
    cfg = load_config(ROOT / "configs" / "tiny.yaml",
                      [*TINY, f"logging.runs_dir={tmp_path}", "endgame.finetune_greedy=true",
                       "selfplay.pool_share=0.5"])
    trainer = Trainer(cfg, tmp_path)
    trainer.net.endgame.start()
    trainer.pool.add(trainer.net, cfg.selfplay.pool_size)
    players, n = trainer._players()
    assert n >= 1 and not any(p.greedy_expert for p in players[:n])
    assert not trainer.arena.greedy_expert
    trainer.update = trainer.num_updates
    trainer.start_finetune()
    trainer.pool.add(trainer.net, cfg.selfplay.pool_size)  # fine-tuning's pool starts empty
    players, n = trainer._players()
    assert trainer.arena.greedy_expert and all(p.greedy_expert for p in players[:n])
    trainer.close()


def test_fine_tuning_starts_a_new_optimizer_and_pool_and_a_resume_keeps_its_own(tmp_path):
    """Entering fine-tuning, the Adam moments of PPO and its snapshots (with no fitted
    expert) are dropped; between the stages the checkpoint holds the weights only; a run
    resumed in fine-tuning goes on with the optimizer and pool it saved."""
    cfg = load_config(ROOT / "configs" / "tiny.yaml", [*TINY, f"logging.runs_dir={tmp_path}",
                                                       "selfplay.snapshot_every=1"])
    (tmp_path / "checkpoints").mkdir()
    trainer = Trainer(cfg, tmp_path)
    trainer.train_step()
    assert trainer.opt.state and len(trainer.pool.states) == 1
    trainer.update = trainer.num_updates
    trainer.net.endgame.start()
    _, bare = load_checkpoint(trainer.save())
    assert bare["optimizer"] is None and "pool" not in bare
    trainer.start_finetune()
    assert not trainer.opt.state and not trainer.pool.states
    trainer.train_step()
    trainer.train_step()
    assert trainer.opt.state and len(trainer.pool.states) == 2
    _, full = load_checkpoint(trainer.save())
    assert full["optimizer"] is not None and len(full["pool"]["states"]) == 2
    trainer.close()
    again = Trainer(cfg, tmp_path, resume=True)
    again.start_finetune()
    assert again.update == trainer.update and len(again.pool.states) == 2
    for k, v in again.opt.state_dict()["state"].items():
        assert torch.equal(v["exp_avg"], trainer.opt.state_dict()["state"][k]["exp_avg"])
    again.close()


def test_finetune_symmetries_reach_the_rollouts_and_not_the_evaluations(tmp_path, monkeypatch):
    """``endgame.finetune_symmetries``: the learner's expert, its snapshots' and the
    handoff's average that many renamings in fine-tuning; an evaluation meets the expert
    as the checkpoint plays it, and the rollouts get theirs back after it."""
    import agents.ppo_train as ppo_train

    cfg = load_config(ROOT / "configs" / "tiny.yaml",
                      [*TINY, f"logging.runs_dir={tmp_path}", "network.endgame_symmetries=4",
                       "endgame.finetune_symmetries=1", "selfplay.heuristics=[random]",
                       "eval.opponents=[random]"])
    preflight(cfg)
    trainer = Trainer(cfg, tmp_path)
    trainer.net.endgame.start()
    trainer.update = trainer.num_updates
    nets = (trainer.net, *trainer.snap_nets)
    assert all(n.endgame.symmetries == 4 for n in nets)
    trainer.start_finetune()
    assert all(n.endgame.symmetries == 1 for n in nets)
    assert trainer.heuristics[0].net is trainer.net
    seen = []
    monkeypatch.setattr(ppo_train, "evaluate",
                        lambda net, *a, **k: seen.append(net.endgame.symmetries) or {})
    trainer.evaluate_all(10)
    assert seen == [4] and trainer.net.endgame.symmetries == 1
    trainer.close()


def test_an_expert_with_one_renaming_plays_its_plain_logits():
    rules = Rules()
    torch.manual_seed(0)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1, endgame_symmetries=6))
    obs, _, ids, counts = random_positions(rules)
    obs, ids, counts = (torch.from_numpy(a[:300]) for a in (obs, ids, counts))
    valid = legal_valid(counts, ids.shape[1])
    net.endgame.start()
    net.eval()
    with torch.no_grad():
        six = net.endgame.logits(obs, ids, valid)
        net.endgame.set_symmetries(1)
        one = net.endgame.logits(obs, ids, valid)
        plain = net.legal_logits(net.endgame.trunk(obs), ids, valid, net.endgame.actor,
                                 net.endgame.pair_bias)
        net.endgame.set_symmetries(6)
        again = net.endgame.logits(obs, ids, valid)
    assert torch.equal(one, plain) and torch.equal(again, six)
    assert not torch.allclose(torch.log_softmax(one, 1)[valid], six[valid])
    assert "endgame._sym_obs" not in net.state_dict()


def test_the_pool_keeps_one_copy_of_the_weights_its_snapshots_share(tmp_path):
    """The frozen expert is the same in every snapshot: the pool holds it once, in memory
    and in a checkpoint, and every snapshot still loads as the net it was taken of."""
    from agents.selfplay import Pool

    torch.manual_seed(0)
    net = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=1))
    net.endgame.start()
    for p in net.endgame.parameters():
        p.requires_grad_(False)
    pool, taken = Pool(), []
    for _ in range(3):
        with torch.no_grad():
            for p in net.trunk.parameters():
                p.add_(0.01)
        pool.add(net, 10)
        taken.append({k: v.clone() for k, v in net.state_dict().items()})
    first, last = pool.states[0], pool.states[-1]
    for k in first:
        shared = first[k].data_ptr() == last[k].data_ptr()
        assert shared == (not k.startswith("trunk.")), k
    path = tmp_path / "ck.pt"
    save_checkpoint(path, net, extra={"pool": pool.state()})
    _, data = load_checkpoint(path)
    one = sum(v.numel() for v in net.state_dict().values())
    frozen = sum(v.numel() for k, v in net.state_dict().items() if not k.startswith("trunk."))
    assert path.stat().st_size < 4 * (one + 3 * (one - frozen)) + 200_000
    for state, want in zip(Pool(**data["pool"]).states, taken, strict=True):
        copy_net = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=1))
        copy_net.load_state_dict(state)
        for k, v in copy_net.state_dict().items():
            assert torch.equal(v, want[k]), k


def test_fine_tuning_moves_the_main_head_and_leaves_the_expert_as_fitted(tmp_path):
    cfg = load_config(ROOT / "configs" / "tiny.yaml",
                      [*TINY, f"logging.runs_dir={tmp_path}", "ppo.lr=0.01",
                       "endgame.finetune_lr=0.01", "selfplay.heuristics=[random]",
                       "selfplay.heuristic_share=0.5"])
    trainer = Trainer(cfg, tmp_path)
    trainer.net.endgame.start()
    with torch.no_grad():
        for p in trainer.net.endgame.parameters():
            p.add_(0.1)
    trainer.update = trainer.num_updates  # PPO done
    trainer.start_finetune()
    assert all(isinstance(h, EndgameHandoff) for h in trainer.heuristics)
    expert = {k: v.clone() for k, v in trainer.net.endgame.state_dict().items()}
    main = {k: v.clone() for k, v in trainer.net.trunk.state_dict().items()}
    lrs = []
    while trainer.update < trainer.all_updates:
        lrs.append(trainer.learning_rate())
        trainer.train_step()
    for k, v in trainer.net.endgame.state_dict().items():
        assert torch.equal(v, expert[k]), k
    assert any(not torch.equal(v, main[k]) for k, v in trainer.net.trunk.state_dict().items())
    n = trainer.finetune_updates
    assert n == 2 and lrs == pytest.approx([0.01 * (1 - i / n) for i in range(n)])
    trainer.close()


@pytest.mark.parametrize("critic", ["shared", "global"])
def test_the_update_skips_the_frozen_expert_and_moves_the_weights_as_if_it_ran_it(critic):
    """In fine-tuning the rows the frozen expert plays only add constants to the loss:
    the update leaves the expert out there, and every weight moves exactly as when the
    expert is run on every row (plain SGD, so equal gradients mean equal weights)."""
    rules = Rules()
    torch.manual_seed(0)
    net = PPONet(rules, NetworkConfig(hidden=[32], endgame_talon=1, critic=critic,
                                      critic_hidden=[16], endgame_symmetries=2))
    obs, _, ids, counts = random_positions(rules)
    keep = np.random.default_rng(0).choice(np.flatnonzero(counts > 1), 600, replace=False)
    obs, ids, counts = (torch.from_numpy(a[keep]) for a in (obs, ids, counts))
    net.endgame.start()
    with torch.no_grad():
        for p in net.endgame.parameters():
            p.add_(0.1 * torch.randn_like(p))
    for p in net.endgame.parameters():
        p.requires_grad_(False)
    frozen = net.frozen_rows(obs)
    assert frozen is not None and 0 < int(frozen.sum()) < len(obs)
    w = int(counts.max())
    ids, valid = ids[:, :w], legal_valid(counts, w)
    gen = torch.Generator().manual_seed(1)
    pos = (torch.rand(len(obs), generator=gen) * counts).long()
    state = (torch.randn(len(obs), state_size(rules), generator=gen)
             if critic == "global" else None)
    with torch.no_grad():
        _, logp, _, value = net.get_action_and_value(obs, ids, valid, pos, state=state)
    batch = {"obs": obs, "ids": ids, "counts": counts, "pos": pos, "logp": logp,
             "value": torch.zeros(len(obs)) if value is None else value,
             "adv": torch.randn(len(obs), generator=gen),
             "ret": torch.randn(len(obs), generator=gen),
             "ref_logp": torch.log_softmax(torch.randn(len(obs), w, generator=gen), 1)}
    if state is not None:
        batch["state"] = state
    cfg = PPOConfig(update_epochs=2, minibatch_size=256)
    moved = {}
    for skip in (True, False):
        trial = copy.deepcopy(net)
        if not skip:
            trial.frozen_rows = lambda x: None  # the expert runs on every row
        opt = torch.optim.SGD([p for p in trial.parameters() if p.requires_grad], lr=0.5)
        stats = ppo_update(trial, opt, batch, cfg, np.random.default_rng(2), kl_coef=0.3)
        moved[skip] = (trial.state_dict(), stats)
    skipped, full = moved[True][0], moved[False][0]
    assert any(not torch.equal(skipped[k], v) for k, v in net.state_dict().items())
    for k, v in full.items():
        assert torch.allclose(skipped[k], v, atol=1e-5), k
        if k.startswith("endgame."):
            assert torch.equal(skipped[k], net.state_dict()[k]), k


def test_fine_tuning_labels_no_positions_the_frozen_expert_plays(tmp_path):
    """Distillation's labels reach the main head only: with the expert frozen over every
    talon a search labels, fine-tuning stops labelling; with a narrower expert it goes on."""
    for talon, distilling in ((3, False), (1, True)):
        cfg = load_config(ROOT / "configs" / "tiny.yaml",
                          [*TINY, f"network.endgame_talon={talon}", f"logging.runs_dir={tmp_path}",
                           "rules.deck_size=24", "rules.hand_size=3", "ppo.num_steps=120",
                           "distill.coef=1.0", "distill.labels_per_update=400",
                           "search.pimc_talon=3", "search.pimc_samples=2"])
        trainer = Trainer(cfg, tmp_path)
        assert trainer.distilling
        trainer.net.endgame.start()
        trainer.update = trainer.num_updates
        trainer.start_finetune()
        assert trainer.distilling == distilling
        trainer.train_step()
        trainer.distiller.collect(wait=True)
        labelled = trainer.distiller.obs[:trainer.distiller.size]
        if distilling:  # the positions with 2 or 3 talon cards, which the main head plays
            talon = np.rint(trainer.net.endgame.talon_sizes(labelled))
            assert len(labelled) and (talon >= 2).all() and (talon <= 3).all()
        else:
            assert len(labelled) == 0
        trainer.close()


def test_the_fine_tuning_cut_starts_with_the_fine_tuning_updates(tmp_path):
    """``endgame.finetune_cut_nodes``: the PPO updates before play their games out; the
    fine-tuning ones end them where every card is placed, by their solved value."""
    cfg = load_config(ROOT / "configs" / "tiny.yaml",
                      [*TINY, f"logging.runs_dir={tmp_path}", "rules.deck_size=24",
                       "rules.hand_size=3", "ppo.num_steps=120",
                       "endgame.finetune_cut_nodes=100000"])
    trainer = Trainer(cfg, tmp_path)
    assert trainer.arena.cut is None
    assert trainer._collect().cut == 0
    assert "charts/cut_share" not in trainer.train_step()
    trainer.net.endgame.start()
    trainer.update = trainer.num_updates
    trainer.start_finetune()
    assert trainer.arena.cut is not None
    assert trainer._collect().cut > 0
    assert trainer.train_step()["charts/cut_share"] > 0
    trainer.close()


def test_fine_tuning_needs_a_fitted_expert(tmp_path):
    cfg = load_config(ROOT / "configs" / "tiny.yaml", [*TINY, f"logging.runs_dir={tmp_path}"])
    trainer = Trainer(cfg, tmp_path)
    with pytest.raises(RuntimeError, match="fitted end-game expert"):
        trainer.start_finetune()
    trainer.close()


@pytest.mark.parametrize("overrides, message", [
    (["endgame.finetune_timesteps=100"], "set endgame.games > 0"),
    ([*TINY[:3], "endgame.finetune_timesteps=-1"], "finetune_timesteps must be >= 0"),
    ([*TINY, "endgame.finetune_lr=0"], "finetune_lr must be > 0"),
    ([*TINY, "endgame.finetune_cut_nodes=-1"], "finetune_cut_nodes must be >= 0"),
    ([*TINY, "endgame.finetune_symmetries=25"], "finetune_symmetries must be an int from 0 to 24"),
    ([*TINY[:3], "endgame.finetune_symmetries=1"], "set endgame.finetune_timesteps > 0"),
    ([*TINY[:3], "endgame.finetune_cut_nodes=100"], "set endgame.finetune_timesteps > 0"),
])
def test_bad_finetune_configs_are_refused(overrides, message):
    with pytest.raises(ConfigError, match=message):
        preflight(load_config(ROOT / "configs" / "tiny.yaml", overrides))


def test_train_fine_tunes_after_the_stage_and_the_cli_fine_tunes_a_checkpoint(tmp_path):
    runs = tmp_path / "runs"
    args = ["configs/tiny.yaml", f"logging.runs_dir={runs}", *TINY]
    out = subprocess.run([sys.executable, "train.py", "--config", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    (run,) = runs.iterdir()
    staged, data = load_checkpoint(run / "checkpoints" / "final.pt")
    data_staged = {"endgame": json.loads((run / "endgame.json").read_text())}
    steps = 16 * 16  # num_steps * num_envs of tiny.yaml
    assert data["update"] == 1024 // steps + 512 // steps and staged.endgame.active

    # the CLI: a checkpoint without an expert is refused and leaves no run directory
    plain = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=1))
    save_checkpoint(tmp_path / "plain.pt", plain, extra={"update": 4})
    cli = [sys.executable, "-m", "agents.finetune"]
    opts = ["--config", "configs/tiny.yaml", f"logging.runs_dir={tmp_path / 'ft'}", *TINY]
    refused = subprocess.run([*cli, str(tmp_path / "plain.pt"), *opts], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "no fitted end-game expert" in refused.stderr
    assert not any((tmp_path / "ft").iterdir())
    # ... and one with a fitted expert, past its PPO updates, is fine-tuned, with the
    # expert's play-time averaging (no weights) set by the config; other shapes are refused
    shipped = torch.load(run / "checkpoints" / "final.pt", weights_only=False)
    shipped["endgame"] = data_staged["endgame"]  # as ship_checkpoint stores it
    torch.save(shipped, tmp_path / "shipped.pt")
    wider = subprocess.run([*cli, str(tmp_path / "shipped.pt"), *opts, "network.hidden=[48]"],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert wider.returncode == 2 and "holds a network" in wider.stderr
    ok = subprocess.run([*cli, str(tmp_path / "shipped.pt"), *opts,
                         "endgame.finetune_timesteps=1024", "network.endgame_symmetries=4"],
                        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert ok.returncode == 0, ok.stderr
    (ft,) = (tmp_path / "ft").iterdir()
    tuned, data = load_checkpoint(ft / "checkpoints" / "final.pt")
    assert data["update"] == 4 + 1024 // steps
    assert staged.cfg.endgame_symmetries == 1 and tuned.cfg.endgame_symmetries == 4
    for k, v in staged.endgame.state_dict().items():
        assert torch.equal(tuned.endgame.state_dict()[k], v)
    assert (ft / "evals.jsonl").is_file()
    # fine-tuning a run's own checkpoint carries that run's evaluations (not only a
    # shipped NAME.pt's NAME_evals.jsonl), so that its plot shows the whole run
    again = tmp_path / "again"
    adopt(ft / "checkpoints" / "final.pt", load_config("configs/tiny.yaml", TINY), again)
    assert (again / "evals.jsonl").read_text() == (ft / "evals.jsonl").read_text()
    adopt(tmp_path / "shipped.pt", load_config("configs/tiny.yaml", TINY), tmp_path / "bare")
    assert not (tmp_path / "bare" / "evals.jsonl").exists()
    assert json.loads((ft / "endgame.json").read_text()) == data_staged["endgame"]
