"""Every count of cases the README, docs/ and sweeps/README.md state is the count the binary lists, and every
family the binary has is in both tables of families: a count in prose cannot go stale."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXE = os.environ.get("MEMBENCH_EXE")
needs_exe = pytest.mark.skipif(
    not EXE or not Path(EXE).exists(), reason="MEMBENCH_EXE names no membench binary (run under ctest)"
)


def listed(*flags: str) -> list[dict]:
    done = subprocess.run([EXE, "--list_cases=json", *flags], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def text(path: str) -> str:
    return (REPO / path).read_text()


@needs_exe
def test_the_default_run_has_the_cases_the_readme_says():
    cases = listed()
    (stated,) = re.findall(r"The default run \((\d+) cases\)", text("README.md"))
    assert int(stated) == len(cases)
    peer = sum(c["family"] == "peer" for c in cases)
    node = sum(c["family"] == "node" for c in cases)
    assert re.search(rf"the {peer} peer\s+and {node} node cases need a second GPU", text("README.md"))


@needs_exe
def test_each_sweep_file_has_the_cases_its_readme_row_says():
    rows = re.findall(r"^\| `(\w+\.json)` \| .* \| (\d+) \|$", text("sweeps/README.md"), re.M)
    files = sorted(p.name for p in (REPO / "sweeps").glob("*.json"))
    assert sorted(name for name, _ in rows) == files  # every file has its row, every row its file
    for name, count in rows:
        assert len(listed(f"--sweep=sweeps/{name}")) == int(count), name


@needs_exe
def test_the_ci_and_seed_counts_in_the_docs_are_the_files():
    ci, seed = len(listed("--sweep=sweeps/ci.json")), len(listed("--sweep=sweeps/seed.json"))
    for path in ("README.md", "docs/running.md", "docs/tracking.md"):
        for stated in re.findall(r"(?:CI set|ci\.json`?) \((\d+) cases", text(path)):
            assert int(stated) == ci, path
    for stated in re.findall(r"the study's (\d+) cases", text("docs/running.md")):
        assert int(stated) == seed


@needs_exe
def test_every_family_has_a_row_in_both_tables_of_families():
    families = {c["family"] for c in listed()}
    readme = set(re.findall(r"^\| `(\w+)` \| ", text("README.md"), re.M))
    table = set(re.findall(r"^\| `(\w+)` \| ", text("docs/families.md"), re.M))
    assert families <= readme and families == table
