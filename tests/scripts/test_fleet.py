"""fleet.py on crafted fleets: a slow GPU, a failed and a missing case, two models, a multi-device file."""
from __future__ import annotations

import json

import fleet
import pytest

CASES = ("stream/triad/type:double/n:134217728/block:256/manual_time",
         "hierarchy/bandwidth/working_set:16384/manual_time")


def gpu_doc(host: str, ordinal: int, bandwidths: dict[str, float], model: str = "NVIDIA H200",
            uuid: str | None = None, error: str | None = None) -> dict:
    context = {"host_name": host, "gpu_name": model, "gpu_ordinal": str(ordinal),
               "gpu_uuid": uuid or f"GPU-{host}-{ordinal}"}
    benchmarks = []
    for name, bw in bandwidths.items():
        entry = {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1e12 / bw, "time_unit": "us",
                 "bytes_per_second": bw}
        if error and name == CASES[0]:
            entry.update(error_occurred=True, error_message=error)
        benchmarks.append(entry)
    return {"context": context, "benchmarks": benchmarks}


def fleet_of(write_json, values: list[float], **kwargs) -> list[str]:
    return [write_json(gpu_doc(f"node{i // 2}", i % 2, {CASES[0]: v, CASES[1]: 2.8e13}, **kwargs))
            for i, v in enumerate(values)]


def test_a_fleet_within_the_threshold_exits_0(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12, 4.38e12, 4.35e12])
    assert fleet.main(files) == 0
    out = capsys.readouterr().out
    assert "4 of 4 GPUs within 10% of their model's median (bytes_per_second) on 2 cases" in out
    assert "| node0 device 1 (GPU-node0-1) | 4.36e+12 | 0.999 | ok |" in out


def test_a_slow_gpu_is_flagged_with_host_ordinal_and_uuid(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12, 3.50e12, 4.35e12])
    assert fleet.main(files) == 1
    out = capsys.readouterr().out
    assert "| node1 device 0 (GPU-node1-0) | 3.5e+12 | 0.804 | FLAGGED |" in out
    assert "FLAGGED: node1 device 0 (GPU-node1-0), NVIDIA H200" in out
    assert fleet.main(files + ["--threshold", "25"]) == 0


def test_time_metrics_flag_the_slow_side(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12, 3.50e12, 4.35e12])
    assert fleet.main(files + ["--metric", "real_time"]) == 1  # a longer time is worse
    assert "| node1 device 0 (GPU-node1-0) |" in capsys.readouterr().out


def test_a_failed_case_flags_its_gpu_and_a_missing_one_is_a_warning(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12, 4.35e12])
    files.append(write_json(gpu_doc("node1", 1, {CASES[0]: 4.3e12, CASES[1]: 2.8e13}, error="verification failed")))
    files.append(write_json(gpu_doc("node2", 0, {CASES[1]: 2.8e13})))  # ran only the second case
    assert fleet.main(files) == 1
    out = capsys.readouterr().out
    assert "FAILED: verification failed" in out
    assert "missing on 1 NVIDIA H200 GPU(s) (node2 device 0 (GPU-node2-0))" in out


def test_two_models_are_never_compared(write_json, capsys):
    h200 = fleet_of(write_json, [4.37e12, 4.36e12])
    a100 = [write_json(gpu_doc(f"old{i}", 0, {CASES[0]: 1.7e12, CASES[1]: 1.9e13}, model="NVIDIA A100"))
            for i in range(2)]
    assert fleet.main(h200 + a100) == 0  # the A100s are far below the H200s, but not compared with them
    out = capsys.readouterr().out
    assert "warning: 2 GPU models in this fleet (NVIDIA A100, NVIDIA H200)" in out


def test_a_file_with_several_devices_splits_them(write_json, capsys):
    devices = [{"ordinal": d, "name": "NVIDIA H200", "uuid": f"GPU-{d}", "pci_bus_id": f"0000:{d}:00.0"} for d in (0, 1)]
    doc = {"context": {"host_name": "n0", "gpu_name": "NVIDIA H200", "gpu_ordinal": "0", "devices": json.dumps(devices)},
           "benchmarks": []}
    for d, bw in ((0, 4.4e12), (1, 3.0e12), (0, 2.8e13), (1, 2.8e13)):
        name = (CASES[0] if bw < 1e13 else CASES[1]).replace("/type:", f"/device:{d}/type:").replace(
            "/working_set:", f"/device:{d}/working_set:")
        doc["benchmarks"].append({"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0,
                                  "time_unit": "us", "bytes_per_second": bw})
    third = write_json(gpu_doc("n1", 0, {CASES[0]: 4.4e12, CASES[1]: 2.8e13}))
    assert fleet.main([write_json(doc), third]) == 1
    assert "FLAGGED: n0 device 1 (GPU-1)" in capsys.readouterr().out


@pytest.mark.parametrize("content", ["not json", json.dumps({"benchmarks": []}), json.dumps([1, 2])])
def test_unreadable_input_is_one_line_and_exit_2(tmp_path, capsys, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert fleet.main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fleet.py: ") and err.count("\n") == 1


def test_a_metric_no_case_has_exits_2(write_json, capsys):
    assert fleet.main(fleet_of(write_json, [4.37e12]) + ["--metric", "latency_ns"]) == 2
    assert "no case in these files carries 'latency_ns'" in capsys.readouterr().err
