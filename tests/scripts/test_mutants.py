"""The C++ mutation list keeps up with the code: each mutant's text stands once in its file, and changes it. The
scripts' mutation tool judges what it is given as it says: its interval, its message mutants, its folders."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tool(name: str):
    if str(REPO / "tests" / "mutation") not in sys.path:
        sys.path.insert(0, str(REPO / "tests" / "mutation"))  # where the tools import each other from
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / "mutation" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def mutants() -> list:
    return tool("cpp_mutants").MUTANTS


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


def test_the_sample_s_interval_holds_its_share_and_is_wilson_s():
    wilson = tool("scoring").wilson
    low, high = wilson(90, 100)
    assert round(low, 1) == 82.6 and round(high, 1) == 94.5  # Wilson's 95% interval for 90 of 100
    assert wilson(0, 0) == (0.0, 100.0)  # nothing tested says nothing
    low, high = wilson(10, 10)
    assert high == 100.0 and 69 < low < 73


def test_a_message_mutant_is_told_from_a_behavioural_one():
    is_text = tool("scoring").is_text
    assert is_text('raise InputError("bad")', 'raise InputError("XXbadXX")', 3, set())
    assert not is_text('x = "bad"', 'x = "XXbadXX"', 3, set())  # a string the code uses
    assert not is_text('raise InputError("bad")', 'raise ValueError("bad")', 3, set())
    assert is_text("anything", "else", 3, {3})  # a docstring's line


def test_a_mutants_folder_can_keep_no_bytecode_of_a_module(tmp_path):
    no_bytecode = tool("scripts_mutants").no_bytecode
    package = tmp_path / "scripts" / "membench"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__pycache__" / "report.cpython-311.pyc").write_bytes(b"a mutant's")
    no_bytecode(tmp_path)
    assert (package / "__pycache__").is_file()  # where Python would write one, it cannot
