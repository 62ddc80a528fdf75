"""The notebooks run top to bottom (nbmake, with the small budgets of DURAK_NB_FAST=1),
and each ``.ipynb`` is committed as jupytext generates it from its percent-format ``.py``
(the file people edit; see notebooks/README.md): the same cells, without outputs."""

import os
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def test_the_three_notebooks_exist():
    assert NAMES == [
        "01_environment_tour.ipynb",
        "02_strategy_benchmark.ipynb",
        "03_training_analysis.ipynb",
    ]


def test_every_notebook_is_paired_with_a_percent_script():
    assert sorted(p.with_suffix(".ipynb").name for p in NOTEBOOKS.glob("[0-9]*.py")) == NAMES
    config = jupytext.config.load_jupytext_configuration_file(str(NOTEBOOKS / "jupytext.toml"))
    for name in NAMES:
        assert config.default_formats(str(NOTEBOOKS / name)) == "ipynb,py:percent"


def cells(nb):
    return [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in nb.cells]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_in_sync_with_its_script(name):
    """Editing the .py without `jupytext --sync` (or the .ipynb by hand) fails here."""
    ipynb = jupytext.read(NOTEBOOKS / name)
    script = jupytext.read(NOTEBOOKS / name.replace(".ipynb", ".py"), fmt="py:percent")
    assert cells(ipynb) == cells(script), f"run: jupytext --sync notebooks/{name[:-6]}.py"
    assert ipynb.metadata["kernelspec"] == script.metadata["kernelspec"]


@pytest.mark.parametrize("name", NAMES)
def test_committed_without_outputs_and_with_one_parameter_cell(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[0]
    assert "DURAK_NB_FAST" in tagged[0].source


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(name, tmp_path):
    env = dict(os.environ, DURAK_NB_FAST="1")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbmake",
            "--nbmake-timeout=900",
            str(NOTEBOOKS / name),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
