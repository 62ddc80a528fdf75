"""Issue 20, points 1, 2 and 7 for ``python -m durak_env.replay`` and ``python -m
durak_env.bench``: every bad argument is one line on stderr and exit status 2, before any
output; a record of a position with a seat already out replays."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from durak_env import Game, Rules, bench, replay
from durak_env.cards import deck_mask, format_mask
from durak_env.records import dumps
from tests.cli_helpers import assert_refused, run_main

ROOT = Path(__file__).resolve().parents[2]
DECK = format_mask(deck_mask(36))


def finished_record() -> dict:
    game = Game.new(Rules(), seed=3)
    while not game.over:
        game.step(int(game.legal_actions()[-1]))
    return game.to_record({"players": ["a", "b"]})


def write(tmp_path, content) -> str:
    path = tmp_path / "record.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def wrong_durak() -> dict:
    record = finished_record()
    record["result"]["durak"] = 1 - record["result"]["durak"]
    return record


@pytest.mark.parametrize("content, fragment", [
    ([], "a game record must be a dict, got list"),
    ("\"x\"", "a game record must be a dict, got str"),
    ("null", "a game record must be a dict, got NoneType"),
    ("[" * 50_000 + "]" * 50_000, "nested too deeply"),
    (bytes(range(256)), "not a JSON game record"),
    ({**finished_record(), "meta": []}, "meta must be a dict"),
    ({**finished_record(), "meta": {"players": 3}}, "meta.players"),
    ({**finished_record(), "meta": {"players": {"a": 1}}}, "meta.players"),
    ({**finished_record(), "version": True}, "unsupported record version True"),
    (wrong_durak(), "result.durak"),
])
def test_replay_refuses_a_bad_record_before_any_output(tmp_path, content, fragment):
    assert_refused(run_main(replay.main, [write(tmp_path, content), "--color", "never"]),
                   "python -m durak_env.replay: error:", fragment)


@pytest.mark.parametrize("args, fragment", [
    (["--seat", "2"], "--seat must be in 0..1, got 2"),
    (["--seat", "-1"], "argument --seat: must be >= 0, got -1"),
    (["--seat", "x"], "argument --seat"),
    (["--colour", "never"], "unrecognized arguments: --colour"),
])
def test_replay_refuses_bad_arguments(tmp_path, args, fragment):
    path = write(tmp_path, finished_record())
    assert_refused(run_main(replay.main, [path, *args]), fragment)


def test_replay_refuses_missing_files_and_directories(tmp_path):
    assert_refused(run_main(replay.main, [str(tmp_path / "none.json")]),
                   "No such file or directory")
    assert_refused(run_main(replay.main, [str(tmp_path)]), "Is a directory")


def test_replay_of_a_position_with_a_seat_out(tmp_path):
    game = Game.from_deal(Rules(num_players=3), hands=[[], DECK[:6], DECK[6:12]],
                          discard=DECK[12:], trump="S")
    while not game.over:
        game.step(int(game.legal_actions()[0]))
    path = tmp_path / "out.json"
    path.write_text(dumps(game.to_record()))
    status, out, err = run_main(replay.main, [str(path), "--color", "never", "--seat", "1"])
    assert status == 0, err
    assert "out (no cards at the deal)" in out and "Result:" in out


@pytest.mark.parametrize("args, fragment", [
    (["--seconds", "0"], "argument --seconds: expected a finite number > 0, got '0'"),
    (["--seconds", "-1"], "argument --seconds"),
    (["--seconds", "nan"], "argument --seconds"),
    (["--seconds", "inf"], "argument --seconds"),
    (["--seconds", "x"], "argument --seconds"),
    (["--reference", "no_such_module_here"], "--reference no_such_module_here: cannot import"),
    (["--reference", "json"], "--reference json: the module has no RefGame"),
    (["--frobnicate"], "unrecognized arguments"),
])
def test_bench_refuses_bad_arguments_before_measuring(args, fragment):
    assert_refused(run_main(bench.main, ["--no-env", *args]), "python -m durak_env.bench: error:",
                   fragment)


@pytest.mark.parametrize("module, args", [
    ("durak_env.replay", ["--seat", "-3", "nofile.json"]),
    ("durak_env.bench", ["--seconds", "nan"]),
])
def test_the_commands_exit_2_with_one_line(module, args):
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
