"""``python -m agents.endgame_eval``: experts judged on the same labelled positions, each
as it plays, with the paired difference to the first."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.endgame_eval import compare, main, paired_difference  # noqa: E402
from agents.ppo import NetworkConfig, PPONet, legal_valid, save_checkpoint  # noqa: E402
from durak_env import Rules  # noqa: E402

from .positions import random_positions  # noqa: E402


def _expert(seed, talon=1):
    torch.manual_seed(seed)
    net = PPONet(Rules(), NetworkConfig(hidden=[32], endgame_talon=talon, endgame_hidden=[24]))
    net.endgame.start()
    return net


def _picks(net, obs, ids, counts):
    with torch.no_grad():
        return net.policy_logits(torch.from_numpy(obs), torch.from_numpy(ids),
                                 legal_valid(torch.from_numpy(counts), ids.shape[1])
                                 ).argmax(1).numpy()


@pytest.fixture
def files(tmp_path):
    """Two experts and a file of end-game positions labelled with the first one's moves,
    so that it never blunders there and the second one does wherever it differs."""
    rules = Rules()
    a, b = _expert(1), _expert(2)
    obs, _, ids, counts = random_positions(rules, 64, 0, 400)
    keep = a.endgame.plays(obs) & (counts > 1)
    obs, ids, counts = obs[keep], ids[keep], counts[keep]
    good = np.zeros(ids.shape, np.bool_)
    good[np.arange(len(obs)), _picks(a, obs, ids, counts)] = True
    n = len(obs)
    held = (np.arange(n) % 2).astype(np.int8)
    np.savez(tmp_path / "pos.npz", obs=obs, ids=ids, counts=counts, good=good,
             game=np.arange(n), held=held)
    np.savez(tmp_path / "nosplit.npz", obs=obs, ids=ids, counts=counts, good=good,
             game=np.arange(n))
    for name, net in (("a", a), ("b", b)):
        save_checkpoint(tmp_path / f"{name}.pt", net)
    save_checkpoint(tmp_path / "plain.pt", PPONet(rules, NetworkConfig(hidden=[32])))
    differs = _picks(b, obs, ids, counts) != _picks(a, obs, ids, counts)
    return tmp_path, held == 1, differs


def test_the_labelling_expert_never_blunders_and_the_other_one_where_it_differs(files):
    tmp, held, differs = files
    assert held.sum() > 20 and differs[held].any()
    r = compare(str(tmp / "pos.npz"), [str(tmp / "a.pt"), str(tmp / "b.pt")], ensemble=True)
    first, second, ens = r["rows"]
    assert first["positions"] == second["positions"] == held.sum() and first["blunders"] == 0
    assert second["blunders"] == differs[held].sum()
    mean, lo, hi = second["difference"]
    assert mean == pytest.approx(differs[held].mean()) and lo < mean < hi
    assert ens["name"] == "ensemble" and ens["positions"] == held.sum()
    assert sum(n for n, _ in second["by_talon"].values()) == held.sum()
    every = compare(str(tmp / "pos.npz"), [str(tmp / "b.pt")], all_rows=True)["rows"][0]
    assert every["positions"] == len(held) and every["blunders"] == differs.sum()


def test_paired_difference_of_equal_rows_is_zero():
    x = np.array([True, False, True, False])
    assert paired_difference(x, x) == (0.0, 0.0, 0.0)


def test_the_command_prints_the_table_and_refuses_what_it_cannot_judge(files, capsys):
    tmp, held, _ = files
    assert main([str(tmp / "pos.npz"), str(tmp / "a.pt"), str(tmp / "b.pt"), "--threads",
                 "1", "--json", str(tmp / "r.json")]) == 0
    out = capsys.readouterr().out
    assert f"{held.sum():,} informative positions (held-out games)" in out
    assert "| `" + str(tmp / "b.pt") + "` |" in out
    saved = json.loads((tmp / "r.json").read_text())  # the figures with what made them
    assert [r["name"] for r in saved["rows"]] == [str(tmp / "a.pt"), str(tmp / "b.pt")]
    assert saved["command"].startswith("python -m agents.endgame_eval ")
    assert saved["command"].endswith("--json " + str(tmp / "r.json")) and "commit" in saved
    for args, message in [
            ([str(tmp / "nosplit.npz"), str(tmp / "a.pt")], "--all-rows judges on every"),
            ([str(tmp / "pos.npz"), str(tmp / "plain.pt")], "has no fitted end-game expert"),
            ([str(tmp / "missing.npz"), str(tmp / "a.pt")], "no such file"),
            ([str(tmp / "pos.npz"), str(tmp / "a.pt"), "--threads", "0"], "--threads")]:
        assert main(args) == 2
        assert message in capsys.readouterr().err
