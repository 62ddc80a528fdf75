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
