"""compare.py: verdicts on constructed regressions, improvements, noise, and bad input."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from membench import compare
from membench import results as mr
import pytest
from conftest import load, scaled, with_aggregates, with_repetitions

CASE = "global/vectorized/n:268435456/vec:4/ilp:1/persistent:1/manual_time"


def run(capsys, *argv):
    code = compare.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split("|")[1:-1]]


def row_of(out: str, case: str) -> list[str]:
    """A case's row without the measure column (measure_of reads it), as with --metric: case, baseline, contender,
    change, p-value, verdict."""
    row = cells(next(line for line in out.splitlines() if line.startswith(f"| {case} |")))
    header = cells(next(line for line in out.splitlines() if line.startswith("| case |")))
    return row[:1] + row[2:] if header[1] == "measure" else row


def measure_of(out: str, case: str) -> str:
    return cells(next(line for line in out.splitlines() if line.startswith(f"| {case} |")))[1]


def verdict(out: str, case: str) -> str:
    """The verdict without the "(threshold only)" note of an untestable sample."""
    return row_of(out, case)[-1].removesuffix(" (threshold only)")


def test_identical_files_pass(capsys, global_run, write_json):
    code, out, _ = run(capsys, write_json(global_run), write_json(global_run))
    assert code == 0
    assert verdict(out, CASE) == "same"
    first, blank, table = out.split("\n")[:3]
    assert first.startswith("baseline ") and ", contender " in first
    assert ", each case's measure (bytes_per_second 20): 20 cases: " in first
    assert first.endswith(" same") and blank == "" and table.startswith("| case | measure | baseline | contender |")
    assert measure_of(out, CASE) == "bytes_per_second"
    code, out, _ = run(capsys, write_json(global_run), write_json(global_run), "--metric", "bytes_per_second")
    assert ", bytes_per_second: 20 cases: " in out.splitlines()[0]
    assert out.split("\n")[2].startswith("| case | baseline bytes_per_second |")


def test_a_20_percent_drop_is_a_regression(capsys, global_run, write_json):
    slower = scaled(global_run, CASE, 0.8)
    code, out, _ = run(capsys, write_json(global_run), write_json(slower))
    assert code == 1
    assert verdict(out, CASE) == "REGRESSION"
    assert "-20.00" in next(line for line in out.splitlines() if CASE in line)


def test_a_drop_within_the_threshold_passes(capsys, global_run, write_json):
    code, out, _ = run(capsys, write_json(global_run), write_json(scaled(global_run, CASE, 0.97)), "--threshold", 5)
    assert code == 0
    assert verdict(out, CASE) == "same"


def test_an_improvement_passes(capsys, global_run, write_json):
    code, out, _ = run(capsys, write_json(global_run), write_json(scaled(global_run, CASE, 1.3)))
    assert code == 0
    assert verdict(out, CASE) == "improvement"


def test_real_time_is_lower_is_better(capsys, global_run, write_json):
    slower = scaled(global_run, CASE, 1.25, metric="real_time")
    code, out, _ = run(capsys, write_json(global_run), write_json(slower), "--metric", "real_time")
    assert code == 1
    assert verdict(out, CASE) == "REGRESSION"


def test_significant_regression_over_repetitions(capsys, global_run, write_json):
    base = with_repetitions(global_run, CASE, [100, 101, 99, 100, 102, 98])
    cont = with_repetitions(global_run, CASE, [80, 81, 79, 80, 82, 78])
    code, out, _ = run(capsys, write_json(base), write_json(cont))
    assert code == 1
    assert verdict(out, CASE) == "REGRESSION"
    assert float(row_of(out, CASE)[4]) < 0.01


def test_noisy_difference_is_not_a_regression(capsys, global_run, write_json):
    # Medians differ by 20%, but the samples overlap: Mann-Whitney cannot call it.
    base = with_repetitions(global_run, CASE, [100, 60, 140, 90, 125])
    cont = with_repetitions(global_run, CASE, [80, 130, 55, 95, 70])
    code, out, _ = run(capsys, write_json(base), write_json(cont))
    assert code == 0
    assert verdict(out, CASE) == "noise"


def test_errored_cases_are_reported(capsys, global_run, write_json):
    # A real failure: global/memcpy's output corrupted before verification (MEMBENCH_TEST_CORRUPT=1), as the
    # binary wrote it, in place of the same case in a run of the same cases.
    measured = load("global_layout.json")
    failed = next(b for b in load("global_failed.json")["benchmarks"] if b.get("error_occurred"))
    recorded = copy.deepcopy(measured)
    recorded["benchmarks"] = [failed if b["name"] == failed["name"] else b for b in recorded["benchmarks"]]
    assert sum(b["name"] == failed["name"] for b in recorded["benchmarks"]) == 1
    code, out, _ = run(capsys, write_json(recorded), write_json(measured))
    assert code == 1  # a failed baseline is no evidence that the contender is fine
    message = "verification failed: out[8388608] = 0, expected 139.25 (1 of 16777216 elements differ)"
    assert f"| UNTRUSTED: baseline failed: {message} |" in out
    assert run(capsys, write_json(recorded), write_json(measured), "--allow-untrusted")[0] == 0
    code, out, _ = run(capsys, write_json(measured), write_json(recorded))
    assert code == 1
    assert f"ERROR in contender: {message}" in out
    broken = copy.deepcopy(global_run)
    entry = next(b for b in broken["benchmarks"] if b["name"] == CASE)
    entry.update(error_occurred=True, error_message="verification failed: out[3] = nan, expected 2")
    code, out, _ = run(capsys, write_json(global_run), write_json(broken))
    assert code == 1
    assert verdict(out, CASE).startswith("ERROR in contender: verification failed")


def test_vanished_cases_are_reported(capsys, global_run, write_json):
    fewer = copy.deepcopy(global_run)
    fewer["benchmarks"] = [b for b in fewer["benchmarks"] if b["name"] != CASE]
    code, out, _ = run(capsys, write_json(global_run), write_json(fewer))
    assert code == 1
    assert verdict(out, CASE) == "missing in contender"
    code, _, _ = run(capsys, write_json(global_run), write_json(fewer), "--ignore-missing")
    assert code == 0
    code, out, _ = run(capsys, write_json(fewer), write_json(global_run))
    assert code == 0
    assert verdict(out, CASE) == "new in contender"


def test_different_gpus_warn(capsys, global_run, write_json):
    other = copy.deepcopy(global_run)
    other["context"]["gpu_name"] = "NVIDIA H200"
    code, _, err = run(capsys, write_json(global_run), write_json(other))
    assert code == 0
    assert "warning: different GPUs" in err


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "cannot read"),
        ("{not json", "not JSON"),
        (json.dumps({"benchmarks": []}), "not Google Benchmark JSON"),
        (json.dumps([1, 2]), "not Google Benchmark JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, global_run, write_json, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    code, out, err = run(capsys, write_json(global_run), path)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_no_common_cases_exits_2(capsys, global_run, write_json):
    other = copy.deepcopy(global_run)
    for b in other["benchmarks"]:
        b["name"] = b["run_name"] = "other_" + b["name"]
    code, _, err = run(capsys, write_json(global_run), write_json(other))
    assert code == 2
    assert "no case in common" in err


# ---- the gate cannot fail open --------------------------------------------------


@pytest.mark.parametrize(
    "base, cont, code, expected",
    [
        # 3 vs 3 at -50%: the exact test cannot go below p = 0.1, so the threshold decides.
        ([100, 101, 99], [50, 50.5, 49.5], 1, "REGRESSION"),
        # 2 vs 2 at -30%.
        ([100, 101], [70, 70.7], 1, "REGRESSION"),
        # 1 vs 1: no test at all.
        ([100], [80], 1, "REGRESSION"),
        ([100], [99], 0, "same"),
        # 5 vs 5, noisy but equal: medians within the threshold.
        ([100, 104, 96, 101, 99], [99, 103, 97, 100, 102], 0, "same"),
    ],
)
def test_small_samples_are_judged_on_the_threshold(capsys, global_run, write_json, base, cont, code, expected):
    got, out, _ = run(
        capsys,
        write_json(with_repetitions(global_run, CASE, base)),
        write_json(with_repetitions(global_run, CASE, cont)),
    )
    assert got == code
    assert verdict(out, CASE) == expected
    if min(len(base), len(cont)) < 4:
        assert row_of(out, CASE)[-1].endswith("(threshold only)")
        assert row_of(out, CASE)[4] == "untestable"
        assert "verdicts rest on the threshold alone" in out


def test_smallest_p_of_the_exact_test():
    assert compare.smallest_p(3, 3) == pytest.approx(0.1)
    assert compare.smallest_p(4, 4) == pytest.approx(2 / 70)
    assert compare.smallest_p(2, 2) == pytest.approx(1 / 3)
    assert compare.smallest_p(1, 1) == 1.0
    assert compare.smallest_p(0, 3) == 1.0  # a p-value, never above 1, even where one side has no sample


def test_four_against_four_is_tested(capsys, global_run, write_json):
    base = with_repetitions(global_run, CASE, [100, 101, 99, 100.5])
    cont = with_repetitions(global_run, CASE, [50, 51, 49, 50.5])
    code, out, _ = run(capsys, write_json(base), write_json(cont))
    assert code == 1
    assert row_of(out, CASE)[-1] == "REGRESSION"
    assert float(row_of(out, CASE)[4]) < 0.05


def test_unknown_metric_is_refused_with_the_metrics_present(capsys, global_run, write_json):
    code, out, err = run(capsys, write_json(global_run), write_json(global_run), "--metric", "bytes_per_secnd")
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--metric bytes_per_secnd: not in these files; they have:" in err
    assert "bytes_per_second" in err and "real_time" in err


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["benchmarks"].append(7), "benchmarks["),
        (lambda d: d["benchmarks"].append({"no_name": 1}), "is not a benchmark"),
        (lambda d: d["benchmarks"][0].update(bytes_per_second="fast"), "is not a number"),
        (lambda d: d["benchmarks"][0].update(bytes_per_second=None), "is not a number"),
        (lambda d: d["benchmarks"][0].update(real_time=[1]), "is not a number"),
        (lambda d: d["benchmarks"][0].update(time_unit="fortnight"), "unknown time_unit"),
    ],
)
def test_malformed_content_is_one_line_and_exit_2(capsys, global_run, write_json, mutate, message):
    bad = copy.deepcopy(global_run)
    mutate(bad)
    for metric in ("bytes_per_second", "real_time"):
        code, out, err = run(capsys, write_json(global_run), write_json(bad), "--metric", metric)
        if code == 0:  # the damage is in a field this metric does not read
            continue
        assert code == 2, err
        assert out == ""
        assert len(err.strip().splitlines()) == 1 and message in err, err
        break
    else:
        pytest.fail(f"no metric noticed: {message}")


def test_a_directory_and_bad_flags_are_one_line(capsys, tmp_path, global_run, write_json):
    code, _, err = run(capsys, write_json(global_run), tmp_path)
    assert code == 2 and "is a directory" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as exit_info:
        compare.main([write_json(global_run), write_json(global_run), "--threshold", "lots"])
    assert exit_info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_skipped_in_contender_fails_unless_ignored(capsys, global_run, write_json):
    skipped = copy.deepcopy(global_run)
    entry = next(b for b in skipped["benchmarks"] if b["name"] == CASE)
    for key in [k for k in entry if k not in ("name", "run_name", "run_type", "family_index")]:
        del entry[key]
    entry.update(skipped=True, skip_message="does not fit: needs 2 GiB")
    code, out, _ = run(capsys, write_json(global_run), write_json(skipped))
    assert code == 1
    assert verdict(out, CASE) == "SKIPPED in contender: does not fit: needs 2 GiB"
    code, _, _ = run(capsys, write_json(global_run), write_json(skipped), "--ignore-missing")
    assert code == 0
    # Google Benchmark 1.7 has no skip: membench writes it as an error whose message starts "skipped: ".
    old_style = copy.deepcopy(global_run)
    entry = next(b for b in old_style["benchmarks"] if b["name"] == CASE)
    entry.update(error_occurred=True, error_message="skipped: the bulk kernel was compiled for sm_75")
    code, out, _ = run(capsys, write_json(global_run), write_json(old_style))
    assert code == 1
    assert verdict(out, CASE) == "SKIPPED in contender: the bulk kernel was compiled for sm_75"


def test_per_launch_time_from_old_batched_files():
    # Recordings from before one iteration was one launch: an iteration was a batch of
    # launches_per_iteration launches, its real_time and bytes those of the whole batch.
    entry = {
        "name": "global/coalesced/n:1024/manual_time",
        "run_name": "global/coalesced/n:1024/manual_time",
        "run_type": "iteration",
        "real_time": 5.0,
        "time_unit": "ms",
        "bytes": 8e6,
        "launches_per_iteration": 1000,
        "bytes_per_second": 1.6e12,
    }
    case = compare.mr.cases({"context": {"membench_version": "0.1.0"}, "benchmarks": [entry]})[
        "global/coalesced/n:1024/manual_time"
    ]
    assert case.values("real_time") == [5000.0]  # 5 ms a batch = 5,000,000 ns, over 1000 launches = 5000 ns
    assert case.values("bytes") == [8000.0]
    assert case.values("bytes_per_second") == [1.6e12]  # a rate is not per iteration
    entry["time_unit"] = "us"
    del entry["launches_per_iteration"]
    assert compare.mr.cases({"context": {"membench_version": "0.1.0"}, "benchmarks": [entry]})[entry["name"]].values(
        "real_time"
    ) == [5000.0]


@pytest.mark.parametrize("script, package", [("compare.py", "scipy"), ("plot.py", "matplotlib")])
def test_a_missing_package_is_one_line_and_exit_2(tmp_path, script, package):
    # A package that cannot be imported, ahead of the real one on the path.
    fake = tmp_path / package
    fake.mkdir()
    (fake / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{package}'\", name='{package}')\n")
    scripts = Path(compare.__file__).parents[1]
    done = subprocess.run(
        [sys.executable, str(scripts / script), "a.json", "b.json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{scripts}"},
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == (
        f"{script}: needs the Python package '{package}': " "python -m pip install -r scripts/requirements.txt"
    )


# ---- a bad day's numbers are no evidence ------------------------------------------


def marked(doc: dict, name_prefix: str, **counters) -> dict:
    """A copy of `doc` whose case starting with `name_prefix` carries these counters."""
    out = copy.deepcopy(doc)
    for b in out["benchmarks"]:
        if b["name"].startswith(name_prefix):
            b.update(counters)
    return out


@pytest.mark.parametrize(
    "side, counters, reason",
    [
        ("baseline", {"contended": 1, "other_processes": 1}, "baseline contended (1 other process on the GPU)"),
        ("baseline", {"contended": 1, "other_processes": 2}, "baseline contended (2 other processes on the GPU)"),
        (
            "contender",
            {"clock_event": 1, "power_capped": 1, "clock_event_reasons": 0x4 | 0x8 | 0x1},
            "contender clock event (hw_slowdown)",
        ),
        (
            "contender",
            {"clock_event": 0, "power_capped": 1, "clock_event_reasons": 0x4, "throttled_batches": 2},
            "contender throttled (2 batches below the clock threshold)",
        ),
        ("contender", {"clock_event": 1, "clock_event_reasons": 0x40}, "contender clock event (hw_thermal_slowdown)"),
        ("baseline", {"throttled_batches": 3}, "baseline throttled (3 batches below the clock threshold)"),
        ("contender", {"noise_pct": 5.0}, "contender noise 5% >= the 5% threshold"),
        ("baseline", {"noise_pct": 49.0}, "baseline noise 49% >= the 5% threshold"),
        ("contender", {"noise_pct": -1}, "contender noise unknown (fewer than two batches)"),
    ],
)
def test_an_untrusted_side_is_named_and_fails_the_gate(capsys, global_run, write_json, side, counters, reason):
    bad = marked(global_run, CASE, **counters)
    files = (
        (write_json(bad), write_json(global_run)) if side == "baseline" else (write_json(global_run), write_json(bad))
    )
    code, out, _ = run(capsys, *files)
    assert code == 1
    assert verdict(out, CASE) == f"UNTRUSTED: {reason}"
    assert "Untrusted: 1 case(s) are no evidence either way" in out
    # Every other case of the file is judged as before.
    assert all(verdict(out, name) == "same" for name in compare.mr.cases(global_run) if name != CASE)
    assert run(capsys, *files, "--allow-untrusted")[0] == 0


def test_a_contended_baseline_cannot_hide_a_regression(capsys, global_run, write_json):
    # Recorded while another job time-sliced the GPU: half speed. Against it, a real 40% regression looks like a gain.
    contended = marked(scaled(global_run, CASE, 0.5), CASE, contended=1, other_processes=1, noise_pct=0.2)
    regressed = scaled(global_run, CASE, 0.6)
    code, out, _ = run(capsys, write_json(contended), write_json(regressed))
    assert code == 1
    assert verdict(out, CASE).startswith("UNTRUSTED: baseline contended")
    assert row_of(out, CASE)[3] == "+20.00"  # the change is shown, but not judged
    assert row_of(out, CASE)[4] == ""  # and no test was made: there is no p-value, not an untestable one


def test_noise_below_the_threshold_is_judged(capsys, global_run, write_json):
    # noisy = 1 (the 0.5% target was missed) at 4.99% noise: a 5% gate can still judge it.
    noisy = marked(global_run, CASE, noise_pct=4.99, noisy=1)
    code, out, _ = run(capsys, write_json(noisy), write_json(noisy), "--threshold", "5")
    assert code == 0
    assert verdict(out, CASE) == "same"
    code, out, _ = run(capsys, write_json(noisy), write_json(noisy), "--threshold", "4.99")
    assert code == 1
    assert (
        verdict(out, CASE)
        == "UNTRUSTED: baseline noise 4.99% >= the 4.99% threshold; contender noise 4.99% >= the 4.99% threshold"
    )


def test_a_noisy_repetition_is_untrusted_only_where_the_test_cannot_judge_the_spread(capsys, global_run, write_json):
    # 3 against 3: the Mann-Whitney test cannot reach 0.05, so the noise of a repetition is a doubt.
    base = with_repetitions(global_run, CASE, [100, 101, 99])
    base["benchmarks"][[b["name"] for b in base["benchmarks"]].index(CASE) + 2]["noise_pct"] = 12.0
    clean = with_repetitions(global_run, CASE, [100, 101, 99])
    code, out, _ = run(capsys, write_json(base), write_json(clean))
    assert code == 1
    assert verdict(out, CASE) == "UNTRUSTED: baseline noise 12% >= the 5% threshold"
    # 5 against 5: the test judges the repetitions' spread, noise and all; a quiet GPU's noisy case passes.
    base = with_repetitions(global_run, CASE, [100, 101, 99, 100, 102])
    base["benchmarks"][[b["name"] for b in base["benchmarks"]].index(CASE) + 2]["noise_pct"] = 12.0
    clean = with_repetitions(global_run, CASE, [100, 101, 99, 100, 102])
    code, out, _ = run(capsys, write_json(base), write_json(clean))
    assert (code, verdict(out, CASE)) == (0, "same")
    # ... and a regression beyond the threshold with separated samples is still one.
    slow = with_repetitions(global_run, CASE, [80, 81, 79, 80, 82])
    code, out, _ = run(capsys, write_json(base), write_json(slow))
    assert (code, verdict(out, CASE)) == (1, "REGRESSION")


def test_skipped_in_both_is_reported_and_passes(capsys, global_run, write_json):
    skipped = copy.deepcopy(global_run)
    entry = next(b for b in skipped["benchmarks"] if b["name"] == CASE)
    entry.update(skipped=True, skip_message="needs a second GPU")
    code, out, _ = run(capsys, write_json(skipped), write_json(skipped))
    assert code == 0
    assert verdict(out, CASE) == "skipped in both: needs a second GPU"


def test_a_metric_one_side_lacks_is_untrusted(capsys, global_run, write_json):
    lacking = copy.deepcopy(global_run)
    del next(b for b in lacking["benchmarks"] if b["name"] == CASE)["bytes_per_second"]
    code, out, err = run(capsys, write_json(global_run), write_json(lacking))
    assert code == 1, err
    assert verdict(out, CASE) == "UNTRUSTED: no 'bytes_per_second' in contender"


def test_a_case_neither_side_measures_by_the_metric_is_not_compared(capsys, write_json):
    # With --metric bytes_per_second a latency case has none on either side: nothing to judge, nothing untrusted.
    latency = load("hierarchy.json")
    chase = "hierarchy/latency/working_set:16384/chase_stride:128/manual_time"
    code, out, _ = run(capsys, write_json(latency), write_json(latency), "--metric", "bytes_per_second")
    assert verdict(out, chase) == "no 'bytes_per_second' (not compared)"
    assert out.splitlines()[0].endswith(": 50 cases: 25 no 'bytes_per_second', 25 same")  # 19 + 6 chases
    # By default it is judged by its own measure, its latency.
    code, out, _ = run(capsys, write_json(latency), write_json(latency))
    assert verdict(out, chase) == "same" and measure_of(out, chase) == "latency_ns"
    # A case with no measure at all is counted in the summary, not passed in silence.
    entry = next(b for b in latency["benchmarks"] if b["name"] == chase)
    del entry["latency_ns"]
    code, out, _ = run(capsys, write_json(latency), write_json(latency))
    assert verdict(out, chase) == "no measure (not compared)"
    assert out.splitlines()[0].endswith(": 50 cases: 1 UNTRUSTED, 1 no measure, 48 same")


REAL_RUN = Path(__file__).resolve().parents[2] / "benchmarks/results/h100/2026-12-05-every-architecture/default.json"


def test_the_readme_gate_fails_a_doubled_dram_latency_in_a_real_run(capsys, write_json):
    # The README's gate, `compare.py baseline.json new.json`, on a default run the GPU wrote: every case counted,
    # the latency cases judged by their latency.
    base = json.loads(REAL_RUN.read_text())
    cont = copy.deepcopy(base)
    chase = "hierarchy/latency/working_set:1073741824/"
    doubled = [b for b in cont["benchmarks"] if b["name"].startswith(chase)]
    assert doubled
    for b in doubled:
        b["latency_ns"] *= 2
    # The run has cases its own marks make untrusted (noise, a clock event): allowed, so only the latency can fail.
    code, out, _ = run(capsys, write_json(base), write_json(cont), "--allow-untrusted")
    assert code == 1
    name = doubled[0]["name"]
    assert verdict(out, name).startswith("REGRESSION") and measure_of(out, name) == "latency_ns"
    first = out.splitlines()[0]
    entries = {b["name"] for b in base["benchmarks"] if b.get("run_type", "iteration") == "iteration"}
    assert f": {len(entries)} cases: " in first and "latency_ns " in first and "bytes_per_second " in first
    assert sum(int(n) for n in re.findall(r"(\d+) [A-Za-z]", first.split(" cases: ")[1])) == len(entries)
    # Judged by bandwidth alone, as before, the doubled latency is not compared and passes.
    code, out, _ = run(capsys, write_json(base), write_json(cont), "--metric", "bytes_per_second", "--allow-untrusted")
    assert code == 0 and verdict(out, name) == "no 'bytes_per_second' (not compared)"


def test_a_file_without_the_metric_or_without_cases_exits_2(capsys, global_run, write_json):
    bare = copy.deepcopy(global_run)
    for b in bare["benchmarks"]:
        b.pop("bytes_per_second", None)
    path = write_json(bare)
    code, out, err = run(capsys, write_json(global_run), path, "--metric", "bytes_per_second")
    assert code == 2 and out == ""
    assert err.startswith(f"compare.py: {path}: no case carries 'bytes_per_second' (it has: ")
    empty = write_json({"context": {"membench_version": "0.1.0"}, "benchmarks": []})
    code, out, err = run(capsys, empty, write_json(global_run))
    assert code == 2 and out == ""
    assert err == f"compare.py: {empty}: no cases (its 'benchmarks' list is empty)\n"


# ---- the shapes real files have -----------------------------------------------------


def test_repetitions_with_aggregates_are_judged_on_the_repetitions(capsys, global_run, write_json):
    base = with_aggregates(with_repetitions(global_run, CASE, [100, 101, 99, 100, 102]))
    cont = with_aggregates(with_repetitions(global_run, CASE, [80, 81, 79, 80, 82]))
    cases = compare.mr.cases(cont)
    assert cases[CASE].values("bytes_per_second") == [80, 81, 79, 80, 82]  # no aggregate among them
    assert not any(name.endswith(("_mean", "_median", "_stddev", "_cv")) for name in cases)
    code, out, _ = run(capsys, write_json(base), write_json(cont))
    assert code == 1
    assert row_of(out, CASE)[1:4] == ["100 B/s", "80 B/s", "-20.00"]  # medians of the repetitions
    assert verdict(out, CASE) == "REGRESSION"
    assert float(row_of(out, CASE)[4]) < 0.05


def test_cases_are_matched_by_run_name(capsys, global_run, write_json):
    # Google Benchmark may name an entry differently from its run (e.g. /repeats:N); run_name is the case.
    renamed = copy.deepcopy(global_run)
    for b in renamed["benchmarks"]:
        b["name"] = b["name"] + "/repeats:1"
    code, out, _ = run(capsys, write_json(global_run), write_json(renamed))
    assert code == 0
    assert verdict(out, CASE) == "same"


@pytest.mark.parametrize(
    "factor, expected", [(0.95, "same"), (0.9499, "REGRESSION"), (1.05, "same"), (1.0501, "improvement")]
)
def test_a_change_of_exactly_the_threshold_is_the_same(capsys, global_run, write_json, factor, expected):
    base = with_repetitions(global_run, CASE, [100.0])
    cont = with_repetitions(global_run, CASE, [100.0 * factor])
    code, out, _ = run(capsys, write_json(base), write_json(cont), "--threshold", "5")
    assert verdict(out, CASE) == expected
    assert code == (1 if expected == "REGRESSION" else 0)


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--threshold", "-1"], "compare.py: --threshold must be >= 0 and --alpha within (0, 1)"),
        (["--threshold", "inf"], "compare.py: --threshold must be >= 0 and --alpha within (0, 1)"),
        (["--threshold", "nan"], "compare.py: --threshold must be >= 0 and --alpha within (0, 1)"),
        (["--alpha", "0"], "compare.py: --threshold must be >= 0 and --alpha within (0, 1)"),
        (["--alpha", "1"], "compare.py: --threshold must be >= 0 and --alpha within (0, 1)"),
    ],
)
def test_bad_threshold_or_alpha_is_one_line_and_exit_2(capsys, global_run, write_json, flags, message):
    code, out, err = run(capsys, write_json(global_run), write_json(global_run), *flags)
    assert code == 2 and out == ""
    assert err == message + "\n"


def test_p_value_decides_above_the_threshold(capsys, global_run, write_json):
    # 12% lower in the median, but the samples interleave: the exact test says noise, and the gate passes.
    base = with_repetitions(global_run, CASE, [100, 80, 120, 95, 105, 90])
    cont = with_repetitions(global_run, CASE, [88, 110, 70, 86, 100, 89])
    code, out, _ = run(capsys, write_json(base), write_json(cont), "--threshold", "5")
    assert verdict(out, CASE) == "noise"
    assert float(row_of(out, CASE)[4]) >= 0.05
    assert code == 0
    # The same samples at alpha 0.5: the difference now counts.
    code, out, _ = run(capsys, write_json(base), write_json(cont), "--threshold", "5", "--alpha", "0.5")
    assert verdict(out, CASE) == "REGRESSION" and code == 1


def test_a_baseline_from_before_the_axis_renaming_still_gates(capsys, write_json):
    today = load("global_layout.json")
    today["benchmarks"] = [b for b in today["benchmarks"] if b["name"].startswith("layout/")]
    today["membench"]["cases"] = [c for c in today["membench"]["cases"] if c["family"] == "layout"]
    old = copy.deepcopy(today)  # as a binary before the catalog and the renaming wrote it
    del old["membench"]
    for b in old["benchmarks"]:
        for key in ("name", "run_name"):
            if key in b and b[key].startswith("layout/"):
                b[key] = b[key].replace("/structs:", "/n:")
    layout = "layout/aos/structs:16777216/fields:4/manual_time"
    code, out, _ = run(capsys, write_json(old), write_json(today))
    assert code == 0
    assert verdict(out, layout) == "same"
    assert "/n:16777216/fields" not in out
    code, out, _ = run(capsys, write_json(old), write_json(scaled(today, layout, 0.8)))
    assert code == 1
    assert verdict(out, layout) == "REGRESSION"


def test_the_whole_report(capsys):
    rows = [
        compare.Row("a/x/n:1", 100.0, 80.0, -20.0, 0.0286, "REGRESSION", True),
        compare.Row("a/x/n:2", 100.0, 101.0, 1.0, None, "same", False),
        compare.Row("a/x/n:3", 100.0, None, None, None, "missing in contender"),
        compare.Row("a/x/n:4", None, 50.0, None, None, "UNTRUSTED: baseline skipped: too big", untrusted=True),
        compare.Row(
            "a/x/n:5",
            100.0,
            90.0,
            -10.0,
            None,
            "UNTRUSTED: contender noise 7% >= the 5% threshold",
            False,
            untrusted=True,
        ),
    ]
    assert (
        compare.render(rows, "bytes_per_second", 0.05)
        == """\
| case | baseline bytes_per_second | contender bytes_per_second | change % | p-value | verdict |
| --- | ---: | ---: | ---: | ---: | --- |
| a/x/n:1 | 100 | 80 | -20.00 | 0.0286 | REGRESSION |
| a/x/n:2 | 100 | 101 | +1.00 | untestable | same (threshold only) |
| a/x/n:3 | 100 |  |  |  | missing in contender |
| a/x/n:4 |  | 50 |  |  | UNTRUSTED: baseline skipped: too big |
| a/x/n:5 | 100 | 90 | -10.00 | untestable | UNTRUSTED: contender noise 7% >= the 5% threshold |

Note: 1 case(s) have too few repetitions for the Mann-Whitney test to reach p < 0.05 (3 vs 3 cannot go below 0.1; \
4 vs 4 can); their verdicts rest on the threshold alone. Use --benchmark_repetitions=5 or more for a significance test.

Untrusted: 2 case(s) are no evidence either way (another process on the GPU, a clock event, throttling, noise at or \
above the threshold, or a failed baseline); measure them again on a quiet GPU, or pass --allow-untrusted."""
    )
    assert compare.render(rows[:1], "real_time", 0.05).count("\n") == 2  # no notes when nothing needs one


@pytest.mark.parametrize(
    "metric, factor, verdict",
    [
        ("real_time", 1.008, "REGRESSION"),  # 0.8% slower: worse for a time
        ("real_time", 0.992, "improvement"),
        ("bytes_per_second", 1.008, "improvement"),
        ("bytes_per_second", 0.992, "REGRESSION"),
    ],
)
def test_a_change_under_one_percent_above_a_small_threshold_has_its_direction(
    capsys, global_run, write_json, metric, factor, verdict
):
    alone = copy.deepcopy(global_run)  # the exit status is this case's alone
    alone["benchmarks"] = [b for b in alone["benchmarks"] if b["name"] == CASE]
    code, out, _ = run(
        capsys,
        write_json(alone),
        write_json(scaled(alone, CASE, factor, metric)),
        "--metric",
        metric,
        "--threshold",
        "0.5",
    )
    assert verdict_of_case(out) == verdict
    assert code == (1 if verdict == "REGRESSION" else 0)


def verdict_of_case(out: str) -> str:
    return verdict(out, CASE)


def test_two_against_two_is_tested_where_alpha_allows():
    # The smallest p of 2 vs 2 is 2 / C(4, 2) = 1/3.
    row = compare.judge([10.0, 11.0], [5.0, 6.0], "higher", 5, 0.5)
    assert row.tested and row.p_value == pytest.approx(1 / 3) and row.verdict == "REGRESSION"
    assert not compare.judge([10.0, 11.0], [5.0, 6.0], "higher", 5, 0.3).tested


def test_three_against_three_is_untested_at_alpha_exactly_its_smallest_p():
    # 2 / C(6, 3) = 0.1: the test cannot reach p < 0.1.
    assert compare.smallest_p(3, 3) == 0.1
    row = compare.judge([10.0, 10.1, 10.2], [5.0, 5.1, 5.2], "higher", 5, 0.1)
    assert (row.tested, row.p_value, row.verdict) == (False, None, "REGRESSION")
    assert compare.judge([10.0, 10.1, 10.2], [5.0, 5.1, 5.2], "higher", 5, 0.11).tested


def test_a_p_value_of_exactly_alpha_is_noise():
    from scipy.stats import mannwhitneyu

    base, cont = [10.0, 10.1, 10.2, 10.3], [9.0, 9.1, 10.15, 10.25]
    p = float(mannwhitneyu(base, cont, alternative="two-sided").pvalue)
    assert compare.judge(base, cont, "higher", 1, p).verdict == "noise"
    assert compare.judge(base, cont, "higher", 1, p * 0.9999).verdict == "noise"
    assert compare.judge(base, cont, "higher", 1, p * 1.0001).verdict == "REGRESSION"


def test_a_threshold_of_zero_or_under_one_is_accepted(capsys, global_run, write_json):
    # Accepted, not refused; the threshold is also the noise at which a value is no evidence, so each case is
    # trusted exactly where its recorded noise is under it.
    for threshold in (0.0, 0.5):
        code, out, err = run(capsys, write_json(global_run), write_json(global_run), "--threshold", threshold)
        assert err == ""
        noisy = {b["name"] for b in global_run["benchmarks"] if b["noise_pct"] >= threshold}
        assert code == (1 if noisy else 0)
        for b in global_run["benchmarks"]:
            shown = verdict(out, b["name"])
            if b["name"] in noisy:
                assert shown.startswith(f"UNTRUSTED: baseline noise {b['noise_pct']:.3g}% >= the {threshold:g}% ")
            else:
                assert shown == "same"
    assert verdict(out, CASE) == "same"  # at 0.5, the case the other tests change


def test_the_reasons_a_case_is_untrusted_are_named_exactly(capsys, global_run, write_json):
    skipped = copy.deepcopy(global_run)
    for b in skipped["benchmarks"]:
        if b["name"] == CASE:
            b.update(skipped=True, skip_message="does not fit")
    code, out, _ = run(capsys, write_json(skipped), write_json(global_run))
    assert code == 1
    assert row_of(out, CASE)[-1] == "UNTRUSTED: baseline skipped: does not fit"
    lacking = copy.deepcopy(global_run)
    for b in lacking["benchmarks"]:
        if b["name"] == CASE:
            del b["bytes_per_second"]
    code, out, _ = run(capsys, write_json(lacking), write_json(global_run))
    assert row_of(out, CASE)[-1] == "UNTRUSTED: no 'bytes_per_second' in baseline"
    code, out, _ = run(capsys, write_json(global_run), write_json(lacking))
    assert row_of(out, CASE)[-1] == "UNTRUSTED: no 'bytes_per_second' in contender"


# ---- direction and noise, from the file ----------------------------------------------

CHASE = "hierarchy/latency/working_set:1073741824/chase_stride:128/manual_time"


def chase_doc(latency_ns: float, repetitions: int = 1, **counters) -> dict:
    """A latency case as membench writes it now, with the catalog that says lower is better; its
    repetitions spread by 0.1% each."""
    entries = [
        {
            "name": CHASE,
            "run_name": CHASE,
            "run_type": "iteration",
            "real_time": 500.0,
            "time_unit": "us",
            "latency_ns": latency_ns * (1 + 0.001 * k),
            "noise_pct": 0.5,
            "repetition_index": k,
            **counters,
        }
        for k in range(repetitions)
    ]
    return {
        "context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"},
        "benchmarks": entries,
        "membench": {
            "schema_version": 1,
            "counters": {
                "latency_ns": {"unit": "ns", "better": "lower", "kind": "measured"},
                "noise_pct": {"unit": "%", "better": "lower", "kind": "health"},
                "host_paced": {"unit": "flag", "better": "neither", "kind": "configuration"},
                "chain_nodes": {"unit": "nodes", "better": "neither", "kind": "configuration"},
            },
        },
    }


@pytest.mark.parametrize("factor, code, expected", [(2.0, 1, "REGRESSION"), (0.5, 0, "improvement")])
def test_a_doubled_latency_is_a_regression_and_a_halved_one_an_improvement(capsys, write_json, factor, code, expected):
    got, out, _ = run(
        capsys, write_json(chase_doc(600.0)), write_json(chase_doc(600.0 * factor)), "--metric", "latency_ns"
    )
    assert (got, verdict(out, CHASE)) == (code, expected)


def test_an_old_file_without_a_catalog_still_knows_latency_is_lower_is_better(capsys, write_json):
    old = chase_doc(600.0)
    del old["membench"]
    slower = chase_doc(1200.0)
    del slower["membench"]
    got, out, _ = run(capsys, write_json(old), write_json(slower), "--metric", "latency_ns")
    assert (got, verdict(out, CHASE)) == (1, "REGRESSION")


def test_a_metric_without_a_direction_is_refused(capsys, write_json):
    doc = chase_doc(600.0, chain_nodes=2**23)
    got, out, err = run(capsys, write_json(doc), write_json(doc), "--metric", "chain_nodes")
    assert (got, out) == (2, "")
    assert err == (
        "compare.py: --metric chain_nodes: a configuration counter, with no better direction; a gate "
        "needs a measurement such as bytes_per_second, latency_ns or updates_per_second\n"
    )


def test_a_host_paced_case_is_judged_against_its_own_noise_and_a_shared_gpu_still_fails(capsys, write_json):
    base = chase_doc(600.0, 5, host_paced=1, noise_pct=9.0)
    # 20% apart over 5 repetitions, under three times its 9% noise: the host's noise, not a change.
    got, out, _ = run(
        capsys, write_json(base), write_json(chase_doc(720.0, 5, host_paced=1, noise_pct=8.0)), "--metric", "latency_ns"
    )
    assert (got, verdict(out, CHASE)) == (0, "same (host-paced: 27% needed)")
    # Past three times the noise it is a regression.
    got, out, _ = run(
        capsys, write_json(base), write_json(chase_doc(900.0, 5, host_paced=1, noise_pct=8.0)), "--metric", "latency_ns"
    )
    assert (got, verdict(out, CHASE)) == (1, "REGRESSION (host-paced: 27% needed)")
    # The same noise on a case the GPU paces, where the repetitions are too few to judge it, is no evidence.
    got, out, _ = run(
        capsys, write_json(chase_doc(600.0, noise_pct=9.0)), write_json(chase_doc(600.0)), "--metric", "latency_ns"
    )
    assert got == 1 and verdict(out, CHASE).startswith("UNTRUSTED: baseline noise 9%")
    # Another process on the GPU is a doubt for a host-paced case too.
    got, out, _ = run(
        capsys,
        write_json(base),
        write_json(chase_doc(600.0, 5, host_paced=1, contended=1, other_processes=1)),
        "--metric",
        "latency_ns",
    )
    assert got == 1 and verdict(out, CHASE).startswith("UNTRUSTED: contender contended")


def as_schema(doc: dict, version: int) -> dict:
    """A copy of an (upgraded) fixture as a file written in an older schema says itself: read again, it is upgraded
    from that version."""
    out = copy.deepcopy(doc)
    out["membench"] = {k: v for k, v in out["membench"].items() if k != "upgraded_from"}
    out["membench"]["schema_version"] = version
    return out


def test_the_power_limiter_alone_is_the_cases_own_draw_and_is_judged(capsys, global_run, write_json):
    # A file of schema 3, whose clock_event counted the board's power cap with the slowdowns.
    global_run = as_schema(global_run, 3)
    capped = marked(global_run, CASE, clock_event=1, clock_event_reasons=0x4, throttled_batches=0)
    code, out, _ = run(capsys, write_json(global_run), write_json(capped))
    assert (code, verdict(out, CASE)) == (0, "same")
    slower = scaled(marked(global_run, CASE, clock_event=1, clock_event_reasons=0x4), CASE, 0.8)
    code, out, _ = run(capsys, write_json(global_run), write_json(slower))
    assert (code, verdict(out, CASE)) == (1, "REGRESSION")


def test_a_host_paced_case_is_doubted_for_its_noise_and_judged_against_it_when_quiet(capsys, write_json):
    # One trust rule everywhere: a value as noisy as the threshold is no evidence, host-paced or not.
    base, cont = chase_doc(600.0, host_paced=1, noise_pct=9.0), chase_doc(900.0, host_paced=1, noise_pct=2.0)
    got, out, _ = run(capsys, write_json(base), write_json(cont), "--metric", "latency_ns")
    assert got == 1
    assert row_of(out, CHASE)[-1] == "UNTRUSTED: baseline host-paced, noise 9% >= the 5% threshold"
    # Quiet on both sides, one repetition each: judged, its gate three times its noise (6%), not the 5%.
    base, cont = chase_doc(600.0, host_paced=1, noise_pct=2.0), chase_doc(633.0, host_paced=1, noise_pct=1.0)
    got, out, _ = run(capsys, write_json(base), write_json(cont), "--metric", "latency_ns")
    assert got == 0
    assert row_of(out, CHASE)[-1] == "same (host-paced: 6% needed) (threshold only)"
    cont = chase_doc(640.0, host_paced=1, noise_pct=1.0)
    got, out, _ = run(capsys, write_json(base), write_json(cont), "--metric", "latency_ns")
    assert got == 1
    assert row_of(out, CHASE)[-1].startswith("REGRESSION (host-paced: 6% needed)")


def test_the_table_reads_in_units_and_the_summary_counts_every_verdict(capsys, global_run, write_json):
    slower = scaled(global_run, CASE, 0.8)
    code, out, _ = run(capsys, write_json(global_run), write_json(slower))
    assert code == 1
    first = out.split("\n")[0]
    cases = len(mr.cases(global_run))
    assert first.endswith(f": {cases} cases: 1 REGRESSION, {cases - 1} same")
    assert row_of(out, CASE)[1].endswith(" TB/s") or row_of(out, CASE)[1].endswith(" GB/s")
    code, raw, _ = run(capsys, write_json(global_run), write_json(slower), "--raw")
    assert "e+" in row_of(raw, CASE)[1]
    code, changed, _ = run(capsys, write_json(global_run), write_json(slower), "--changed-only")
    rows = [
        line
        for line in changed.splitlines()
        if line.startswith("| ") and not line.startswith("| case") and "---" not in line
    ]
    assert code == 1 and len(rows) == 1 and rows[0].startswith(f"| {CASE} |")
    assert changed.split("\n")[0].split(": ", 1)[1] == first.split(": ", 1)[1]  # the summary still counts every case


def test_a_time_reads_in_its_own_unit(capsys, write_json):
    base, cont = chase_doc(600.0), chase_doc(600.0)
    for d in (base, cont):
        d["membench"]["counters"]["real_time"] = {"unit": "us", "better": "lower", "kind": "measured"}
        for b in d["benchmarks"]:
            b["real_time"], b["time_unit"] = 133.1, "us"
    code, out, _ = run(capsys, write_json(base), write_json(cont), "--metric", "real_time")
    assert row_of(out, CHASE)[1:3] == ["133 us", "133 us"]


def test_a_baseline_that_ran_after_its_contender_is_warned_of(capsys, global_run, write_json):
    older, newer = copy.deepcopy(global_run), copy.deepcopy(global_run)
    older["context"]["date"] = "2026-12-01T10:00:00+00:00"
    newer["context"]["date"] = "2026-12-04T10:00:00+00:00"
    assert run(capsys, write_json(older), write_json(newer))[2] == ""
    _, _, err = run(capsys, write_json(newer), write_json(older))
    assert err == (
        "compare.py: warning: the baseline ran at 2026-12-04T10:00:00+00:00, after the contender "
        "(2026-12-01T10:00:00+00:00); the baseline comes first\n"
    )


def test_the_summary_puts_the_worst_verdicts_first_and_the_rest_by_name():
    rows = [
        compare.Row(f"c{k}", 1.0, 1.0, 0.0, None, verdict)
        for k, verdict in enumerate(
            [
                "same",
                "faster (threshold only)",
                "faster",
                "UNTRUSTED: noisy",
                "missing in contender",
                "SKIPPED in contender",
            ]
            + ["REGRESSION", "ERROR in contender: wrong"]
        )
    ]
    assert compare.summary(rows, "a.json", "b.json", "bytes_per_second") == (
        "baseline a.json, contender b.json, bytes_per_second: 8 cases: 1 ERROR in contender, 1 REGRESSION, "
        "1 missing in contender, 1 SKIPPED in contender, 1 UNTRUSTED, 2 faster, 1 same"
    )
    two_faster = [compare.Row("a", 1.0, 1.0, 0.0, None, v) for v in ("same", "faster", "faster")]
    assert compare.summary(two_faster, "a", "b", "m").endswith("3 cases: 2 faster, 1 same")  # by name, not count


def test_a_counter_an_older_file_does_not_declare_takes_its_direction_from_the_newer(capsys):
    # The 2026-12-05 run's catalog predates ops_per_second; its direction comes from the file that declares it,
    # not "the files disagree" and exit 2.
    old = REAL_RUN
    new = REAL_RUN.parents[1] / "2026-12-06-reference-runs" / "ceilings.json"
    code, out, err = run(capsys, old, new)
    assert code == 1 and "disagree" not in err  # cases missing in the contender fail the gate, as they should
    assert "ops_per_second 98)" in out.splitlines()[0]
