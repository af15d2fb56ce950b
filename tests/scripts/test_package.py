"""The scripts as a package: every command is a module of `membench` with a main(), runs from a checkout as
scripts/<command>.py, and installs as membench-<command>."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "scripts" / "membench"


def commands() -> set[str]:
    """The package's modules that define a command: a main() the module runs as __main__ in the shim."""
    return {p.stem for p in PACKAGE.glob("*.py") if "\ndef main(" in p.read_text()}


def test_every_command_has_a_shim_and_an_entry_point_and_nothing_else_does():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    found = commands()
    assert len(found) >= 10
    assert declared == {f"membench-{c.replace('_', '-')}": f"membench.{c}:main" for c in found}
    shims = {p.stem for p in (REPO / "scripts").glob("*.py")}
    assert shims == found
    for name in shims:
        text = (REPO / "scripts" / f"{name}.py").read_text()
        assert f"from membench.{name} import main" in text and "sys.exit(main())" in text
        assert os.access(REPO / "scripts" / f"{name}.py", os.X_OK)


def test_no_module_of_the_package_imports_a_sibling_by_its_bare_name():
    siblings = {p.stem for p in PACKAGE.glob("*.py")} | {"membench_cli", "membench_results", "membench_compat"}
    for path in [*PACKAGE.glob("*.py"), *(REPO / "tests" / "scripts").glob("*.py")]:
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from"):
                assert words[1].split(".")[0] not in siblings, f"{path.name}: {line.strip()}"


def test_installed_the_commands_run_from_path(tmp_path):
    """pip builds the package from pyproject.toml and puts the commands on PATH (no network: the
    interpreter's own setuptools builds it, the dependencies are the interpreter's)."""
    try:
        import setuptools
    except ModuleNotFoundError:
        pytest.skip("no setuptools in this interpreter: pip cannot build the package without the network")
    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (70, 1):
        pytest.skip(
            f"setuptools {setuptools.__version__} builds no wheel by itself (scripts/requirements.txt pins one that does)"
        )
    # Built from a copy: setuptools writes its egg-info and build folders beside the sources.
    source = tmp_path / "source"
    shutil.copytree(PACKAGE, source / "scripts" / "membench", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO / "pyproject.toml", source / "pyproject.toml")
    target = tmp_path / "site"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert built.returncode == 0, built.stderr
    env = {**os.environ, "PYTHONPATH": str(target), "PATH": f"{target / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    assert sorted(p.name for p in (target / "bin").iterdir()) == sorted(
        f"membench-{c.replace('_', '-')}" for c in commands()
    )
    done = subprocess.run(["membench-compare", "--help"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0 and "Regression gate" in done.stdout
    wrong = subprocess.run(["membench-fleet", "--no-such-flag"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert wrong.returncode == 2 and len(wrong.stderr.splitlines()) == 1
