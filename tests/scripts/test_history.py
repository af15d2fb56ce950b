"""history.py: runs added once, listed, drawn over time, and a new run gated against the band of its GPU model;
every test on SQLite and on a PostgreSQL server of its own, and runs added by several processes at once."""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import entry

from membench import history
from membench import history_store
from membench import report

TRIAD = "stream/triad/type:float/elements:1024/block:256/manual_time"
CHASE = "hierarchy/latency/working_set:16384/chase_stride:128/manual_time"


def a_run(day: int, triad: float = 4.36e12, chase: float = 16.5, uuid: str = "GPU-1", **triad_counters) -> dict:
    return {
        "context": {
            "date": f"2026-12-{day:02d}T00:00:00+00:00",
            "host_name": "n1",
            "gpu_uuid": uuid,
            "gpu_name": "NVIDIA H200",
            "driver_version": "580.159.04",
            "membench_version": "0.1.0",
        },
        "benchmarks": [
            entry(TRIAD, **{"noisy": 0, "bytes_per_second": triad, **triad_counters}),
            entry(CHASE, noisy=0, latency_ns=chase),
        ],
    }


def rows(db: str, sql: str, params: tuple = ()) -> list[tuple]:
    """A query on the history, whichever database holds it."""
    return [tuple(r) for r in history.connect(db).execute(sql, params)]


@pytest.fixture
def db(new_db, write_json):
    """A history of three days of the same GPU, the triad within 0.5% of 4.36 TB/s."""
    path = new_db()
    files = [write_json(a_run(day, triad)) for day, triad in ((1, 4.36e12), (2, 4.35e12), (3, 4.37e12))]
    assert history.main(["--db", path, "add", *files]) == 0
    return path


def test_add_is_idempotent_and_list_shows_each_run(db, write_json, capsys):
    capsys.readouterr()
    assert history.main(["--db", db, "add", write_json(a_run(1))]) == 0
    assert capsys.readouterr().out == f"0 run(s) added to {db}\n"
    assert history.main(["--db", db, "list"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "2026" in line]
    assert [line.split(" | ")[1] for line in listed] == [f"2026-12-0{d}T00:00:00+00:00" for d in (1, 2, 3)]
    assert all(line.endswith("| 2 |") for line in listed)  # two cases each


def test_each_gpu_of_a_run_over_several_is_a_run_of_its_own(new_db, write_json, capsys):
    doc = a_run(4)
    doc["context"]["devices"] = json.dumps([{"ordinal": k, "name": "NVIDIA H200", "uuid": f"GPU-{k}"} for k in (0, 1)])
    doc["benchmarks"] = [
        {
            **b,
            "name": b["name"].replace("/type:", f"/device:{k}/type:"),
            "run_name": b["name"].replace("/type:", f"/device:{k}/type:"),
        }
        for k in (0, 1)
        for b in doc["benchmarks"][:1]
    ]
    path = new_db()
    assert history.main(["--db", path, "add", write_json(doc)]) == 0
    assert sorted(
        rows(
            path, "SELECT gpu_uuid, name FROM runs JOIN measurements ON run = runs.id WHERE metric = 'bytes_per_second'"
        )
    ) == [("GPU-0", TRIAD), ("GPU-1", TRIAD)]


def test_trend_writes_the_values_and_a_figure(db, tmp_path, capsys):
    out = tmp_path / "trend"
    assert history.main(["--db", db, "trend", "triad", "--out", str(out)]) == 0
    rows = list(csv.reader(open(out / "trend.csv")))
    assert rows[0] == ["started", "host", "gpu_uuid", "gpu_name", "case", "bytes_per_second", "trusted"]
    assert [float(r[5]) for r in rows[1:]] == [4.36e12, 4.35e12, 4.37e12]
    assert (out / "trend.png").read_bytes()[:4] == b"\x89PNG"
    assert history.main(["--db", db, "trend", "chase", "--metric", "latency_ns", "--out", str(out)]) == 0
    assert [r[5] for r in csv.reader(open(out / "trend.csv"))][1:] == ["16.5"] * 3


def test_check_passes_a_run_inside_the_band_and_catches_a_15_percent_slowdown(db, write_json, capsys):
    capsys.readouterr()
    assert history.main(["--db", db, "check", write_json(a_run(4, 4.36e12))]) == 0
    # median 4.36e12; deviations 0, 0.01e12, 0.01e12: MAD 0.01e12; half-width 3 x 1.4826 x 0.01e12 = 4.4478e10,
    # under the 5% a gate counts by default (2.18e11); with --threshold 1 (4.36e10), the MADs decide.
    assert (
        f"| {TRIAD} | GPU-1 | bytes_per_second | 4.36e+12 | 4.36e+12 | 4.142e+12 .. 4.578e+12 | ok |"
        in capsys.readouterr().out
    )
    assert history.main(["--db", db, "check", "--threshold", "1", write_json(a_run(4, 4.36e12))]) == 0
    assert (
        f"| {TRIAD} | GPU-1 | bytes_per_second | 4.36e+12 | 4.36e+12 | 4.31552e+12 .. 4.40448e+12 | ok |"
        in capsys.readouterr().out
    )
    assert history.main(["--db", db, "check", write_json(a_run(5, 4.36e12 * 0.85))]) == 1
    assert "| REGRESSION |" in capsys.readouterr().out
    # Latency is lower-is-better: 15% slower is higher.
    assert history.main(["--db", db, "check", "--metric", "latency_ns", write_json(a_run(6, chase=16.5 * 1.15))]) == 1


def test_untrusted_values_never_enter_the_band_and_the_gate_fails_closed(new_db, write_json, capsys):
    path = new_db()
    files = [write_json(a_run(d, 4.36e12)) for d in (1, 2)]
    files.append(write_json(a_run(3, 2.0e12, contended=1, other_processes=1)))  # a shared GPU: kept, not trusted
    assert history.main(["--db", path, "add", *files]) == 0
    capsys.readouterr()
    # Two trusted values of the triad: nothing can be judged by its bandwidth, and a gate that judged nothing has
    # not passed. (The chase, uncontended in all three, has three: by default it is judged by its latency.)
    assert history.main(["--db", path, "check", "--metric", "bytes_per_second", write_json(a_run(4, 4.36e12))]) == 1
    done = capsys.readouterr()
    assert "2 trusted values in the history, 3 needed: not judged" in done.out
    assert done.err.startswith("history.py: no trusted case of ") and done.err.endswith(": nothing judged\n")
    assert history.main(["--db", path, "add", write_json(a_run(5, 4.36e12))]) == 0
    noisy = write_json(a_run(6, 2.0e12, noisy=1, noise_pct=6.0))
    capsys.readouterr()
    assert history.main(["--db", path, "check", noisy]) == 1  # no evidence is no pass
    done = capsys.readouterr()
    assert "| UNTRUSTED in this run: noise 6% >= the 5% threshold |" in done.out
    assert "--allow-untrusted accepts them" in done.err
    # The stopping rule's own mark (its 0.5% target not met) is no doubt: the same threshold as every gate is.
    assert history.main(["--db", path, "check", "--noise-threshold", "6.5", noisy]) == 1
    assert "| REGRESSION |" in capsys.readouterr().out
    # --allow-untrusted lets untrusted cases pass, but a gate that judged only those has judged nothing.
    assert history.main(["--db", path, "check", "--allow-untrusted", "--metric", "bytes_per_second", noisy]) == 1
    assert capsys.readouterr().err.endswith(": nothing judged\n")


def test_other_gpu_models_or_drivers_are_not_the_band(db, write_json, capsys):
    other = a_run(4, 2.0e12)
    other["context"]["driver_version"] = "590.0"
    capsys.readouterr()
    assert history.main(["--db", db, "check", write_json(other)]) == 1  # nothing to judge it against
    assert "0 trusted values in the history" in capsys.readouterr().out


BOUNDS = "history.py: --last must be at least 3, --width positive and finite and --threshold finite, not negative"


@pytest.mark.parametrize(
    "args, line",
    [
        (["check", "{run}", "--last", "2"], BOUNDS),
        (["check", "{run}", "--width", "0"], BOUNDS),
        (["check", "{run}", "--width", "inf"], BOUNDS),
        (["check", "{run}", "--width", "nan"], BOUNDS),
        (["check", "{run}", "--threshold", "-1"], BOUNDS),
        (["check", "{run}", "--threshold", "nan"], BOUNDS),
        (["check", "{run}", "--threshold", "inf"], BOUNDS),
        (["trend", "(", "--out", "{tmp}"], "history.py: (: not a regular expression"),
        (
            ["trend", "nothing-like-this", "--out", "{tmp}"],
            "history.py: no case matching 'nothing-like-this' has 'bytes_per_second' in the history",
        ),
        (["add", "{tmp}/missing.json"], "history.py: "),
    ],
)
def test_refusals_are_one_line_and_exit_2(db, tmp_path, write_json, capsys, args, line):
    run = write_json(a_run(4))
    capsys.readouterr()
    assert history.main(["--db", db, *[a.format(run=run, tmp=tmp_path) for a in args]]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and len(err.splitlines()) == 1, err


def test_a_file_that_is_not_a_history_is_refused(tmp_path, write_json, capsys):
    bad = tmp_path / "not.sqlite"
    bad.write_text("plain text, not SQLite")
    assert history.main(["--db", str(bad), "list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"history.py: --db {bad}: not a history file") and len(err.splitlines()) == 1


def test_the_report_shows_the_study_cases_over_the_history(new_db, tmp_path, write_json, monkeypatch):
    monkeypatch.setattr(report, "figures", lambda doc: [])  # the tables are what this test reads
    path = new_db()
    name = "global/coalesced/n:16777216/manual_time"
    runs = []
    for day, rate in ((1, 2.6e12), (2, 2.7e12), (3, 2.5e12), (4, 2.6e12), (5, 2.8e12), (6, 2.7e12)):
        doc = a_run(day)
        doc["benchmarks"].append({**doc["benchmarks"][0], "name": name, "run_name": name, "bytes_per_second": rate})
        runs.append(write_json(doc))
    assert history.main(["--db", path, "add", *runs]) == 0
    out = tmp_path / "r"
    assert report.main([runs[-1], "--out", str(out), "--history", path]) == 0
    md = (out / "report.md").read_text()
    assert "\n### The study's cases in the history\n" in md
    assert "| coalesced | 6 | 2500 | 2650 | 2800 | 2700, 2500, 2600, 2800, 2700 |" in md  # the last five, oldest first
    assert "| stride 2 (the article's launch: n threads) | 0 |  |  |  |  |" in md  # its family ran, not the case
    assert report.main([runs[-1], "--out", str(out), "--history", str(tmp_path / "none.sqlite")]) == 2


def test_a_run_keeps_its_key_metrics_and_its_context(new_db, write_json, capsys):
    path = new_db()
    doc = a_run(1)
    # migrated_bytes is measured but has no better direction: no trend to keep.
    doc["benchmarks"][0].update(
        latency_cycles=1.0, pct_of_peak=90.0, noise_pct=0.1, updates_per_second=2.0, migrated_bytes=1e6
    )
    skipped = {
        **doc["benchmarks"][1],
        "name": "peer/x/bytes:64/manual_time",
        "run_name": "peer/x/bytes:64/manual_time",
        "error_occurred": True,
        "error_message": "skipped: needs two GPUs; 1 visible",
    }
    doc["benchmarks"].insert(0, skipped)  # a skipped case first: the rest is still kept
    twin = a_run(1)
    twin["context"]["membench_version"] = "0.2.0"  # the same start on another version: another run
    bare = a_run(2)
    for key in ("host_name", "driver_version", "sm_clock_peak_mhz"):
        bare["context"].pop(key, None)
    assert (
        history.main(["--db", path, "add", write_json(a_run(1)), write_json(doc), write_json(twin), write_json(bare)])
        == 0
    )
    assert capsys.readouterr().out == f"3 run(s) added to {path}\n"  # doc repeats a_run(1)'s key
    assert sorted(m for (m,) in rows(path, "SELECT DISTINCT metric FROM measurements WHERE name = ?", (TRIAD,))) == [
        "bytes_per_second",
        "real_time",
    ]
    assert history.main(["--db", path, "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "| run | started | host | GPU | UUID | driver | membench | cases |",
        "| ---: | --- | --- | --- | --- | --- | --- | ---: |",
    ]
    assert lines[2:] == [
        "| 1 | 2026-12-01T00:00:00+00:00 | n1 | NVIDIA H200 | GPU-1 | 580.159.04 | 0.1.0 | 2 |",
        "| 2 | 2026-12-01T00:00:00+00:00 | n1 | NVIDIA H200 | GPU-1 | 580.159.04 | 0.2.0 | 2 |",
        "| 3 | 2026-12-02T00:00:00+00:00 |  | NVIDIA H200 | GPU-1 |  | 0.1.0 | 2 |",
    ]
    # What a file does not say is kept empty, not made up.
    assert rows(path, "SELECT host, driver, sm_clock_peak_mhz FROM runs ORDER BY id")[2] == ("", "", "")
    path2 = new_db()
    assert history.main(["--db", path2, "add", write_json(doc)]) == 0
    assert sorted(m for (m,) in rows(path2, "SELECT metric FROM measurements WHERE name = ?", (TRIAD,))) == [
        "bytes_per_second",
        "latency_cycles",
        "pct_of_peak",
        "real_time",
        "updates_per_second",
    ]


def test_trend_draws_a_line_per_gpu_and_case_over_the_runs_in_order(new_db, tmp_path, write_json, capsys):
    path = new_db()
    runs = [a_run(3, 4.3e12), a_run(1, 4.1e12), a_run(2, 4.2e12), a_run(2, 3.0e12, uuid="GPU-2")]
    assert history.main(["--db", path, "add", *map(write_json, runs)]) == 0
    capsys.readouterr()
    out = tmp_path / "deep" / "trend"
    assert history.main(["--db", path, "trend", "triad", "--out", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [str(out / "trend.csv"), str(out / "trend.png")]
    found = rows(
        path,
        "SELECT started, host, gpu_uuid, gpu_name, name, value, trusted FROM measurements m "
        "JOIN runs r ON r.id = m.run WHERE metric = 'bytes_per_second' AND name = ? ORDER BY started, r.id",
        (TRIAD,),
    )
    fig = history.draw_trend(found, "bytes_per_second")
    drawn = {l.get_label(): (list(l.get_xdata()), list(l.get_ydata())) for l in fig.axes[0].get_lines()}
    assert drawn == {f"n1 GPU-1: {TRIAD}": ([0, 1, 2], [4.1e12, 4.2e12, 4.3e12]), f"n1 GPU-2: {TRIAD}": ([1], [3.0e12])}
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [f"2026-12-0{d}T00:00:00" for d in (1, 2, 3)]
    assert fig.axes[0].get_title() == "bytes_per_second over 3 runs"


def history_of(new_db, write_json, triads, **run_kwargs) -> str:
    path = new_db()
    files = [write_json(a_run(day + 1, t, **run_kwargs)) for day, t in enumerate(triads)]
    assert history.main(["--db", path, "add", *files]) == 0
    return path


def test_the_band_is_the_last_n_values_and_at_least_the_threshold(new_db, write_json, capsys):
    # Ten recent values 4.00 .. 4.09e12 and an older 9e12: the last ten have median 4.045e12, eleven 4.05e12.
    path = history_of(new_db, write_json, [9e12] + [4.0e12 + k * 1e10 for k in range(10)])
    capsys.readouterr()
    assert history.main(["--db", path, "check", write_json(a_run(20, 4.045e12))]) == 0
    assert "| 4.045e+12 | 4.045e+12 |" in capsys.readouterr().out
    # Identical values: no spread, so the band is +- the threshold: 5% by default (3.8e12 .. 4.2e12), 1% given.
    path = history_of(new_db, write_json, [4.0e12] * 3)
    capsys.readouterr()
    assert history.main(["--db", path, "check", write_json(a_run(20, 3.81e12))]) == 0
    assert history.main(["--db", path, "check", write_json(a_run(21, 3.79e12))]) == 1
    one = ["--db", path, "check", "--threshold", "1"]
    assert history.main([*one, write_json(a_run(22, 3.96e12))]) == 0
    assert history.main([*one, write_json(a_run(23, 3.95e12))]) == 1
    assert history.main([*one, "--last", "3", "--width", "0.5", write_json(a_run(24, 3.99e12))]) == 0


def test_the_band_is_the_newest_values_by_the_runs_dates_not_the_order_they_were_added(new_db, write_json, capsys):
    """Five runs at 9 TB/s on days 1-5, five at 4 TB/s on days 6-10, added newest first: --last 5 is the newest
    five (4 TB/s), whatever the order of the rows."""
    path = new_db()
    files = [write_json(a_run(day, 9e12 if day <= 5 else 4e12)) for day in range(10, 0, -1)]
    assert history.main(["--db", path, "add", *files]) == 0
    capsys.readouterr()
    assert history.main(["--db", path, "check", "--last", "5", write_json(a_run(20, 4e12))]) == 0
    assert "| 4e+12 | 4e+12 |" in capsys.readouterr().out
    assert history.main(["--db", path, "check", "--last", "5", write_json(a_run(21, 3.5e12))]) == 1
    # The check's own run is never its band: a run already in the history is judged against the others.
    assert history.main(["--db", path, "check", "--last", "5", files[0]]) == 0
    assert "| 4e+12 | 4e+12 |" in capsys.readouterr().out


@pytest.mark.parametrize(
    "metric, worse", [("real_time", 1.2), ("latency_cycles", 1.2), ("latency_ns", 1.2), ("bytes_per_second", 0.8)]
)
def test_each_metric_is_judged_the_way_it_gets_worse(new_db, write_json, capsys, metric, worse):
    path = new_db()
    files = []
    for day in (1, 2, 3):
        doc = a_run(day)
        doc["benchmarks"][0].update(latency_cycles=32.0, latency_ns=16.0)
        files.append(write_json(doc))
    assert history.main(["--db", path, "add", *files]) == 0
    new = a_run(4)
    new["benchmarks"][0].update(latency_cycles=32.0, latency_ns=16.0)
    new["benchmarks"][0][metric] = new["benchmarks"][0][metric] * worse
    assert history.main(["--db", path, "check", "--metric", metric, write_json(new)]) == 1
    new["benchmarks"][0][metric] = new["benchmarks"][0][metric] / worse / worse  # as much better
    assert history.main(["--db", path, "check", "--metric", metric, write_json(new)]) == 0


def test_one_regression_among_many_fails_and_a_case_without_history_does_not_stop_the_rest(new_db, write_json, capsys):
    path = history_of(new_db, write_json, [4.36e12] * 3)
    new = a_run(9, 4.36e12 * 0.8)
    fresh = {**new["benchmarks"][0], "name": "stream/new/x:1/manual_time", "run_name": "stream/new/x:1/manual_time"}
    late = {**new["benchmarks"][0], "name": "stream/zz/x:1/manual_time", "run_name": "stream/zz/x:1/manual_time"}
    failed = {
        **new["benchmarks"][0],
        "name": "stream/aa/x:1/manual_time",
        "run_name": "stream/aa/x:1/manual_time",
        "error_occurred": True,
        "error_message": "verification failed",
    }
    # A failed case (no row: it has no value), no history, a regression, no history.
    new["benchmarks"] = [failed, fresh, new["benchmarks"][0], late]
    capsys.readouterr()
    assert history.main(["--db", path, "check", write_json(new)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| case | GPU | measure | value | history median | band | verdict |"
    assert [line.rsplit("|", 2)[1].strip() for line in lines[2:]] == [
        "0 trusted values in the history, 3 needed: not judged",
        "REGRESSION",
        "0 trusted values in the history, 3 needed: not judged",
    ]


def test_usage_errors_are_one_line_and_exit_2(new_db, tmp_path, write_json, capsys):
    for argv in (["--db", str(tmp_path / "h.sqlite")], ["--db", str(tmp_path / "h.sqlite"), "trend", "triad"]):
        with pytest.raises(SystemExit) as e:
            history.main(argv)
        assert e.value.code == 2
        assert len(capsys.readouterr().err.splitlines()) == 1
    path = history_of(new_db, write_json, [4.36e12] * 3)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    capsys.readouterr()
    assert history.main(["--db", path, "trend", "triad", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("history.py: ") and len(err.splitlines()) == 1


def test_a_mistyped_history_is_refused_and_only_add_makes_one(tmp_path, write_json, capsys):
    missing = tmp_path / "typo.sqlite"
    for args in (["list"], ["check", write_json(a_run(1))], ["trend", "x", "--out", str(tmp_path)]):
        assert history.main(["--db", str(missing), *args]) == 2
        assert capsys.readouterr().err == f"history.py: --db {missing}: no such history (history.py add makes one)\n"
        assert not missing.exists()
    assert history.main(["--db", str(missing), "add", write_json(a_run(1))]) == 0
    assert missing.exists()


def test_a_run_keeps_its_build_and_why_a_value_is_untrusted_and_the_check_uses_an_index(new_db, write_json):
    path = new_db()
    doc = a_run(1, 2.0e12, contended=1, other_processes=2)
    doc["context"].update(
        membench_build="00ff00ff00ff00ff",
        cuda_driver_version="13.0",
        runtime_version="13.0",
        sm_clock_peak_mhz="1980",
        sweep="--sweep=sweeps/ci.json",
    )
    assert history.main(["--db", path, "add", write_json(doc)]) == 0
    assert rows(path, "SELECT build, cuda_driver, runtime, sm_clock_peak_mhz, sweep, repetitions FROM runs") == [
        ("00ff00ff00ff00ff", "13.0", "13.0", "1980", "--sweep=sweeps/ci.json", 1)
    ]
    assert rows(path, "SELECT trusted, why FROM measurements WHERE metric = 'bytes_per_second'") == [
        (0, "contended (2 other processes on the GPU)")
    ]
    if history_store.is_url(path):
        return  # the query plan below is SQLite's
    con = sqlite3.connect(path)
    plan = " ".join(
        str(row)
        for row in con.execute(
            "EXPLAIN QUERY PLAN SELECT value FROM measurements m JOIN runs r ON r.id = m.run WHERE name = ? AND metric = ? "
            "AND trusted = 1 AND gpu_name = ? AND driver = ? ORDER BY started DESC LIMIT 10",
            ("a", "b", "c", "d"),
        )
    )
    assert "USING INDEX" in plan and "SCAN m" not in plan and "SCAN measurements" not in plan, plan


def test_a_host_paced_case_s_band_is_at_least_three_times_its_noise(new_db, write_json, capsys):
    path = new_db()
    assert (
        history.main(
            ["--db", path, "add", *[write_json(a_run(d, 4.36e12, host_paced=1, noise_pct=2.0)) for d in (1, 2, 3)]]
        )
        == 0
    )
    capsys.readouterr()
    # 3% under the median: inside three times its 2% noise, though outside a 1% threshold.
    one = ["--db", path, "check", "--threshold", "1"]
    assert history.main([*one, write_json(a_run(4, 4.23e12, host_paced=1, noise_pct=2.0))]) == 0
    capsys.readouterr()
    assert history.main([*one, write_json(a_run(5, 4.23e12, noise_pct=2.0))]) == 1
    assert "| REGRESSION |" in capsys.readouterr().out
    # A host-paced value whose noise is not in the file widens nothing: the 1% threshold, so 2% under fails.
    assert history.main([*one, write_json(a_run(6, 4.27e12, host_paced=1))]) == 1
    assert "| REGRESSION |" in capsys.readouterr().out


def test_only_add_makes_a_history_on_either_database(new_db, write_json, capsys):
    db = new_db()
    assert history.main(["--db", db, "list"]) == 2
    assert capsys.readouterr().err == (
        f"history.py: --db {history_store.shown(db)}: no such history (history.py add makes one)\n"
    )
    assert history.main(["--db", db, "add", write_json(a_run(1))]) == 0
    assert history.main(["--db", db, "list"]) == 0


def test_a_server_that_cannot_be_reached_is_one_line_without_its_password(capsys):
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -r scripts/requirements.txt)")
    url = "postgresql://fleet:s3cret@/membench?host=/no/such/socket/dir&port=1"
    assert history.main(["--db", url, "list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("history.py: --db postgresql://fleet@/membench?host=/no/such/socket/dir&port=1: cannot use")
    assert "s3cret" not in err and len(err.splitlines()) == 1
    assert "/no/such/socket/dir" in err.split(": cannot use it as a history (", 1)[1]  # the driver's own first line


def test_many_processes_add_at_once_and_each_run_is_there_once(new_db, write_json):
    """Eight nodes add their four runs each at the same moment, and four of them also add one shared file: 33
    runs, each whole, and the shared one added by exactly one of them."""
    db = new_db()
    script = str(Path(history.__file__).parents[1] / "history.py")
    shared = write_json(a_run(28, uuid="GPU-shared"))
    nodes = [[write_json(a_run(day, uuid=f"GPU-{node}")) for day in range(1, 5)] for node in range(8)]
    assert history.main(["--db", db, "add", nodes[0][0]]) == 1 - 1  # the schema first, as a fleet's first node
    procs = [
        subprocess.Popen(
            [sys.executable, script, "--db", db, "add", *files, *([shared] if node < 4 else [])],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for node, files in enumerate(nodes)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outputs]
    added = sum(int(out.split(" run(s) added")[0]) for out, _ in outputs)
    assert added == 8 * 4 - 1 + 1  # nodes[0][0] was there already; the shared file once
    assert rows(db, "SELECT COUNT(*) FROM runs") == [(33,)]
    counts = rows(db, "SELECT run, COUNT(*) FROM measurements GROUP BY run")
    assert len(counts) == 33 and {c for _, c in counts} == {4}  # two cases, two metrics each: none half-written


@pytest.mark.parametrize(
    "db, shown",
    [
        ("postgresql://fleet:s3cret@db.example.org:5432/membench", "postgresql://fleet@db.example.org:5432/membench"),
        ("postgres://db.example.org/membench", "postgres://db.example.org/membench"),
        ("postgresql:///membench?host=/run/pg", "postgresql:///membench?host=/run/pg"),
        ("membench-history.sqlite", "membench-history.sqlite"),
    ],
)
def test_a_url_is_named_without_its_password_and_both_schemes_are_postgresql(db, shown):
    assert history_store.shown(db) == shown
    assert history_store.is_url(db) == db.startswith("postgres")


def test_a_history_is_only_made_where_asked_and_read_only_leaves_it_as_it_was(new_db, write_json):
    db = new_db()
    with pytest.raises(history.mr.InputError, match="no such history"):
        history_store.Store(db)
    assert history.main(["--db", db, "add", write_json(a_run(1))]) == 0
    reader = history_store.Store(db, read_only=True)
    assert reader.execute("SELECT COUNT(*) FROM runs") == [(1,)]
    if not history_store.is_url(db):
        before = Path(db).stat().st_mtime_ns
        history_store.Store(db, read_only=True).execute("SELECT * FROM measurements")
        assert Path(db).stat().st_mtime_ns == before


def test_a_statement_the_database_refuses_is_a_database_error_with_its_first_line(new_db, write_json):
    db = new_db()
    assert history.main(["--db", db, "add", write_json(a_run(1))]) == 0
    with pytest.raises(history_store.DatabaseError, match="no_such_column"):
        history.connect(db).execute("SELECT no_such_column FROM runs")


def test_an_older_schema_gets_its_added_columns_on_either_database(new_db, write_json):
    """A history made before the build, sweep and why columns (its indexes there already): adding to it adds them."""
    db = new_db()
    old = history_store.TABLES
    if history_store.is_url(db):
        import psycopg

        with psycopg.connect(db, autocommit=True) as con:
            for table, columns in old.items():
                con.execute(
                    f"CREATE TABLE {table} ({columns.format(id='BIGSERIAL PRIMARY KEY', real='DOUBLE PRECISION')})"
                )
            for index in history_store.INDEXES:
                con.execute(index)
    else:
        con = sqlite3.connect(db)
        for table, columns in old.items():
            con.execute(f"CREATE TABLE {table} ({columns.format(id='INTEGER PRIMARY KEY', real='REAL')})")
        for index in history_store.INDEXES:
            con.execute(index)
        con.commit()
        con.close()
    doc = a_run(1)
    doc["context"]["membench_build"] = "abc"
    assert history.main(["--db", db, "add", write_json(doc)]) == 0
    assert rows(db, "SELECT build, repetitions FROM runs") == [("abc", 1)]
    assert rows(db, "SELECT DISTINCT better FROM measurements ORDER BY better") == [("higher",), ("lower",)]


def test_a_history_kept_across_a_change_of_names_still_gates_and_draws_under_today_s(
    new_db, write_json, tmp_path, capsys
):
    """Runs added by an older membench hold the names of their day (here: before the transfer family's
    remote_node axis); a new run is judged against them, and the trend names them as today."""
    old = "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864/manual_time"
    new = "transfer/host_to_device_memcpy_ce/host:pinned/bytes:67108864/remote_node:0/manual_time"

    def copy_run(day: int, rate: float, name: str) -> dict:
        doc = a_run(day)
        doc["benchmarks"] = [entry(name, noisy=0, bytes_per_second=rate)]
        return doc

    path = new_db()
    files = [write_json(copy_run(day, rate, old)) for day, rate in ((1, 5.5e10), (2, 5.51e10), (3, 5.49e10))]
    assert history.main(["--db", path, "add", *files]) == 0
    con = history.connect(path)
    with con._transaction():  # as an older membench stored them: under the names of its day
        con.execute("UPDATE measurements SET name = ? WHERE name = ?", (old, new))
    assert rows(path, "SELECT DISTINCT name FROM measurements") == [(old,)]
    capsys.readouterr()
    assert history.main(["--db", path, "check", write_json(copy_run(4, 5.5e10, new))]) == 0
    assert f"| {new} | GPU-1 | bytes_per_second | 5.5e+10 | 5.5e+10 |" in capsys.readouterr().out
    assert history.main(["--db", path, "check", write_json(copy_run(5, 4.0e10, new))]) == 1
    assert "| REGRESSION |" in capsys.readouterr().out
    assert history.main(["--db", path, "trend", "remote_node:0", "--out", str(tmp_path / "t")]) == 0
    with open(tmp_path / "t" / "trend.csv") as f:
        assert {r["case"] for r in csv.DictReader(f)} == {new}


def test_a_rerun_a_few_percent_off_is_the_same_to_both_gates(db, write_json, capsys):
    """One binary rerun on one GPU moves some cases by a percent or two (an H100's default run moved a host copy
    by 2.1% from the three before it): the history's gate calls that what compare.py does, the same, and both
    call a change past the threshold a regression."""
    from membench import compare

    for factor, status, verdict in ((0.979, 0, "| ok |"), (0.94, 1, "| REGRESSION |")):
        rerun = write_json(a_run(4, 4.36e12 * factor))
        capsys.readouterr()
        assert history.main(["--db", db, "check", rerun]) == status
        assert (
            f"| {TRIAD} | GPU-1 | bytes_per_second | {4.36e12 * factor:.6g} | 4.36e+12 | 4.142e+12 .. 4.578e+12 {verdict}"
            in (capsys.readouterr().out)
        )
        assert compare.main([write_json(a_run(3, 4.36e12)), rerun]) == status
        assert ("2 cases: 2 same" if status == 0 else "2 cases: 1 REGRESSION, 1 same") in capsys.readouterr().out


def test_an_empty_db_names_no_history(tmp_path, write_json, capsys):
    # SQLite opens '' as a temporary database: "1 run(s) added" to a history that keeps nothing.
    for argv in (["--db", "", "add", write_json(a_run(1))], ["--db", " ", "list"]):
        assert history.main(argv) == 2
        err = capsys.readouterr().err
        assert "names no history" in err and len(err.splitlines()) == 1


def test_trend_matches_with_re2_as_the_binary_does(db, tmp_path, capsys):
    # RE2 has no backreferences: refusing one shows the pattern never reaches a backtracking engine, which took
    # minutes over "(.|.)*Q" on a long name.
    assert history.main(["--db", db, "trend", r"(triad)\1", "--out", str(tmp_path / "t")]) == 2
    assert "not a regular expression RE2 takes" in capsys.readouterr().err
    assert history.main(["--db", db, "trend", "(.|.)*Q", "--out", str(tmp_path / "t")]) == 2  # matches nothing
