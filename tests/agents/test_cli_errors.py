"""Issue 20, points 6 and 7 for ``python -m agents.tournament`` and ``python -m agents.play``:
every bad argument is one line on stderr and exit status 2, before any output and before
any directory is made; a finished game's record is never lost; input is read in bounded
memory."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import agents.play
from agents.tournament import cli as tournament
from durak_env import Game
from tests.cli_helpers import assert_refused, run_main

ROOT = Path(__file__).resolve().parents[2]


def tournament_main(argv):
    return tournament.main(argv)


@pytest.fixture
def not_a_dir(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("x")
    return f


def ok_args(tmp_path) -> list[str]:
    return ["--agents", "random,greedy", "--games", "2", "--no-progress", "--no-plots",
            "--out", str(tmp_path / "out")]


@pytest.mark.parametrize("args, fragment", [
    (["--games", "0"], "argument --games: must be >= 1, got 0"),
    (["--games", "-1"], "argument --games: must be >= 1, got -1"),
    (["--workers", "0"], "argument --workers: must be >= 1, got 0"),
    (["--workers", "-3"], "argument --workers: must be >= 1, got -3"),
    (["--seed", "-1"], "argument --seed: a seed must be an int in 0..2**64-1, got '-1'"),
    (["--seed", str(2**64)], "argument --seed"),
    (["--record", "-1"], "argument --record: must be >= 0"),
    (["--agents", "nobody,random"], "unknown agent 'nobody'"),
    (["--agents", "expert:w_pairs=x,random"], "agent 'expert' parameter 'w_pairs'"),
    (["--agents", "expert:nope=1,random"], "unknown parameter 'nope' for agent 'expert'"),
    (["--agents", "ismcts:c=nan,random"], "expected a finite number, got 'nan'"),
    (["--agents", "ismcts:seed=-1,random"], "seed must be in 0..2**64-1"),
    (["--agents", "ppo:no/such/ckpt.pt,random"], "agent 'ppo:no/such/ckpt.pt'"),
    (["--agents", "random"], "at least two agents"),
    (["--agents", ","], "--agents names no agent"),
    (["--players", "9"], "num_players must be in 2..6"),
    (["--rules", "no/such/rules.yaml"], "--rules no/such/rules.yaml: cannot read it"),
])
def test_tournament_refuses_bad_arguments(tmp_path, args, fragment):
    result = run_main(tournament_main, ok_args(tmp_path) + args)
    assert_refused(result, "python -m agents.tournament: error:", fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content, fragment", [
    (bytes(range(256)), "not a YAML file"),
    (b"- 1\n- 2\n", "expected a mapping of Rules fields, got list"),
    (b"rules: [1]\n", "expected a mapping of Rules fields, got list"),
    (b"num_player: 3\n", "unknown rules field(s) ['num_player']"),
])
def test_tournament_refuses_bad_rules_files(tmp_path, content, fragment):
    rules = tmp_path / "rules.yaml"
    rules.write_bytes(content)
    result = run_main(tournament_main, ok_args(tmp_path) + ["--rules", str(rules)])
    assert_refused(result, fragment)


def test_tournament_refuses_an_unwritable_out_before_playing(tmp_path, not_a_dir):
    args = ok_args(tmp_path)[:-1] + [str(not_a_dir / "out")]
    assert_refused(run_main(tournament_main, args), "--out: cannot write to")


def test_tournament_command_exits_2_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "agents.tournament", "--agents", "random,nobody",
                           "--games", "2"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr


# ---------------------------------------------------------------- agents.play


def play(argv, stdin="", tmp_path=None):
    record_dir = [] if tmp_path is None else ["--record-dir", str(tmp_path / "records")]
    return run_main(agents.play.main, [*argv, *record_dir, "--color", "never"],
                    stdin=io.StringIO(stdin) if isinstance(stdin, str) else stdin,
                    stdout=None)


@pytest.mark.parametrize("args, fragment", [
    (["--seed", "-1"], "argument --seed: a seed must be an int in 0..2**64-1"),
    (["--seed", str(2**64 + 7)], "argument --seed"),
    (["--seat", "-1"], "argument --seat: must be >= 0"),
    (["--seat", "2"], "--seat must be in 0..1, got 2"),
    (["--players", "1"], "argument --players: must be >= 2"),
    (["--opponent", "nobody"], "unknown agent 'nobody'"),
    (["--opponent", "ppo:no/such.pt"], "agent 'ppo:no/such.pt': checkpoint 'no/such.pt' does not"),
    (["--opponent", "ismcts:c=nan"], "expected a finite number"),
    (["--rules", "no/such.yaml"], "--rules no/such.yaml: cannot read it"),
])
def test_play_refuses_bad_arguments(tmp_path, args, fragment):
    assert_refused(play(args, "", tmp_path), "python -m agents.play: error:", fragment)
    assert not (tmp_path / "records").exists()


def test_play_refuses_an_unwritable_record_dir_before_the_game(not_a_dir):
    result = run_main(agents.play.main, ["--record-dir", str(not_a_dir / "records"),
                                         "--opponent", "random"], stdin=io.StringIO(""))
    assert_refused(result, "--record-dir: cannot write to")


def test_play_keeps_the_record_when_its_directory_fails_at_the_end(tmp_path, monkeypatch):
    import durak_env.play as session

    real = session.save_record
    wanted = tmp_path / "records"

    def failing(record, path):
        if Path(path).parent == wanted:
            raise PermissionError(13, "Permission denied")
        return real(record, path)

    monkeypatch.setattr(session, "save_record", failing)
    monkeypatch.setattr(session.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    status, out, err = play(["--opponent", "random", "--seed", "5"], "q\n", tmp_path)
    assert status == 0, err
    assert "could not save the game record" in err
    (saved,) = (tmp_path / "tmp").glob("*.json")
    assert f"Game record saved to {saved}" in out
    Game.from_record(json.loads(saved.read_text()))


class Endless(io.TextIOBase):
    """``size`` characters of input without a newline, then end of input; remembers the
    largest read it was asked for (-1: unbounded)."""

    def __init__(self, size):
        self.left, self.largest = size, 0

    def readline(self, limit=-1):
        self.largest = -1 if limit is None or limit < 0 else max(self.largest, limit)
        n = self.left if limit is None or limit < 0 else min(limit, self.left)
        self.left -= n
        return "x" * n


def test_play_reads_a_line_without_newlines_in_bounded_memory(tmp_path):
    stdin = Endless(5_000_000)
    status, out, err = play(["--opponent", "random", "--seed", "5", "--no-record"], stdin)
    assert stdin.largest != -1 and stdin.largest <= 10_000
    assert status == 1 and "Game abandoned: end of input" in out
    assert "at most 1000 characters" in out
