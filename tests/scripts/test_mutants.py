"""The C++ mutation list keeps up with the code: each mutant's text stands once in its file, and changes it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def mutants() -> list:
    spec = importlib.util.spec_from_file_location("cpp_mutants", REPO / "tests" / "mutation" / "cpp_mutants.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["cpp_mutants"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module.MUTANTS


def test_every_cpp_mutant_applies_to_the_code_as_it_is():
    listed = mutants()
    assert len(listed) > 100
    stale = [
        (m.path, m.what, (REPO / m.path).read_text().count(m.old))
        for m in listed
        if (REPO / m.path).read_text().count(m.old) != 1
    ]
    assert stale == []
    assert [m.what for m in listed if m.old == m.new] == []
    assert len({m.what for m in listed}) == len(listed), "two mutants share a description"


def test_the_readme_counts_the_mutants_there_are():
    import re

    counted = re.search(r"cpp_mutants\.py\s+# (\d+) hand-made mutants", (REPO / "docs" / "developing.md").read_text())
    assert counted, "docs/developing.md names how many mutants the C++ list holds"
    assert int(counted.group(1)) == len(mutants())
