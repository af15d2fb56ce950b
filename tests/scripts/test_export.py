"""export.py: each format read back by its own parser or checked against its documented shape."""

from __future__ import annotations

import json
import os

import pytest

from membench import export

CASE_BW = "stream/triad/type:float/elements:1024/block:256/manual_time"
CASE_LAT = "hierarchy/latency/working_set:16384/chase_stride:128/manual_time"
CASE_SKIP = "peer/device_to_device_memcpy_read_sm/bytes:64/manual_time"  # named before the passes axis
CASE_SKIP_NOW = "peer/device_to_device_memcpy_read_sm/bytes:64/passes:1/peer_step:1/manual_time"  # today's name
CASE_FAIL = "global/coalesced/n:1024/manual_time"


def run(name: str, **counters) -> dict:
    return {
        "name": name,
        "run_name": name,
        "run_type": "iteration",
        "real_time": 1.0,
        "time_unit": "us",
        "iterations": 100,
        **counters,
    }


def a_run() -> dict:
    """Three repetitions of a bandwidth case (and Google Benchmark's aggregates of them), one of a
    latency case, a skipped case and a failed one."""
    benchmarks = [
        run(CASE_BW, bytes_per_second=bw, noise_pct=0.2, repetition_index=i, repetitions=3)
        for i, bw in enumerate((4.0e12, 4.4e12, 4.2e12))
    ]
    benchmarks.append({**run(CASE_BW, bytes_per_second=9e12), "run_type": "aggregate", "aggregate_name": "mean"})
    benchmarks.append(run(CASE_LAT, latency_ns=16.5, latency_cycles=32.7))
    benchmarks.append({**run(CASE_SKIP), "error_occurred": True, "error_message": "skipped: needs two GPUs; 1 visible"})
    benchmarks.append({**run(CASE_FAIL), "error_occurred": True, "error_message": "verification failed: out[3]"})
    return {
        "context": {
            "membench_version": "0.1.0",
            "gpu_name": "NVIDIA H200",
            "gpu_uuid": "GPU-abc",
            "host_name": 'node"7',
        },
        "benchmarks": benchmarks,
    }


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
        CASE_LAT: {
            "latency": {"value": 16.5, "lower_value": 16.5, "upper_value": 16.5},
            "latency-cycles": {"value": 32.7, "lower_value": 32.7, "upper_value": 32.7},
        },
    }


def test_benchmark_action_bigger_and_smaller_is_better(write_json, capsys):
    bigger = json.loads(exported(write_json, capsys, "benchmark-action"))
    assert bigger == [
        {"name": CASE_BW, "unit": "GB/s", "value": 4200.0, "range": "± 200", "extra": "3 repetitions, noise 0.2%"}
    ]
    smaller = json.loads(exported(write_json, capsys, "benchmark-action-latency"))
    assert smaller == [{"name": CASE_LAT, "unit": "ns", "value": 16.5, "extra": "1 repetition"}]  # one: no range


def test_prometheus_text_reads_back_with_prometheus_client(write_json, capsys):
    parser = pytest.importorskip("prometheus_client.parser")
    text = exported(write_json, capsys, "prometheus")
    families = {f.name: f for f in parser.text_string_to_metric_families(text)}
    assert all(f.type == "gauge" for f in families.values())
    ok = {s.labels["case"]: s.value for s in families["membench_case_ok"].samples}
    assert ok == {CASE_BW: 1.0, CASE_LAT: 1.0, CASE_SKIP_NOW: 0.0, CASE_FAIL: 0.0}
    (bw,) = families["membench_bytes_per_second"].samples
    assert bw.value == 4.2e12  # the median of the repetitions, not the aggregate
    assert bw.labels == {
        "case": CASE_BW,
        "family": "stream",
        "variant": "triad",
        "gpu_uuid": "GPU-abc",
        "gpu_name": "NVIDIA H200",
        "host": 'node"7',
    }
    (lat,) = families["membench_latency_seconds"].samples  # base units: seconds, not nanoseconds
    assert lat.labels["case"] == CASE_LAT and lat.value == pytest.approx(16.5e-9)
    (noise,) = families["membench_noise_ratio"].samples
    assert noise.value == pytest.approx(0.002)
    assert "membench_iterations" not in families and "membench_real_time" not in families
    assert set(families) == {
        "membench_case_ok",
        "membench_case_trusted",
        "membench_case_info",
        "membench_bytes_per_second",
        "membench_noise_ratio",
        "membench_latency_seconds",
        "membench_latency_cycles",
        "membench_run_complete",
    }


def test_prometheus_names_each_device_of_a_run_over_several(write_json, capsys):
    parser = pytest.importorskip("prometheus_client.parser")
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "host_name": "n1",
            "devices": json.dumps(
                [
                    {"ordinal": 0, "name": "NVIDIA H200", "uuid": "GPU-0", "pci_bus_id": "0000:00:06.0"},
                    {"ordinal": 1, "name": "NVIDIA H200", "uuid": "GPU-1", "pci_bus_id": "0000:00:07.0"},
                ]
            ),
        },
        "benchmarks": [
            run(f"stream/read/device:{k}/type:float/elements:1024/block:256/manual_time", bytes_per_second=4e12 + k)
            for k in (0, 1)
        ],
    }
    families = {
        f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))
    }
    assert {s.labels["gpu_uuid"]: s.value for s in families["membench_bytes_per_second"].samples} == {
        "GPU-0": 4e12,
        "GPU-1": 4e12 + 1,
    }


def test_out_writes_the_file_and_bad_input_is_one_line_and_exit_2(tmp_path, write_json, capsys):
    out = tmp_path / "run.prom"
    assert export.main([write_json(a_run()), "--format", "prometheus", "--out", str(out)]) == 0
    assert out.read_text().startswith(
        "# HELP membench_case_ok 1 when the case was measured, 0 when it failed or was skipped\n"
    )
    assert capsys.readouterr().out == ""
    assert export.main([str(tmp_path / "missing.json"), "--format", "bmf"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("export.py: ") and len(err.splitlines()) == 1
    assert export.main([write_json(a_run()), "--format", "bmf", "--out", str(tmp_path / "no" / "x.json")]) == 2
    assert (
        capsys.readouterr().err
        == f"export.py: --out {tmp_path / 'no' / 'x.json'}: cannot write the file (No such file or directory)\n"
    )
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
    families = {
        f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))
    }
    assert not {
        "membench_family_index",
        "membench_per_family_instance_index",
        "membench_threads",
        "membench_cpu_time",
        "membench_repetitions",
        "membench_repetition_index",
    } & set(families)
    # A counter this file's catalog does not declare is configuration: a label of the case's info, not a gauge.
    assert "membench_odd_key_v2" not in families
    assert {s.labels.get("odd_key_v2") for s in families["membench_case_info"].samples} == {"5"}
    (bw,) = families["membench_bytes_per_second"].samples
    assert bw.labels["host"] == 'rack\\7\n"b"' and bw.labels["gpu_uuid"] == "unknown-uuid"
    doc["context"].pop("host_name")
    families = {
        f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))
    }
    assert families["membench_bytes_per_second"].samples[0].labels["host"] == ""


def test_two_repetitions_have_a_range_and_a_missing_format_is_refused(write_json, capsys):
    doc = a_run()
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b.get("repetition_index") != 2]
    bigger = json.loads(exported(write_json, capsys, "benchmark-action", doc))
    assert bigger == [
        {"name": CASE_BW, "unit": "GB/s", "value": 4200.0, "range": "± 200", "extra": "2 repetitions, noise 0.2%"}
    ]
    with pytest.raises(SystemExit) as e:
        export.main([write_json(doc)])
    assert e.value.code == 2 and "--format" in capsys.readouterr().err


def atomics_run() -> dict:
    """An atomics case (updates per second, no bandwidth), with the catalog membench writes."""
    name = "atomics/add/word:u32/space:global/shared_by:warp/updates:16/manual_time"
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "gpu_name": "NVIDIA H200",
            "gpu_uuid": "GPU-abc",
            "host_name": "n1",
            "date": "2026-12-02T01:00:00+00:00",
        },
        "benchmarks": [
            run(
                name,
                updates=2.0e9,
                updates_per_second=u,
                model_updates_per_second=9e11,
                noise_pct=0.3,
                grid=1056,
                block=256,
                clock_event_reasons=0,
                repetition_index=i,
                repetitions=3,
            )
            for i, u in enumerate((5.0e11, 5.2e11, 5.1e11))
        ],
        "membench": {
            "schema_version": 1,
            "counters": {
                "updates": {"unit": "updates", "better": "neither", "kind": "configuration"},
                "updates_per_second": {"unit": "updates/s", "better": "higher", "kind": "measured"},
                "model_updates_per_second": {"unit": "updates/s", "better": "neither", "kind": "model"},
                "noise_pct": {"unit": "%", "better": "lower", "kind": "health"},
                "grid": {"unit": "blocks", "better": "neither", "kind": "configuration"},
                "block": {"unit": "threads", "better": "neither", "kind": "configuration"},
                "clock_event_reasons": {"unit": "bitmask", "better": "neither", "kind": "health"},
            },
        },
    }
    return doc


def test_every_measured_rate_is_exported_atomics_included(write_json, capsys):
    name = atomics_run()["benchmarks"][0]["name"]
    assert json.loads(exported(write_json, capsys, "bmf", atomics_run())) == {
        name: {"updates-per-second": {"value": 5.1e11, "lower_value": 5.0e11, "upper_value": 5.2e11}}
    }
    assert json.loads(exported(write_json, capsys, "benchmark-action", atomics_run())) == [
        {"name": name, "unit": "Gupdates/s", "value": 510.0, "range": "± 10", "extra": "3 repetitions, noise 0.3%"}
    ]
    parser = pytest.importorskip("prometheus_client.parser")
    families = {
        f.name: f
        for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", atomics_run()))
    }
    assert families["membench_updates_per_second"].samples[0].value == 5.1e11
    assert "membench_model_updates_per_second" not in families  # a prediction is not a measurement
    (info,) = families["membench_case_info"].samples  # configuration is labels, not gauges
    assert (info.labels["grid"], info.labels["block"], info.labels["clock_event_reasons"]) == ("1056", "256", "0")
    assert "membench_grid" not in families and "membench_block" not in families
    (stamp,) = families["membench_run_timestamp_seconds"].samples
    assert stamp.value == 1796173200.0  # 2026-12-02T01:00:00Z


def test_untrusted_cases_are_left_out_with_a_count_and_an_empty_export_is_an_error(write_json, capsys):
    doc = a_run()
    for b in doc["benchmarks"]:
        if b["name"] == CASE_BW:
            b.update(contended=1, other_processes=1)
    assert json.loads(exported(write_json, capsys, "bmf", doc)) == {
        CASE_LAT: {
            "latency": {"value": 16.5, "lower_value": 16.5, "upper_value": 16.5},
            "latency-cycles": {"value": 32.7, "lower_value": 32.7, "upper_value": 32.7},
        }
    }
    path = write_json(doc)
    assert export.main([path, "--format", "benchmark-action"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"export.py: {path}: nothing to export as benchmark-action: no trusted case has a value "
        "(1 measured case(s) are untrusted)\n"
    )
    assert export.main([path, "--format", "benchmark-action-latency"]) == 0
    assert capsys.readouterr().err == (
        "export.py: 1 case(s) left out as untrusted (another process on the GPU, a "
        "clock event, throttling, noise at or above 5% or a killed run)\n"
    )
    parser = pytest.importorskip("prometheus_client.parser")
    assert export.main([path, "--format", "prometheus"]) == 0
    families = {f.name: f for f in parser.text_string_to_metric_families(capsys.readouterr().out)}
    assert {s.labels["case"]: s.value for s in families["membench_case_trusted"].samples}[CASE_BW] == 0.0
    assert "membench_bytes_per_second" not in families


@pytest.mark.parametrize(
    "counter, unit, name, factor",
    [
        ("bytes_per_second", "B/s", "membench_bytes_per_second", 1.0),
        ("latency_ns", "ns", "membench_latency_seconds", 1e-9),
        ("pct_of_peak", "%", "membench_peak_ratio", 0.01),
        ("sm_clock_mhz", "MHz", "membench_sm_clock_hertz", 1e6),
        ("gflops_per_second", "GFLOP/s", "membench_flops_per_second", 1e9),
        ("latency_cycles", "cycles", "membench_latency_cycles", 1.0),
        ("device3_bytes_per_second", "B/s", "membench_device3_bytes_per_second", 1.0),
        ("updates_per_second", "updates/s", "membench_updates_per_second", 1.0),
        ("peak_rate", "updates/s", "membench_peak_rate_updates_per_second", 1.0),  # the unit names the suffix
        ("dram_read_bytes", "B", "membench_dram_read_bytes", 1.0),
        ("launch_us", "us", "membench_launch_seconds", 1e-6),
        ("l2.hit-rate", "%", "membench_l2_hit_rate_ratio", 0.01),  # what Prometheus' names may not hold: "_"
    ],
)
def test_prometheus_names_are_in_base_units(counter, unit, name, factor):
    assert export.prometheus_name(counter, unit) == (name, factor)


def test_promtool_accepts_the_prometheus_text(write_json, capsys, tmp_path):
    import shutil
    import subprocess

    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian's prometheus package has it)")
    for doc in (a_run(), atomics_run()):
        text = exported(write_json, capsys, "prometheus", doc)
        done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_a_measured_count_without_a_direction_is_not_exported_as_a_measure(write_json, capsys):
    doc = atomics_run()
    for b in doc["benchmarks"]:
        b["migrated_bytes"] = 4096.0
    doc["membench"]["counters"]["migrated_bytes"] = {"unit": "B", "better": "neither", "kind": "measured"}
    (measures,) = json.loads(exported(write_json, capsys, "bmf", doc)).values()
    assert set(measures) == {"updates-per-second"}


def test_a_prometheus_export_without_one_trusted_value_is_an_error_and_the_threshold_must_be_positive(
    write_json, capsys
):
    doc = a_run()
    for b in doc["benchmarks"]:
        b.update(contended=1, other_processes=1)
    path = write_json(doc)
    assert export.main([path, "--format", "prometheus"]) == 1
    done = capsys.readouterr()
    assert done.err.endswith(
        ": no trusted case has a value (2 measured case(s) are untrusted): only the status written\n"
    )
    assert 'membench_case_trusted{case="' in done.out and "membench_bytes_per_second" not in done.out
    for threshold in ("0", "-1", "inf"):
        assert export.main([write_json(a_run()), "--format", "bmf", "--noise-threshold", threshold]) == 2
        assert capsys.readouterr().err == (
            f"export.py: --noise-threshold {float(threshold)}: must be positive and finite\n"
        )
    assert export.main([write_json(a_run()), "--format", "bmf", "--noise-threshold", "0.5"]) == 0  # under 1 is fine


def test_a_host_paced_case_says_so_beside_its_repetitions_and_noise():
    case = export.mr.Case("a/b", "a", "b", {}, runs=[{"noise_pct": 1.5, "host_paced": 1}])
    assert export.extra(case) == "1 repetition, noise 1.5%, host-paced"


def test_a_collector_never_keeps_serving_the_last_runs_health(tmp_path, write_json, capsys):
    # The previous .prom said healthy; a run with no trusted case replaces it whole, status and all.
    prom = tmp_path / "membench.prom"
    assert export.main([write_json(a_run()), "--format", "prometheus", "--out", str(prom)]) == 0
    assert "membench_bytes_per_second{" in prom.read_text()
    shared = a_run()
    for b in shared["benchmarks"]:
        b.update(contended=1, other_processes=1)
    assert export.main([write_json(shared), "--format", "prometheus", "--out", str(prom)]) == 1
    text = prom.read_text()
    assert "membench_bytes_per_second{" not in text and "membench_case_trusted{" in text
    assert not [p.name for p in tmp_path.iterdir() if "partial" in p.name]  # no partial file left beside it
    capsys.readouterr()


def test_a_killed_run_says_so_in_every_format(write_json, capsys):
    killed = a_run()
    killed["membench"] = {"schema_version": 1, "complete": False, "counters": {}}
    path = write_json(killed)
    for fmt in ("bmf", "benchmark-action", "benchmark-action-latency"):
        assert export.main([path, "--format", fmt]) == 2
        assert "the run is incomplete (its process was killed)" in capsys.readouterr().err
    assert export.main([path, "--format", "prometheus"]) == 1
    done = capsys.readouterr()
    assert "membench_run_complete{" in done.out and done.out.split("membench_run_complete{")[1].split("\n")[0].endswith(
        " 0.0"
    )
    assert 'membench_case_trusted{case="' + CASE_BW in done.out and "membench_bytes_per_second" not in done.out


def test_a_run_a_signal_stopped_exports_what_it_measured_and_says_it_did_not_end(write_json, capsys):
    # `timeout` sent SIGTERM after the first case: the file is whole, its measured case stands, the rest never ran.
    stopped = a_run()
    stopped["membench"] = {"schema_version": 1, "complete": True, "counters": {}}
    stopped["membench"]["counters"]["bytes_per_second"] = {"unit": "B/s", "better": "higher", "kind": "measured"}
    stopped["membench"]["end"] = {
        "cases_selected": 9,
        "cases_not_run": 7,
        "cases_resumed": 0,
        "stopped": "interrupted by SIGTERM",
    }
    path = write_json(stopped)
    assert export.main([path, "--format", "prometheus"]) == 0
    done = capsys.readouterr()
    assert done.out.split("membench_run_complete{")[1].split("\n")[0].endswith(" 0.0")
    assert "membench_bytes_per_second{" in done.out
    assert f"export.py: {path}: the run was stopped (interrupted by SIGTERM): 7 of 9 cases never ran" in done.err
    del stopped["membench"]["end"]["stopped"]
    assert export.main([write_json(stopped), "--format", "prometheus"]) == 0
    done = capsys.readouterr()
    assert done.out.split("membench_run_complete{")[1].split("\n")[0].endswith(" 1.0") and "never ran" not in done.err


def test_a_rate_of_nothing_is_not_exported(write_json, capsys):
    doc = a_run()
    for b in doc["benchmarks"]:
        if b["name"] == CASE_BW:
            b["gflops_per_second"] = 0.0
    doc["membench"] = {
        "schema_version": 1,
        "counters": {
            "bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured"},
            "gflops_per_second": {"unit": "GFLOP/s", "better": "higher", "kind": "measured"},
            "latency_ns": {"unit": "ns", "better": "lower", "kind": "measured"},
            "noise_pct": {"unit": "%", "better": "lower", "kind": "health"},
        },
    }
    entries = json.loads(exported(write_json, capsys, "benchmark-action", doc))
    assert [e["unit"] for e in entries] == ["GB/s"] and all(e["value"] != 0 for e in entries)
    assert "gflops-per-second" not in json.loads(exported(write_json, capsys, "bmf", doc))[CASE_BW]
    assert "membench_flops_per_second" not in exported(write_json, capsys, "prometheus", doc)


def test_an_output_that_is_not_a_regular_file_is_refused(tmp_path, write_json, capsys):
    fifo = tmp_path / "fifo.prom"
    os.mkfifo(fifo)
    assert export.main([write_json(a_run()), "--format", "prometheus", "--out", str(fifo)]) == 2
    assert capsys.readouterr().err == f"export.py: --out {fifo}: cannot write the file (not a regular file)\n"


def test_every_format_writes_the_median_of_an_even_count_and_leaves_out_a_part_skipped_case(write_json, capsys):
    """Four repetitions 4.0, 4.1, 4.5 and 9.0 TB/s: the median is 4.3 (the middle two's mean, neither of them, nor
    the mean 5.4), the range 4.0 .. 9.0. A case one of whose repetitions was skipped (the run stopped inside it)
    is no whole measurement: no format exports its values, and Prometheus says it was not measured."""
    parser = pytest.importorskip("prometheus_client.parser")
    doc = a_run()
    doc["benchmarks"] = [
        run(CASE_BW, bytes_per_second=bw, noise_pct=0.2, repetition_index=i, repetitions=4)
        for i, bw in enumerate((4.5e12, 4.0e12, 9.0e12, 4.1e12))
    ]
    doc["benchmarks"] += [
        run(CASE_LAT, latency_ns=v, repetition_index=i, repetitions=2) for i, v in enumerate((16, 17))
    ]
    doc["benchmarks"].append({**run(CASE_LAT), "error_occurred": True, "error_message": "skipped: interrupted"})
    bmf = json.loads(exported(write_json, capsys, "bmf", doc))
    assert bmf == {CASE_BW: {"bytes-per-second": {"value": 4.3e12, "lower_value": 4.0e12, "upper_value": 9.0e12}}}
    (higher,) = json.loads(exported(write_json, capsys, "benchmark-action", doc))
    assert higher["value"] == pytest.approx(4300.0) and higher["range"] == "± 2500"
    assert higher["extra"] == "4 repetitions, noise 0.2%"
    assert export.main([write_json(doc), "--format", "benchmark-action-latency"]) == 2  # nothing whole to export
    capsys.readouterr()
    families = {
        f.name: f for f in parser.text_string_to_metric_families(exported(write_json, capsys, "prometheus", doc))
    }
    (bw,) = families["membench_bytes_per_second"].samples
    assert bw.value == pytest.approx(4.3e12)
    assert {s.labels["case"]: s.value for s in families["membench_case_ok"].samples} == {CASE_BW: 1.0, CASE_LAT: 0.0}
    assert "membench_latency_seconds" not in families


def test_a_label_escapes_backslash_quote_and_newline_and_a_bitmask_is_no_gauge(write_json, capsys):
    assert export.label_value('a\\b"c\nd') == 'a\\\\b\\"c\\nd'
    doc = a_run()
    doc["context"]["host_name"] = "rack\\7"
    for b in doc["benchmarks"][:3]:
        b.update(clock_event_reasons=4, clock_event=0)
    doc["membench"] = {
        "schema_version": 1,
        "counters": {
            "clock_event_reasons": {"unit": "bitmask", "better": "neither", "kind": "health"},
            "clock_event": {"unit": "flag", "better": "lower", "kind": "health"},
        },
    }
    text = exported(write_json, capsys, "prometheus", doc)
    assert 'host="rack\\\\7"' in text
    assert "membench_clock_event_reasons" not in text.replace('clock_event_reasons="4"', "")  # a label, not a gauge
    assert "membench_clock_event{" in text
