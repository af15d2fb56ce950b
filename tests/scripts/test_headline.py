"""headline.py: the README's results table is what the committed files it names give, and bad specs are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from membench import headline

ROOT = Path(__file__).resolve().parents[2]
LIMITS = "h200/2026-12-01-where-it-really-runs/limits/limits.json"


def test_the_readme_table_is_what_the_committed_files_give(capsys):
    assert headline.main(["--check"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    "value, shown", [(4552.3, "4552"), (32.599, "32.60"), (9.8908, "9.891"), (0.5, "0.5000"), (1197.07, "1197")]
)
def test_four_significant_digits_keep_their_zeros(value, shown):
    assert headline.four(value) == shown


def spec_with(tmp_path, cells, beside="", beside_cells=()) -> str:
    path = tmp_path / "spec.json"
    row = {
        "what": "x",
        "unit": "GB/s",
        "pct": False,
        "cells": cells,
        "beside": beside,
        "beside_cells": list(beside_cells),
    }
    path.write_text(json.dumps({"rows": [row]}))
    return str(path)


def test_a_changed_number_in_the_readme_is_caught(tmp_path, capsys):
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text()
    readme.write_text(text.replace("| 32.60 TB/s |", "| 33.60 TB/s |"))
    assert headline.main(["--readme", str(readme), "--check"]) == 1
    assert "is not what the files give" in capsys.readouterr().err
    assert headline.main(["--readme", str(readme)]) == 0  # written again from the files
    assert readme.read_text() == text


def test_a_cell_and_a_beside_are_read_from_their_files(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("a\n<!-- headline -->\nold\n<!-- /headline -->\nb\n")
    cell = {"file": LIMITS, "family": "stream", "variant": "copy", "axes": {"type": "double", "elements": 67108864}}
    memcpy = {"file": LIMITS, "family": "global", "variant": "memcpy", "axes": {"n": 67108864}}
    spec = spec_with(tmp_path, [cell], "memcpy {0}", [memcpy])
    assert headline.main(["--readme", str(readme), "--spec", spec]) == 0
    assert readme.read_text().splitlines()[4] == "| x | 4247 GB/s |  | memcpy 4173 |"


@pytest.mark.parametrize(
    "cells, expected",
    [
        (
            [{"file": LIMITS, "family": "stream", "variant": "none"}],
            "stream none names 0 cases, not one",
        ),
        (
            [{"file": LIMITS, "family": "stream", "variant": "copy", "axes": {"elements": 67108864}}],
            "stream copy (elements 67108864) names 2 cases",  # float and double: not one case
        ),
        ([{"file": "no/such.json", "family": "stream", "variant": "copy"}], "no/such.json"),
        ([{"family": "stream", "variant": "copy"}], "a row lacks 'file'"),
    ],
)
def test_a_spec_naming_what_is_not_there_is_one_line_and_status_two(tmp_path, capsys, cells, expected):
    assert headline.main(["--spec", spec_with(tmp_path, cells), "--check"]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1


def test_a_readme_without_the_block_is_refused(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("no table here\n")
    assert headline.main(["--readme", str(readme)]) == 2
    assert "no <!-- headline --> ... <!-- /headline --> block" in capsys.readouterr().err


def test_zero_is_zero():
    assert headline.four(0) == "0"


def test_a_block_at_the_very_start_and_an_energy_table_are_written(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- headline -->\n<!-- /headline -->\n<!-- energy -->\nold\n<!-- /energy -->\n")
    cell = {"file": LIMITS, "family": "stream", "variant": "copy", "axes": {"type": "double", "elements": 67108864}}
    spec = tmp_path / "spec.json"
    level = {
        "level": "DRAM",
        "file": "h200/2026-12-02-fleet-check/energy.json",
        "family": "stream",
        "variant": "read",
        "axes": {"type": "float"},
    }
    spec.write_text(json.dumps({"rows": [{"what": "x", "unit": "GB/s", "cells": [cell]}], "energy": [level]}))
    assert headline.main(["--readme", str(readme), "--spec", str(spec)]) == 0
    lines = readme.read_text().splitlines()
    assert lines[3] == "| x | 4247 GB/s |  |  |"  # no beside given: an empty cell
    assert lines[8].startswith(
        "| DRAM | `stream/read/type:float/elements:134217728/block:256` | 4568 | 540 | 118.2 | 90.4"
    )


def test_relative_paths_are_read_where_they_are_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("README.md").write_text("here\n")  # a README of this folder, not the repository's
    assert headline.main(["--readme", "README.md"]) == 2  # it has no block: refused, so it was the one read


def test_a_readme_that_cannot_be_read_is_status_two(capsys):
    assert headline.main(["--readme", "/no/such/README.md"]) == 2
    assert "/no/such/README.md" in capsys.readouterr().err
