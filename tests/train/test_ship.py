"""``scripts/ship_checkpoint.py --set``: only network settings without weights may change
at shipping time, and a bad value is refused when the network is built."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import ship_checkpoint  # noqa: E402


def test_set_takes_settings_without_weights_only():
    assert ship_checkpoint.play_settings([]) == {}
    assert ship_checkpoint.play_settings(["network.endgame_symmetries=6"]) == {
        "endgame_symmetries": 6}
    for bad in ("network.hidden=[64]", "endgame_symmetries=6", "network.endgame_symmetries",
                "ppo.lr=0.1"):
        with pytest.raises(ValueError, match="settings without weights"):
            ship_checkpoint.play_settings([bad])


def test_a_bad_setting_does_not_build_a_network(tmp_path):
    from agents.ppo import NetworkConfig, PPONet, load_checkpoint, save_checkpoint
    from durak_env import Rules

    save_checkpoint(tmp_path / "a.pt", PPONet(Rules(), NetworkConfig(hidden=[16],
                                                                      endgame_talon=1)))
    data = torch.load(tmp_path / "a.pt", weights_only=False)
    data["network"].update(ship_checkpoint.play_settings(["network.endgame_symmetries=30"]))
    torch.save(data, tmp_path / "b.pt")
    with pytest.raises(ValueError, match="endgame_symmetries must be an int from 1 to 24"):
        load_checkpoint(tmp_path / "b.pt")


def _shipped(root, name="net", **network):
    """A small checkpoint shipped under ``root/checkpoints`` with its resolved config."""
    import yaml

    from agents.ppo import NetworkConfig, PPONet, save_checkpoint
    from durak_env import Rules

    (root / "checkpoints").mkdir()
    net = PPONet(Rules(), NetworkConfig(hidden=[16], **network))
    config = {"network": {"hidden": [16], **network}}
    save_checkpoint(root / "checkpoints" / f"{name}.pt", net, None, config,
                    {"provenance": {"commands": ["python train.py"], "commit": "abc"}})
    (root / "checkpoints" / f"{name}.yaml").write_text(yaml.safe_dump(config))
    return root / "checkpoints" / f"{name}.pt"


def test_update_changes_the_play_setting_of_a_shipped_checkpoint(tmp_path, monkeypatch):
    import yaml

    from agents.ppo import PPOAgent

    path = _shipped(tmp_path)
    weights = torch.load(path, weights_only=False)["model"]
    monkeypatch.setattr(ship_checkpoint, "ROOT", tmp_path)
    assert ship_checkpoint.main(["--update", "net", "--set", "network.policy_symmetries=6"]) == 0
    data = torch.load(path, weights_only=False)
    assert data["network"]["policy_symmetries"] == 6
    assert data["config"]["network"]["policy_symmetries"] == 6
    assert all(torch.equal(weights[k], data["model"][k]) for k in weights)
    assert data["provenance"]["commands"] == [
        "python train.py",
        "python scripts/ship_checkpoint.py --update net --set=network.policy_symmetries=6"]
    assert data["provenance"]["commit"] == "abc" and len(data["provenance"]["updated"]) == 1
    cfg = yaml.safe_load((tmp_path / "checkpoints" / "net.yaml").read_text())
    assert cfg["network"] == {"hidden": [16], "policy_symmetries": 6}
    assert PPOAgent(path=str(path)).symmetries == 6  # the agent plays the shipped setting
    assert PPOAgent(path=str(path), symmetries=1).symmetries == 1  # unless told otherwise


def test_update_refuses_bad_input_and_leaves_the_checkpoint(tmp_path, monkeypatch, capsys):
    path = _shipped(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(ship_checkpoint, "ROOT", tmp_path)
    assert ship_checkpoint.main(["--update", "net", "--set",
                                 "network.policy_symmetries=30"]) == 2
    assert "policy_symmetries must be an int from 1 to 24" in capsys.readouterr().err
    assert ship_checkpoint.main(["--update", "nope", "--set",
                                 "network.policy_symmetries=6"]) == 2
    assert "does not exist" in capsys.readouterr().err
    for argv, msg in ((["--update", "net"], "needs at least one --set, or --expert"),
                      (["run", "--update", "net", "--set", "network.policy_symmetries=6"],
                       "takes no run directory"),
                      (["run"], "give RUN_DIR and NAME")):
        with pytest.raises(SystemExit):
            ship_checkpoint.main(argv)
        assert msg in capsys.readouterr().err
    assert path.read_bytes() == before


def test_update_puts_in_an_expert_fitted_from_the_shipped_checkpoint(tmp_path, monkeypatch,
                                                                     capsys):
    """``--expert``: the expert, its settings and its report come from the stage's output;
    the main weights, the play settings and the record of the main training stay; an
    expert fitted on another network is refused and nothing is written."""
    import yaml

    path = _shipped(tmp_path, endgame_talon=1, policy_symmetries=6)
    shipped = torch.load(path, weights_only=False)
    # the main head was fine-tuned after its first expert: the refit's config does not say how
    shipped["config"]["endgame"] = {"epochs": 9, "finetune_timesteps": 60, "finetune_lr": 0.1}
    torch.save(shipped, path)
    (tmp_path / "checkpoints" / "net.yaml").write_text(yaml.safe_dump(shipped["config"]))
    new = {**shipped, "model": {k: v + 1 if k.startswith("endgame.") else v
                                for k, v in shipped["model"].items()},
           "network": {**shipped["network"], "endgame_pack_ranks": True,
                       "policy_symmetries": 1},
           "config": {"network": {}, "endgame": {"epochs": 3, "finetune_timesteps": 20,
                                                 "finetune_lr": 0.3}},
           "endgame": {"rounds": [], "command": "python -m agents.endgame_expert X --replace"}}
    torch.save(new, tmp_path / "new.pt")
    other = {**new, "model": {k: v + 1 for k, v in shipped["model"].items()}}
    torch.save(other, tmp_path / "other.pt")
    monkeypatch.setattr(ship_checkpoint, "ROOT", tmp_path)
    before = path.read_bytes()
    assert ship_checkpoint.main(["--update", "net", "--expert", str(tmp_path / "other.pt")]) == 2
    assert "main trunk and heads are not those" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert ship_checkpoint.main(["--update", "net", "--expert", str(tmp_path / "new.pt")]) == 0
    data = torch.load(path, weights_only=False)
    for k, v in data["model"].items():
        assert torch.equal(v, new["model"][k] if k.startswith("endgame.") else shipped["model"][k])
    assert data["network"]["endgame_pack_ranks"] and data["network"]["policy_symmetries"] == 6
    assert data["endgame"] == new["endgame"]
    assert data["provenance"]["commands"][-2:] == [
        "python -m agents.endgame_expert X --replace",
        f"python scripts/ship_checkpoint.py --update net --expert {tmp_path / 'new.pt'}"]
    cfg = yaml.safe_load((tmp_path / "checkpoints" / "net.yaml").read_text())
    # the stage's own settings are the new expert's, the fine-tuning ones stay the shipped
    assert cfg["network"]["endgame_pack_ranks"] and cfg["endgame"] == {
        "epochs": 3, "finetune_timesteps": 60, "finetune_lr": 0.1}
    assert data["config"]["endgame"] == cfg["endgame"]
    with pytest.raises(SystemExit):
        ship_checkpoint.main(["run", "net", "--expert", str(tmp_path / "new.pt")])
    assert "--expert goes with --update" in capsys.readouterr().err


def test_policy_symmetries_stay_out_of_training():
    """The rollouts and the update see the main head as trained; only the agent averages."""
    from agents.ppo import NetworkConfig, PPONet, legal_lists, legal_valid
    from durak_env import Rules, VectorEnv

    rules = Rules()
    plain = PPONet(rules, NetworkConfig(hidden=[32]))
    sym = PPONet(rules, NetworkConfig(hidden=[32], policy_symmetries=6))
    sym.load_state_dict(plain.state_dict())
    env = VectorEnv(rules, num_envs=64, seed=3)
    obs, info = env.reset()
    ids, counts = legal_lists(info["action_mask"].astype(bool))
    valid = legal_valid(torch.from_numpy(counts), ids.shape[1])
    x, i = torch.as_tensor(obs, dtype=torch.float32), torch.from_numpy(ids)
    action = torch.zeros(len(obs), dtype=torch.long)
    _, lp_plain, _, _ = plain.get_action_and_value(x, i, valid, action)
    _, lp_sym, _, _ = sym.get_action_and_value(x, i, valid, action)
    assert torch.equal(lp_plain, lp_sym)
