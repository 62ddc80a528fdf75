"""``python -m agents.play`` driven through stdin as a human would type: bad numbers,
malformed and illegal moves are explained and asked again, a move in any spelling is
accepted, the game ends with every hand shown and a replayable record on disk."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from durak_env import Game, Rules

ROOT = Path(__file__).resolve().parents[2]
SEED = 1  # with the default rules seat 0 opens: the first prompt is ours, whatever the agent


def run_play(args, script: str, tmp_path) -> tuple[subprocess.CompletedProcess, Path]:
    env = dict(os.environ, NO_COLOR="1", PYTHONIOENCODING="utf-8")
    rec_dir = tmp_path / "records"
    proc = subprocess.run(
        [sys.executable, "-m", "agents.play", "--record-dir", str(rec_dir), *args],
        input=script,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    return proc, rec_dir


def saved_record(out: str) -> dict:
    m = re.search(r"Game record saved to (.+\.json)", out)
    assert m, out[-2000:]
    return json.loads(Path(m.group(1)).read_text(encoding="utf-8"))


def test_scripted_game_with_bad_inputs(tmp_path):
    game = Game.new(Rules(), seed=SEED)
    assert game.to_act == 0
    moves = game.legal_moves()
    target = moves[2]  # "play 10S": typed below as "Play t♠"
    typed = "Play " + target.split()[1].replace("10", "t").replace("S", "♠").lower()
    script = "\n".join(["99", "play ZZ", "beat 7S 6S", "", typed] + ["1"] * 400) + "\n"
    proc, _ = run_play(
        ["--players", "2", "--opponent", "random", "--seed", str(SEED)], script, tmp_path
    )
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr + out[-2000:]
    # The first prompt shows the hand and the numbered legal moves.
    first = out.split("Your move:")[0]
    for i, move in enumerate(moves, 1):
        assert f"{i:>2}. {move}" in first
    assert "seat 0 (you)" in first and "Table: empty" in first
    # Each bad input is explained, then the same question is asked again.
    assert "there is no move number 99; choose 1..6" in out
    assert "malformed move 'play ZZ': not a card: 'ZZ'" in out
    assert "illegal move 'beat 7S 6S' for seat 0; legal moves:" in out
    assert "Please enter a move" in out
    assert f"  you: {target}" in out
    # The end: every hand, the deal, the result, the record.
    assert "Hands as dealt:" in out and "Result:" in out
    rec = saved_record(out)
    replayed = Game.from_record(rec)
    assert replayed.over
    decisions = [m for s, m in rec["moves"] if s == 0]
    assert decisions[0] == target
    assert rec["meta"]["players"] == ["human", "random"]
    assert rec["meta"]["seed"] == SEED
    assert rec["result"]["over"] is True
    result = (
        "you are the durak"
        if replayed.durak == 0
        else ("a draw" if replayed.durak is None else "you won")
    )
    assert result in out


def test_end_of_input_saves_the_unfinished_game(tmp_path):
    proc, _ = run_play(["--opponent", "greedy", "--seed", str(SEED)], "1\n", tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Game abandoned: end of input." in proc.stdout
    assert "Traceback" not in proc.stderr
    rec = saved_record(proc.stdout)
    assert rec["result"]["over"] is False
    game = Game.from_record(rec)
    assert [list(m) for m in game.history] == rec["moves"][: len(game.history)]
    start = Game.new(Rules(), seed=SEED)
    assert rec["moves"][len(start.history)] == [0, start.legal_moves()[0]]


def test_quit_three_players_other_seat(tmp_path):
    args = [
        "--players",
        "3",
        "--seat",
        "2",
        "--opponent",
        "random",
        "--opponent",
        "greedy",
        "--seed",
        "5",
        "--variant",
        "perevodnoy",
    ]
    proc, _ = run_play(args, "q\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "seat 0: random, seat 1: greedy" in proc.stdout
    assert "Game abandoned: you quit." in proc.stdout
    rec = saved_record(proc.stdout)
    assert rec["rules"]["variant"] == "perevodnoy"
    assert rec["meta"]["players"] == ["random", "greedy", "human"]
    Game.from_record(rec)


def test_bad_command_line(tmp_path):
    proc, rec_dir = run_play(["--opponent", "nobody"], "", tmp_path)
    assert proc.returncode == 2
    assert "unknown agent 'nobody'" in proc.stderr
    assert not rec_dir.exists()
