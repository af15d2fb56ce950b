"""Inputs a fuzzer or a careless job script would give every script: special files, nesting past any use,
numbers that are not numbers, flags out of range. Each is one line on stderr and exit status 2, at once (a FIFO
no process writes would hang a script that opened it the usual way), and never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SCRIPTS = ROOT / "scripts"
FIXTURE = ROOT / "tests" / "scripts" / "fixtures" / "schema4" / "global_layout.json"


def refused(script: str, *args: str, cwd: Path | None = None) -> str:
    """Runs a script; asserts one line and exit 2; returns the line."""
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / f"{script}.py"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    return done.stderr


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "run.json"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "script, args",
    [
        ("compare", ["{fifo}", "{good}"]),
        ("compare", ["{good}", "{fifo}"]),
        ("fleet", ["{fifo}"]),
        ("export", ["{fifo}", "--format", "bmf"]),
        ("report", ["{fifo}", "--out", "{tmp}/r"]),
        ("plot", ["{fifo}", "--out", "{tmp}/p"]),
        ("levels", ["{fifo}"]),
        ("history", ["--db", "{tmp}/h.sqlite", "add", "{fifo}"]),
        ("reference", ["{fifo}", "--out", "{tmp}/ref.json"]),
        ("headline", ["--spec", "{fifo}", "--readme", "{good}"]),
        ("ncu_check", ["--json", "{fifo}", "--csv", "{good}", "--cases", "{good}"]),
        ("ncu_check", ["--json", "{good}", "--csv", "{fifo}", "--cases", "{cases}"]),
    ],
)
def test_a_fifo_as_an_input_is_refused_at_once(script, args, fifo, tmp_path):
    (tmp_path / "cases.json").write_text("[]")
    given = [a.format(fifo=fifo, good=FIXTURE, tmp=tmp_path, cases=tmp_path / "cases.json") for a in args]
    assert "not a regular file" in refused(script, *given)


def test_a_spec_nested_past_any_use_is_refused(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text("[" * 100_000 + "]" * 100_000)
    assert "not a headline spec (nested too deep to read)" in refused("headline", "--spec", spec, "--check")


def test_a_csv_that_is_deep_json_is_refused(tmp_path):
    csv_file = tmp_path / "profile.csv"
    csv_file.write_text('"' + "[" * 200_000 + "\n")
    cases = tmp_path / "cases.json"
    cases.write_text("[]")
    line = refused("ncu_check", "--json", FIXTURE, "--csv", csv_file, "--cases", cases)
    assert "not an ncu raw CSV" in line


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--tolerance", "inf", "--tolerance=inf: must be zero or more and finite"),
        ("--tolerance", "1e999", "--tolerance=inf: must be zero or more and finite"),
        ("--tolerance", "nan", "--tolerance=nan: must be zero or more and finite"),
        ("--tolerance", "-5", "--tolerance=-5.0: must be zero or more and finite"),
        ("--time-tolerance", "-1", "--time-tolerance=-1.0: must be zero or more and finite"),
        ("--launches", "0", "--launches=0: must be at least 1"),
        ("--launches", "-1", "--launches=-1: must be at least 1"),
        ("--dram-launches", "0", "--dram-launches=0: must be at least 1"),
    ],
)
def test_ncu_checks_numbers_must_be_ones_it_can_use(flag, value, message):
    assert refused("ncu_check", "--json", FIXTURE, "--csv", FIXTURE, "--cases", FIXTURE, flag, value) == (
        f"ncu_check.py: {message}\n"
    )


def test_an_empty_image_format_is_refused(tmp_path):
    assert "--formats png,,svg: not an image format" in refused(
        "plot", FIXTURE, "--out", tmp_path, "--formats", "png,,svg"
    )


def test_an_index_is_not_written_over_a_broken_result_file(tmp_path):
    store = tmp_path / "results"
    (store / "h200" / "day").mkdir(parents=True)
    (store / "h200" / "day" / "run.json").write_text(FIXTURE.read_text())
    (store / "h200" / "day" / "peer.json").write_text(json.dumps({"tool": "nvbandwidth", "results": []}))
    assert (
        subprocess.run([sys.executable, str(SCRIPTS / "results_index.py"), "--root", store], timeout=60).returncode == 0
    )
    (store / "h200" / "day" / "cut.json").write_text(FIXTURE.read_text()[:500])  # not JSON
    before = (store / "INDEX.md").read_text()
    assert f"{store / 'h200' / 'day' / 'cut.json'}: not JSON" in refused("results_index", "--root", store)
    broken = json.loads(FIXTURE.read_text())
    broken["benchmarks"][0]["real_time"] = -1.0
    (store / "h200" / "day" / "cut.json").write_text(json.dumps(broken))
    assert "'real_time' is negative" in refused("results_index", "--root", store)
    assert (store / "INDEX.md").read_text() == before


def test_an_index_of_a_folder_that_is_no_store_is_one_line():
    assert refused("results_index", "--root", "/proc/self").startswith("results_index.py: --root /proc/self: ")
