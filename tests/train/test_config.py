"""Config errors name the problem; overrides are typed; the shipped configs load."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from agents.ppo_config import ConfigError, config_from_dict, load_config  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


TRAINING = [p for p in sorted(CONFIGS.glob("*.yaml")) if not p.name.startswith("sweep_")]


@pytest.mark.parametrize("path", TRAINING, ids=lambda p: p.name)
def test_shipped_configs_load(path):
    cfg = load_config(path)
    assert cfg.ppo.total_timesteps > 0
    assert cfg.exp_name == path.stem  # a run's name says which config made it
    assert cfg.ppo.total_timesteps >= cfg.ppo.num_steps * cfg.env.num_envs  # one update at least
    assert config_from_dict(cfg.to_dict()) == cfg  # what a run saves loads back the same


def test_overrides_are_typed():
    cfg = config_from_dict({}, ["ppo.lr=1e-4", "env.num_envs=2048", "network.hidden=[64, 32]",
                                "ppo.anneal_lr=false", "rules.num_players=3",
                                "eval.opponents=[random]"])
    assert cfg.ppo.lr == 1e-4 and isinstance(cfg.ppo.lr, float)
    assert cfg.env.num_envs == 2048
    assert cfg.network.hidden == [64, 32]
    assert cfg.ppo.anneal_lr is False
    assert cfg.rules.num_players == 3
    assert cfg.eval.opponents == ["random"]


@pytest.mark.parametrize("data, overrides, message", [
    ({"ppo": {"learning_rate": 1e-3}}, [],
     r"unknown key\(s\) ppo\.learning_rate.*valid keys in ppo:.*lr"),
    ({"optimizer": {}}, [], r"unknown key\(s\) optimizer; valid keys: .*ppo"),
    ({}, ["ppo.lrr=1"], r"ppo\.lrr.*valid keys in ppo"),
    ({}, ["env.num_envs=many"], r"env\.num_envs must be of type int, got 'many'"),
    ({}, ["env.num_envs=0"], r"env\.num_envs must be >= 1, got 0"),
    ({}, ["ppo.gamma=1.5"], r"ppo\.gamma must be in \[0, 1\]"),
    ({}, ["ppo.lr=-1"], r"ppo\.lr must be > 0"),
    ({}, ["rules.num_players=9"], r"rules: num_players must be in 2\.\.6"),
    ({}, ["rules.colour=red"], r"rules: unknown rules field.*colour"),
    ({}, ["network.head=tree"], r"network\.head must be 'factored' or 'dense'"),
    ({}, ["selfplay.pool_sampling=best"], r"selfplay\.pool_sampling"),
    ({}, ["eval.opponents=[nobody]"], r"eval\.opponents: unknown agent 'nobody'"),
    ({}, ["ppo"], r"override 'ppo' must look like section\.key=value"),
    ({"ppo": 3}, [], r"ppo must be a mapping"),
])
def test_config_errors_are_clear(data, overrides, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data, overrides)


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_config(listy)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("sweep_*.yaml")), ids=lambda p: p.name)
def test_shipped_sweeps_load(path):
    from agents.sweep import load_sweep

    sweep = load_sweep(path)  # every search key and value builds a valid training config
    assert sweep.name == path.stem and sweep.metric in sweep.base["eval"]["opponents"]


@pytest.mark.parametrize("overrides, message", [
    (["ray.actors=-1"], "ray.actors must be >= 0"),
    (["ray.actors=3", "env.num_envs=16"], "env.num_envs (16) must be a multiple of ray.actors (3)"),
    (["ray.num_cpus_per_actor=0"], "ray.num_cpus_per_actor must be >= 1"),
    (["ray.actor=2"], "unknown key(s) ray.actor"),
])
def test_ray_section_errors(overrides, message):
    with pytest.raises(ConfigError) as e:
        config_from_dict({}, overrides)
    assert message in str(e.value)


def test_ray_section_defaults_to_the_local_path():
    cfg = config_from_dict({}, ["ray.actors=2", "ray.address=127.0.0.1:6379"])
    assert (cfg.ray.actors, cfg.ray.address) == (2, "127.0.0.1:6379")
    assert config_from_dict({}).ray.actors == 0


def test_ray_actors_without_ray_is_refused_before_the_run(monkeypatch):
    import importlib.util

    from agents.ppo_config import preflight

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(ConfigError, match=r"ray.actors=2 needs Ray: pip install"):
        preflight(config_from_dict({}, ["ray.actors=2", "env.num_threads=1"]))
