"""The tree is as its formatters and linters leave it: clang-format for the C++ and CUDA, ruff for the Python
(the configurations are .clang-format and pyproject.toml; .pre-commit-config.yaml runs the same)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tracked(*patterns: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=REPO, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    return out.stdout.split()


def test_the_cpp_and_cuda_are_as_clang_format_leaves_them():
    if shutil.which("clang-format") is None:
        pytest.skip("clang-format is not installed (Debian's clang-format package)")
    files = tracked("*.cpp", "*.hpp", "*.cu", "*.cuh")
    assert len(files) > 100
    done = subprocess.run(["clang-format", "--dry-run", "--Werror", *files], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


def ruff(*args: str) -> subprocess.CompletedProcess:
    try:
        import ruff  # noqa: F401
    except ModuleNotFoundError:
        pytest.skip("ruff is not installed (scripts/requirements.txt pins it)")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True)


def test_the_python_passes_ruffs_lint():
    done = ruff("check", "scripts", "tests")
    assert done.returncode == 0, done.stdout[-3000:]


def test_the_python_is_as_ruff_formats_it():
    done = ruff("format", "--check", "scripts", "tests")
    assert done.returncode == 0, done.stdout[-3000:]
