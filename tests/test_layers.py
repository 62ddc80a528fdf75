"""The layers of the code: ``train.py`` -> ``agents`` -> ``durak_env``, nothing in the
engine imports the agents or the tests, no import cycles inside a package (the
import-linter contracts in ``pyproject.toml``), and no private name is used across
modules."""

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("durak_env", "agents")


def test_import_linter_contracts_are_kept():
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(no_cache=True, no_logo=True))")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def _project_imports(path: Path):
    """(line, imported module, names) of every import of a project package in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(ROOT).parent.parts
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                module = base + ("." + module if module else "")
            if module.split(".")[0] in PACKAGES:
                yield node.lineno, module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PACKAGES + ("train",):
                    yield node.lineno, a.name, []


def _sources():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def test_train_is_the_top_layer():
    """``train.py`` builds on the packages; the packages never import it."""
    used = {m.split(".")[0] for _, m, _ in _project_imports(ROOT / "train.py")}
    assert used <= set(PACKAGES)
    for path in _sources():
        for line, module, _ in _project_imports(path):
            assert module.split(".")[0] != "train", f"{path.name}:{line} imports train"


def test_no_private_name_is_imported_across_modules():
    bad = []
    for path in _sources():
        for line, module, names in _project_imports(path):
            bad += [f"{path.relative_to(ROOT)}:{line}: from {module} import {n}"
                    for n in names if n.startswith("_") and not n.startswith("__")]
    assert not bad, "\n".join(bad)


def test_no_private_attribute_of_another_module():
    """``alias._name`` where ``alias`` is a project module imported by this one."""
    bad = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(
                    ".")[0] in PACKAGES):
                aliases |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname or a.name for a in node.names
                            if a.name.split(".")[0] in PACKAGES}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: "
                           f"{node.value.id}.{node.attr}")
    assert not bad, "\n".join(bad)
