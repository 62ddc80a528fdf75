"""``python -m agents.tournament --ray``: a bad Ray setup is one line on stderr and exit
status 2, before any output and before any directory is made (as in test_cli_errors)."""

from __future__ import annotations

import sys

import pytest

from agents.tournament import cli as tournament
from tests.cli_helpers import assert_refused, run_main
from tests.ray.cluster import free_ports


def args(tmp_path, *extra: str) -> list[str]:
    return ["--agents", "random,greedy", "--games", "2", "--no-progress", "--no-plots",
            "--out", str(tmp_path / "out"), *extra]


def test_an_unreachable_cluster_is_one_line(tmp_path):
    pytest.importorskip("ray", reason='needs the ray extra: pip install -e ".[ray]"')
    address = f"127.0.0.1:{free_ports(1)[0]}"
    result = run_main(tournament.main, args(tmp_path, "--ray", address))
    assert_refused(result, f"cannot reach a Ray cluster at {address!r}")
    assert not (tmp_path / "out").exists()


def test_ray_missing_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    result = run_main(tournament.main, args(tmp_path, "--ray"))
    assert_refused(result, "Ray is not installed", ".[ray]")
    assert not (tmp_path / "out").exists()


def test_workers_and_ray_exclude_each_other(tmp_path):
    result = run_main(tournament.main, args(tmp_path, "--ray", "--workers", "2"))
    assert_refused(result, "--workers and --ray exclude each other")
