"""export.py: each format read back by its own parser or checked against its documented shape."""
from __future__ import annotations

import json

import pytest

import export

CASE_BW = "stream/triad/type:float/elements:1024/block:256/manual_time"
CASE_LAT = "hierarchy/latency/working_set:16384/chase_stride:128/manual_time"
CASE_SKIP = "peer/device_to_device_memcpy_read_sm/bytes:64/manual_time"
CASE_FAIL = "global/coalesced/n:1024/manual_time"


def run(name: str, **counters) -> dict:
    return {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "time_unit": "us",
            "iterations": 100, **counters}


def a_run() -> dict:
    """Three repetitions of a bandwidth case (and Google Benchmark's aggregates of them), one of a
    latency case, a skipped case and a failed one."""
    benchmarks = [run(CASE_BW, bytes_per_second=bw, noise_pct=0.2, repetition_index=i, repetitions=3)
                  for i, bw in enumerate((4.0e12, 4.4e12, 4.2e12))]
    benchmarks.append({**run(CASE_BW, bytes_per_second=9e12), "run_type": "aggregate", "aggregate_name": "mean"})
    benchmarks.append(run(CASE_LAT, latency_ns=16.5, latency_cycles=32.7))
    benchmarks.append({**run(CASE_SKIP), "error_occurred": True, "error_message": "skipped: needs two GPUs; 1 visible"})
    benchmarks.append({**run(CASE_FAIL), "error_occurred": True, "error_message": "verification failed: out[3]"})
    return {"context": {"gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-abc", "host_name": 'node"7'},
            "benchmarks": benchmarks}


def exported(write_json, capsys, fmt: str, doc: dict | None = None) -> str:
    assert export.main([write_json(doc or a_run()), "--format", fmt]) == 0
    return capsys.readouterr().out


def test_bmf_has_bencher_s_shape_and_each_measure_its_median_and_range(write_json, capsys):
    out = json.loads(exported(write_json, capsys, "bmf"))
    # Bencher's schema: benchmark -> measure -> {value (required), lower_value, upper_value}, all numbers.
    for measures in out.values():
        assert isinstance(measures, dict) and measures
        for metric in measures.values():
            assert set(metric) <= {"value", "lower_value", "upper_value"} and "value" in metric
            assert all(isinstance(v, float) for v in metric.values())
    assert out == {
        CASE_BW: {"bytes-per-second": {"value": 4.2e12, "lower_value": 4.0e12, "upper_value": 4.4e12}},
        CASE_LAT: {"latency": {"value": 16.5, "lower_value": 16.5, "upper_value": 16.5}},
    }


def test_benchmark_action_bigger_and_smaller_is_better(write_json, capsys):
    bigger = json.loads(exported(write_json, capsys, "benchmark-action"))
    assert bigger == [{"name": CASE_BW, "unit": "GB/s", "value": 4200.0, "range": "± 200"}]
    smaller = json.loads(exported(write_json, capsys, "benchmark-action-latency"))
    assert smaller == [{"name": CASE_LAT, "unit": "ns", "value": 16.5}]  # one repetition: no range


def test_prometheus_text_reads_back_with_prometheus_client(write_json, capsys):
    parser = pytest.importorskip("prometheus_client.parser")
    text = exported(write_json, capsys, "prometheus")
    families = {f.name: f for f in parser.text_string_to_metric_families(text)}
    assert all(f.type == "gauge" for f in families.values())
    ok = {s.labels["case"]: s.value for s in families["membench_case_ok"].samples}
    assert ok == {CASE_BW: 1.0, CASE_LAT: 1.0, CASE_SKIP: 0.0, CASE_FAIL: 0.0}
    (bw,) = families["membench_bytes_per_second"].samples
    assert bw.value == 4.2e12  # the median of the repetitions, not the aggregate
    assert bw.labels == {"case": CASE_BW, "gpu_uuid": "GPU-abc", "gpu_name": "NVIDIA H200", "host": 'node"7'}
    (lat,) = families["membench_latency_ns"].samples
    assert (lat.labels["case"], lat.value) == (CASE_LAT, 16.5)
    assert "membench_iterations" not in families and "membench_real_time" not in families
    assert set(families) == {"membench_case_ok", "membench_bytes_per_second", "membench_noise_pct",
                             "membench_latency_ns", "membench_latency_cycles"}


def test_prometheus_names_each_device_of_a_run_over_several(write_json, capsys):
    parser = pytest.importorskip("prometheus_client.parser")
    doc = {"context": {"host_name": "n1", "devices": json.dumps([
        {"ordinal": 0, "name": "NVIDIA H200", "uuid": "GPU-0", "pci_bus_id": "0000:00:06.0"},
        {"ordinal": 1, "name": "NVIDIA H200", "uuid": "GPU-1", "pci_bus_id": "0000:00:07.0"}])},
        "benchmarks": [run(f"stream/read/device:{k}/type:float/elements:1024/block:256/manual_time",
                           bytes_per_second=4e12 + k) for k in (0, 1)]}
    families = {f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))}
    assert {s.labels["gpu_uuid"]: s.value for s in families["membench_bytes_per_second"].samples} == {
        "GPU-0": 4e12, "GPU-1": 4e12 + 1}


def test_out_writes_the_file_and_bad_input_is_one_line_and_exit_2(tmp_path, write_json, capsys):
    out = tmp_path / "run.prom"
    assert export.main([write_json(a_run()), "--format", "prometheus", "--out", str(out)]) == 0
    assert out.read_text().startswith("# HELP membench_case_ok ")
    assert capsys.readouterr().out == ""
    assert export.main([str(tmp_path / "missing.json"), "--format", "bmf"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("export.py: ") and len(err.splitlines()) == 1
    assert export.main([write_json(a_run()), "--format", "bmf", "--out", str(tmp_path / "no" / "x.json")]) == 2
    assert capsys.readouterr().err == f"export.py: --out {tmp_path / 'no' / 'x.json'}: cannot write the file (No such file or directory)\n"
    with pytest.raises(SystemExit) as e:
        export.main([write_json(a_run()), "--format", "csv"])
    assert e.value.code == 2
    assert "invalid choice: 'csv'" in capsys.readouterr().err


def test_only_membench_s_counters_become_gauges_and_names_and_labels_are_escaped(write_json, capsys):
    parser = pytest.importorskip("prometheus_client.parser")
    doc = a_run()
    doc["context"]["host_name"] = 'rack\\7\n"b"'
    doc["context"].pop("gpu_uuid")
    for b in doc["benchmarks"]:
        b.update(family_index=3, per_family_instance_index=1, threads=1, cpu_time=2.0, **{"odd-key.v2": 5.0})
    families = {f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))}
    assert not {"membench_family_index", "membench_per_family_instance_index", "membench_threads",
                "membench_cpu_time", "membench_repetitions", "membench_repetition_index"} & set(families)
    assert "membench_odd_key_v2" in families
    (bw,) = families["membench_bytes_per_second"].samples
    assert bw.labels["host"] == 'rack\\7\n"b"' and bw.labels["gpu_uuid"] == "unknown-uuid"
    doc["context"].pop("host_name")
    families = {f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))}
    assert families["membench_bytes_per_second"].samples[0].labels["host"] == ""


def test_two_repetitions_have_a_range_and_a_missing_format_is_refused(write_json, capsys):
    doc = a_run()
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b.get("repetition_index") != 2]
    bigger = json.loads(exported(write_json, capsys, "benchmark-action", doc))
    assert bigger == [{"name": CASE_BW, "unit": "GB/s", "value": 4200.0, "range": "± 200"}]
    with pytest.raises(SystemExit) as e:
        export.main([write_json(doc)])
    assert e.value.code == 2 and "--format" in capsys.readouterr().err
