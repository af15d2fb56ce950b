"""compare.py: verdicts on constructed regressions, improvements, noise, and bad input."""
from __future__ import annotations

import copy
import json

import compare
import pytest
from conftest import load, scaled, with_repetitions

CASE = "global/vectorized/n:268435456/vec:4/ilp:1/manual_time"


def run(capsys, *argv):
    code = compare.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def verdict(out: str, case: str) -> str:
    row = next(line for line in out.splitlines() if line.startswith(f"| {case} |"))
    return row.split("|")[-2].strip()


def test_identical_files_pass(capsys, h200_global, write_json):
    code, out, _ = run(capsys, write_json(h200_global), write_json(h200_global))
    assert code == 0
    assert verdict(out, CASE) == "same"
    assert out.startswith("| case | baseline bytes_per_second |")


def test_a_20_percent_drop_is_a_regression(capsys, h200_global, write_json):
    slower = scaled(h200_global, CASE, 0.8)
    code, out, _ = run(capsys, write_json(h200_global), write_json(slower))
    assert code == 1
    assert verdict(out, CASE) == "REGRESSION"
    assert "-20.00" in next(line for line in out.splitlines() if CASE in line)


def test_a_drop_within_the_threshold_passes(capsys, h200_global, write_json):
    code, out, _ = run(capsys, write_json(h200_global), write_json(scaled(h200_global, CASE, 0.97)), "--threshold", 5)
    assert code == 0
    assert verdict(out, CASE) == "same"


def test_an_improvement_passes(capsys, h200_global, write_json):
    code, out, _ = run(capsys, write_json(h200_global), write_json(scaled(h200_global, CASE, 1.3)))
    assert code == 0
    assert verdict(out, CASE) == "improvement"


def test_real_time_is_lower_is_better(capsys, h200_global, write_json):
    slower = scaled(h200_global, CASE, 1.25, metric="real_time")
    code, out, _ = run(capsys, write_json(h200_global), write_json(slower), "--metric", "real_time")
    assert code == 1
    assert verdict(out, CASE) == "REGRESSION"


def test_significant_regression_over_repetitions(capsys, h200_global, write_json):
    base = with_repetitions(h200_global, CASE, [100, 101, 99, 100, 102, 98])
    cont = with_repetitions(h200_global, CASE, [80, 81, 79, 80, 82, 78])
    code, out, _ = run(capsys, write_json(base), write_json(cont))
    assert code == 1
    assert verdict(out, CASE) == "REGRESSION"
    p_value = float(next(line for line in out.splitlines() if CASE in line).split("|")[5])
    assert p_value < 0.01


def test_noisy_difference_is_not_a_regression(capsys, h200_global, write_json):
    # Medians differ by 20%, but the samples overlap: Mann-Whitney cannot call it.
    base = with_repetitions(h200_global, CASE, [100, 60, 140, 90, 125])
    cont = with_repetitions(h200_global, CASE, [80, 130, 55, 95, 70])
    code, out, _ = run(capsys, write_json(base), write_json(cont))
    assert code == 0
    assert verdict(out, CASE) == "noise"


def test_errored_cases_are_reported(capsys, h200_global, write_json):
    # A real recording with a real error: the first draft of global/memcpy
    # expected 2x the input and failed verification on the H200.
    recorded = load("h200_global_layout.json")
    fixed = copy.deepcopy(recorded)
    for b in fixed["benchmarks"]:
        b.pop("error_occurred", None)
        b.setdefault("bytes_per_second", 4.2e12)
    code, out, _ = run(capsys, write_json(recorded), write_json(fixed))
    assert code == 0
    assert "| error in baseline: verification failed: out[0] = 21.75, expected 43.5 |" in out
    code, out, _ = run(capsys, write_json(fixed), write_json(recorded))
    assert code == 1
    assert "ERROR in contender: verification failed" in out
    broken = copy.deepcopy(h200_global)
    entry = next(b for b in broken["benchmarks"] if b["name"] == CASE)
    entry.update(error_occurred=True, error_message="verification failed: out[3] = nan, expected 2")
    code, out, _ = run(capsys, write_json(h200_global), write_json(broken))
    assert code == 1
    assert verdict(out, CASE).startswith("ERROR in contender: verification failed")


def test_vanished_cases_are_reported(capsys, h200_global, write_json):
    fewer = copy.deepcopy(h200_global)
    fewer["benchmarks"] = [b for b in fewer["benchmarks"] if b["name"] != CASE]
    code, out, _ = run(capsys, write_json(h200_global), write_json(fewer))
    assert code == 1
    assert verdict(out, CASE) == "missing in contender"
    code, _, _ = run(capsys, write_json(h200_global), write_json(fewer), "--ignore-missing")
    assert code == 0
    code, out, _ = run(capsys, write_json(fewer), write_json(h200_global))
    assert code == 0
    assert verdict(out, CASE) == "new in contender"


def test_different_gpus_warn(capsys, h200_global, write_json):
    other = copy.deepcopy(h200_global)
    other["context"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    code, _, err = run(capsys, write_json(h200_global), write_json(other))
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
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, h200_global, write_json, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    code, out, err = run(capsys, write_json(h200_global), path)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_no_common_cases_exits_2(capsys, h200_global, write_json):
    other = copy.deepcopy(h200_global)
    for b in other["benchmarks"]:
        b["name"] = b["run_name"] = "other/" + b["name"]
    code, _, err = run(capsys, write_json(h200_global), write_json(other))
    assert code == 2
    assert "no case in common" in err
