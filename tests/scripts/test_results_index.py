"""The results store's index is made from the runs' own context, and the committed one is up to date."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from membench import results_index

REPO = Path(__file__).resolve().parents[2]


def run(name: str, *, gpu: str = "NVIDIA H200", complete: bool | None = True, error: bool = False) -> dict:
    entry = {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "time_unit": "us"}
    if error:
        entry.update(error_occurred=True, error_message="wrong result")
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "membench_build": "0123456789abcdef",
            "gpu_name": gpu,
            "date": "2026-12-02T03:04:05+00:00",
            "sweep": "default | all",
        },
        "benchmarks": [entry],
    }
    if complete is not None:
        doc["membench"] = {"schema_version": 1, "complete": complete, "counters": {}}
    return doc


def test_the_committed_index_is_what_the_files_give():
    assert results_index.main(["--root", str(REPO / "benchmarks" / "results"), "--check"]) == 0


def test_each_result_is_a_row_from_its_context_and_repeats_are_named(tmp_path, capsys):
    (tmp_path / "h200" / "2026-12-02-a").mkdir(parents=True)
    (tmp_path / "h200" / "2026-12-02-b").mkdir(parents=True)
    same = json.dumps(run("global/coalesced/n:4/manual_time"))
    (tmp_path / "h200" / "2026-12-02-a" / "default.json").write_text(same)
    (tmp_path / "h200" / "2026-12-02-b" / "default.json").write_text(same)
    (tmp_path / "h200" / "2026-12-02-b" / "cut.json").write_text(
        json.dumps(run("global/coalesced/n:8/manual_time", complete=False, error=True))
    )
    (tmp_path / "h200" / "2026-12-02-b" / "peer.json").write_text(json.dumps({"nvbandwidth": 1}))
    (tmp_path / "h200" / "2026-12-02-a" / "a_peer.json").write_text("[]")  # before the runs: they are still read
    assert results_index.main(["--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'INDEX.md'}\n"  # what was written, named
    text = (tmp_path / "INDEX.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| h200/")]
    assert rows == [
        "| h200/2026-12-02-a | [default.json](h200/2026-12-02-a/default.json) | NVIDIA H200 | 2026-12-02 "
        "| 0.1.0 (01234567) | default / all | 1 | 0 | 0 | yes |  |",
        "| h200/2026-12-02-b | [cut.json](h200/2026-12-02-b/cut.json) | NVIDIA H200 | 2026-12-02 "
        "| 0.1.0 (01234567) | default / all | 0 | 1 | 0 | no |  |",
        "| h200/2026-12-02-b | [default.json](h200/2026-12-02-b/default.json) | NVIDIA H200 | 2026-12-02 "
        "| 0.1.0 (01234567) | default / all | 1 | 0 | 0 | yes | h200/2026-12-02-a/default.json |",
    ]
    assert "2 other JSON file(s)" in text
    assert results_index.main(["--root", str(tmp_path), "--check"]) == 0
    (tmp_path / "h200" / "2026-12-02-b" / "old.json").write_text(json.dumps(run("a/b/manual_time", complete=None)))
    assert results_index.main(["--root", str(tmp_path), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert results_index.main(["--root", str(tmp_path)]) == 0
    assert "| no catalog |" in (tmp_path / "INDEX.md").read_text()


def test_a_root_that_is_not_a_folder_is_one_line_and_exit_2(tmp_path, capsys):
    assert results_index.main(["--root", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("results_index.py: ") and len(err.strip().splitlines()) == 1


def test_a_long_cell_is_cut_and_a_pipe_cannot_break_the_table():
    assert results_index.cell("a | b") == "a / b"
    assert results_index.cell("x" * 100, 10) == "xxxxxxx..."
    assert results_index.cell("one\ntwo") == "one two"


def test_a_run_that_names_no_sweep_has_an_empty_sweep_cell(tmp_path):
    doc = run("global/coalesced/n:4/manual_time")
    del doc["context"]["sweep"]
    assert results_index.row(tmp_path, tmp_path / "x" / "d.json", doc).sweep == ""


def test_a_row_counts_measured_failed_and_skipped_cases_apart_and_a_broken_result_is_refused(tmp_path, capsys):
    """A cell exactly at its limit is kept whole; a skipped case is not a measured one; a file that says it is
    membench's but cannot be read is refused, where a peer tool's JSON is only another kind of file."""
    assert results_index.cell("x" * 10, 10) == "x" * 10
    doc = run("global/coalesced/n:4/manual_time")
    doc["benchmarks"] += [
        {**doc["benchmarks"][0], "name": n, "run_name": n, "skipped": True, "skip_message": "needs two GPUs"}
        for n in ("peer/a/manual_time", "peer/b/manual_time")
    ]
    (tmp_path / "h100").mkdir()
    (tmp_path / "h100" / "run.json").write_text(json.dumps(doc))
    assert results_index.main(["--root", str(tmp_path)]) == 0
    capsys.readouterr()
    row = next(line for line in (tmp_path / "INDEX.md").read_text().splitlines() if "run.json" in line)
    assert row.endswith("| default / all | 1 | 0 | 2 | yes |  |")
    (tmp_path / "h100" / "broken.json").write_text('{"context": {"membench_version": "0.1.0"}, "benchmarks": 5}')
    assert results_index.main(["--root", str(tmp_path)]) == 2
    assert "broken.json" in capsys.readouterr().err
    assert results_index.claims_to_be_membench(tmp_path / "h100" / "broken.json")
    (tmp_path / "h100" / "peer.json").write_text('{"context": {"tool": "nvbandwidth"}}')
    assert not results_index.claims_to_be_membench(tmp_path / "h100" / "peer.json")


STORE_LIMIT_BYTES = 20 * 10**6


def store_files() -> list[Path]:
    """The files of the results store as a fresh clone has them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "benchmarks/results"], cwd=REPO, capture_output=True, text=True, check=False
    )
    if listed.returncode == 0 and listed.stdout:
        return [REPO / p for p in listed.stdout.split("\0") if p and (REPO / p).is_file()]
    return [p for p in (REPO / "benchmarks" / "results").rglob("*") if p.is_file()]


def test_the_store_stays_under_its_limit_and_holds_no_archive():
    """A fresh clone carries the whole store: it keeps what is cited, in 20 MB at most (its README's rule)."""
    files = store_files()
    assert len(files) > 50
    total = sum(p.stat().st_size for p in files)
    assert total <= STORE_LIMIT_BYTES, f"the results store holds {total / 1e6:.1f} MB, over its 20 MB"
    archives = [p.name for p in files if p.name.endswith((".tgz", ".tar.gz", ".tar", ".zip"))]
    assert archives == []


def test_every_run_a_reference_or_the_headline_names_is_in_the_store():
    names = set()
    for ref in (REPO / "benchmarks" / "references").glob("*.json"):
        names |= {r["file"] for r in json.loads(ref.read_text())["runs"]}
    headline = json.loads((REPO / "benchmarks" / "results" / "headline.json").read_text())
    text = json.dumps(headline)
    names |= {"benchmarks/results/" + m for m in re.findall(r'"file": "([^"]+)"', text)}
    assert len(names) > 10
    missing = sorted(n for n in names if not (REPO / n).is_file())
    assert missing == []
