"""``agents.strength`` on a shipped checkpoint's evaluations file, not only a run directory."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("matplotlib")

from agents.strength import main  # noqa: E402


def _evals(path, rates):
    rows = [{"global_step": 1000 * i, "update": 10 * i, "elapsed": 60.0 * i, "expert": r,
             "detail": {"expert": {"ci95": [r - 0.05, r + 0.05], "games": 200}}}
            for i, r in enumerate(rates)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_an_evaluations_file_is_read_and_its_plot_goes_beside_it(tmp_path, capsys):
    f = tmp_path / "ppo_demo_evals.jsonl"
    _evals(f, [0.30, 0.50, 0.56, 0.58])
    assert main([str(f), "--opponents", "expert"]) == 0
    out = capsys.readouterr().out
    assert "## ppo_demo\n" in out
    assert "first at or above 55% against expert: 2,000 steps, 2.0 minutes" in out
    assert (tmp_path / "ppo_demo_strength.png").is_file()
    run = tmp_path / "run"  # a run directory's own evals.jsonl, named by the directory
    run.mkdir()
    _evals(run / "evals.jsonl", [0.2])
    assert main([str(run / "evals.jsonl"), "--opponents", "expert"]) == 0
    assert "## run\n" in capsys.readouterr().out
    assert (run / "strength.png").is_file()


@pytest.mark.parametrize("name, message", [("missing", "does not exist"),
                                           ("notes.txt", "neither a training run directory")])
def test_what_is_not_a_run_is_refused_by_name(tmp_path, capsys, name, message):
    (tmp_path / "notes.txt").write_text("hello\n")
    assert main([str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert message in err and name in err


def test_several_runs_get_a_colour_each_and_the_target_and_budget_are_marked(tmp_path):
    from agents.strength import figure

    def evals(rates):
        return [{"global_step": 1000 * i, "elapsed": 60.0 * i, "expert": r, "expert_rules": r,
                 "detail": {o: {"ci95": [r - 0.05, r + 0.05], "games": 200}
                            for o in ("expert", "expert_rules")}}
                for i, r in enumerate(rates)]

    runs = {"a": evals([0.3, 0.5]), "b": evals([0.4, 0.6])}
    fig = figure(runs, ["expert_rules", "expert"], target=0.55, budget=1.5)
    steps, minutes = fig.axes[:2]
    curves = {ln.get_label(): ln for ln in minutes.get_lines()
              if not ln.get_label().startswith("_")}
    assert set(curves) == {"a: vs expert_rules", "a: vs expert", "b: vs expert_rules",
                           "b: vs expert"}
    assert curves["a: vs expert"].get_color() == curves["a: vs expert_rules"].get_color()
    assert curves["a: vs expert"].get_color() != curves["b: vs expert"].get_color()
    assert curves["a: vs expert"].get_linestyle() != curves["a: vs expert_rules"].get_linestyle()
    dotted = [ln for ln in minutes.get_lines() if ln.get_linestyle() == ":"]
    assert any(list(ln.get_ydata()) == [0.55, 0.55] for ln in dotted)
    assert any(list(ln.get_xdata()) == [1.5, 1.5] for ln in dotted)
    assert not any(list(ln.get_xdata()) == [1.5, 1.5]
                   for ln in steps.get_lines() if ln.get_linestyle() == ":")


def test_the_budget_must_be_positive(tmp_path, capsys):
    f = tmp_path / "ppo_demo_evals.jsonl"
    _evals(f, [0.3])
    with pytest.raises(SystemExit):
        main([str(f), "--budget", "0"])
    assert "--budget must be a positive number of minutes" in capsys.readouterr().err
