"""The docs: every generated page is up to date, and the site builds strictly."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import gen_docs  # noqa: E402  (imports nothing heavy until outputs() runs)


@pytest.fixture(scope="module")
def outputs():
    return {p.relative_to(ROOT).as_posix(): text for p, text in gen_docs.outputs().items()}


def test_outputs_are_the_listed_files(outputs):
    assert sorted(outputs) == sorted(gen_docs.GENERATED)


@pytest.mark.parametrize("name", gen_docs.GENERATED)
def test_generated_page_is_up_to_date(outputs, name):
    path = ROOT / name
    assert path.exists(), f"{name} is missing; regenerate with `{gen_docs.COMMAND}`"
    assert path.read_text() == outputs[name].rstrip("\n") + "\n", (
        f"{name} differs from what the code and docs/results/ give; "
        f"regenerate with `{gen_docs.COMMAND}`")


def test_every_result_file_carries_its_provenance():
    assert list((ROOT / "docs" / "results").glob("*/results.json")), (
        "no tournament results are committed under docs/results/")
    for name, res in gen_docs.load_results().items():
        for key in ("command", "commit", "date"):
            assert res["config"].get(key), f"docs/results/{name}/results.json lacks {key}"
        assert res["config"]["command"].startswith("python -m agents.tournament")


def test_results_tables_follow_their_provenance():
    page = (ROOT / "docs" / "results.md").read_text()
    for name, res in gen_docs.load_results().items():
        block = gen_docs.provenance(res)
        assert block in page, f"docs/results.md lacks the provenance of {name}"
        after = page[page.index(block) + len(block):].lstrip("\n")
        assert after.startswith("| "), f"the table of {name} must follow its provenance"


def test_pair_table_renders_wilson_interval():
    pair = {"agent": "a", "opponent": "b", "games": 10, "wins": 6, "losses": 3, "draws": 1,
            "win_rate": 6 / 9, "win_rate_lo": 0.354, "win_rate_hi": 0.879}
    table = gen_docs.pair_table([pair]).splitlines()
    assert table[-1] == "| `a` | `b` | 10 | 6 | 3 | 1 | 66.7 [35.4, 87.9] |"


def test_more_players_rank_by_durak_rate():
    res = gen_docs.load_results().get("4p_heuristics")
    if res is None:
        pytest.skip("no four-player results committed")
    rows = gen_docs.agent_table(res).splitlines()[2:]
    rates = [float(r.split("|")[4].split("[")[0]) for r in rows]
    assert rates == sorted(rates) and len(rows) == len(res["agents"])


def test_mkdocs_build_strict(tmp_path):
    mkdocs = (shutil.which("mkdocs", path=str(Path(sys.executable).parent))
              or shutil.which("mkdocs"))
    assert mkdocs, 'mkdocs is not installed; pip install -e ".[dev]" installs it'
    assert (ROOT / "docs" / "rules.md").exists(), "docs/rules.md, the rule book, is missing"
    proc = subprocess.run(
        [mkdocs, "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
         "-d", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    assert (tmp_path / "site" / "api" / "durak_env" / "index.html").exists()


def test_stage_timed_tells_one_command_runs_from_chained_fits():
    """The training clock counts an end-game stage run inside train.py (its seconds show
    as a jump in ``elapsed`` where the fine-tuning starts), not fits run apart from it."""
    data = {"global_step": 300, "config": {"endgame": {"finetune_timesteps": 100}},
            "endgame": {"seconds": 50.0}}
    evals = [{"global_step": 100, "elapsed": 10.0, "detail": {"random": {}}},
             {"global_step": 200, "elapsed": 20.0, "detail": {"random": {}}},
             {"global_step": 250, "elapsed": 75.0, "detail": {"random": {}}}]
    assert gen_docs._stage_timed(data, evals)
    evals[2]["elapsed"] = 30.0  # the stage ran apart: the clock went on from where PPO stopped
    assert not gen_docs._stage_timed(data, evals)
    evals[2]["elapsed"] = 75.0
    data["endgame"]["previous"] = [{"seconds": 5.0}]  # refitted later, apart from the run
    assert not gen_docs._stage_timed(data, evals)
    assert not gen_docs._stage_timed({**data, "endgame": None}, evals)


def test_each_end_game_fit_names_the_talon_sizes_it_gathered():
    """A fit is described by the talon sizes of its own positions (the keys of its held-out
    blunders by talon), not by the most the expert covers."""
    def fit(by_talon, positions):
        return {"rounds": [{"games": 10, "positions": positions, "by_talon": by_talon}],
                "blunders_before": 0.2, "blunders_after": 0.1}

    sampled = gen_docs._fit_text(fit({"2": [0.2, 0.1], "3": [0.2, 0.1]}, 500), 3, "x")
    solved = gen_docs._fit_text(fit({"0": [0.2, 0.1], "1": [0.2, 0.1]}, 700), 3, "x")
    both = gen_docs._fit_text(fit({"0": [0.2, 0.1], "3": [0.2, 0.1]}, 900), 3, "x")
    old = gen_docs._fit_text({**fit({}, 100), "rounds": [{"games": 1, "positions": 100}]}, 1, "x")
    assert sampled.startswith("500 positions with 2-3 talon cards labelled by the sampled search")
    assert solved.startswith("700 solved positions with 0-1 talon cards")
    assert both.startswith("900 positions labelled by the solver (talon 0-1) and the sampled "
                           "search (talon 2-3)")
    assert old.startswith("100 solved positions with 0-1 talon cards")
    assert "20.00% before, 10.00% after" in solved
