"""The benchmark command: what it plays and what it prints.

``play_games_serial`` takes its arrays through ``core.borrowed`` (no reference
counting); it must play exactly the games that kernels without it play.
"""

import json

import numpy as np
import pytest
from numba import njit

from durak_env import bench, core


@njit
def _counted_games(st, prm, games, buf, log):
    """``play_games_serial`` without ``borrowed``."""
    total = 0
    r = st[0]
    for _ in range(games):
        total += core.random_game(r, prm, buf, log)
    return total


def _fresh(prm, seed):
    st = core.new_state(1)
    core.seed_games(st, np.array([seed], np.uint64))
    return st, np.zeros(int(prm[core.A_N]), np.int64), np.zeros((0, 2), np.int32)


@pytest.mark.parametrize("name", list(bench.CONFIGS))
def test_borrowed_arrays_play_the_same_games(name):
    prm = core.kernel_params(bench.CONFIGS[name])
    st_a, buf_a, log_a = _fresh(prm, 11)
    st_b, buf_b, log_b = _fresh(prm, 11)
    st_c, buf_c, log_c = _fresh(prm, 11)
    a = bench.play_games_serial(st_a, prm, 300, buf_a, log_a)
    b = _counted_games(st_b, prm, 300, buf_b, log_b)
    c = bench.play_games_parallel(st_c, prm, 300, buf_c[None], log_c[None])
    assert a == b == c > 300
    assert st_a.tobytes() == st_b.tobytes() == st_c.tobytes()
    assert np.array_equal(buf_a, buf_b) and np.array_equal(buf_a, buf_c)
    assert prm.tolist() == core.kernel_params(bench.CONFIGS[name]).tolist()


def test_json_has_the_keys_for_every_configuration(capsys):
    bench.main(["--json", "--seconds", "0.05", "--no-env", "--no-reference"])
    res = json.loads(capsys.readouterr().out)
    keys = ("games_per_s_1thread", "decisions_per_s_1thread", "games_per_s_all_threads")
    for name in bench.CONFIGS:
        assert all(res[name][k] > 0 for k in keys)
        assert 0 < res[name]["scaling_all_threads"] <= 2 * res[name]["threads"]
        assert res[name]["decisions_per_game"] > 10
    assert all(res[k] == res["2p_podkidnoy"][k] for k in keys)
    assert res["compile_s_cold"] > res["import_and_first_game_s_cached"] > 0
    assert res["machine"]["scaling_arithmetic"] > 0
