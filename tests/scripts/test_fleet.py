"""fleet.py on crafted fleets: a slow GPU, a failed and a missing case, two models, a multi-device file."""

from __future__ import annotations

import json

from membench import fleet
import pytest

CASES = (
    "stream/triad/type:double/elements:134217728/block:256/manual_time",
    "hierarchy/bandwidth/working_set:16384/width:16/persistent:1/through_l1:1/manual_time",
)


def gpu_doc(
    host: str,
    ordinal: int,
    bandwidths: dict[str, float],
    model: str = "NVIDIA H200",
    uuid: str | None = None,
    error: str | None = None,
) -> dict:
    context = {
        "membench_version": "0.1.0",
        "host_name": host,
        "gpu_name": model,
        "gpu_ordinal": str(ordinal),
        "gpu_uuid": uuid or f"GPU-{host}-{ordinal}",
    }
    benchmarks = []
    for name, bw in bandwidths.items():
        entry = {
            "name": name,
            "run_name": name,
            "run_type": "iteration",
            "real_time": 1e12 / bw,
            "time_unit": "us",
            "bytes_per_second": bw,
        }
        if error and name == CASES[0]:
            entry.update(error_occurred=True, error_message=error)
        benchmarks.append(entry)
    return {"context": context, "benchmarks": benchmarks}


def fleet_of(write_json, values: list[float], **kwargs) -> list[str]:
    return [
        write_json(gpu_doc(f"node{i // 2}", i % 2, {CASES[0]: v, CASES[1]: 2.8e13}, **kwargs))
        for i, v in enumerate(values)
    ]


def test_a_fleet_within_the_threshold_exits_0(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12, 4.38e12, 4.35e12])
    assert fleet.main(files) == 0
    out = capsys.readouterr().out
    assert "4 of 4 GPUs within 10% of their model's median (each case by its measure) on 2 cases" in out
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
    a100 = [
        write_json(gpu_doc(f"old{i}", 0, {CASES[0]: 1.7e12, CASES[1]: 1.9e13}, model="NVIDIA A100")) for i in range(2)
    ]
    assert fleet.main(h200 + a100) == 0  # the A100s are far below the H200s, but not compared with them
    out = capsys.readouterr().out
    assert "warning: 2 GPU models in this fleet (NVIDIA A100, NVIDIA H200)" in out


def test_a_file_with_several_devices_splits_them(write_json, capsys):
    devices = [
        {"ordinal": d, "name": "NVIDIA H200", "uuid": f"GPU-{d}", "pci_bus_id": f"0000:{d}:00.0"} for d in (0, 1)
    ]
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "host_name": "n0",
            "gpu_name": "NVIDIA H200",
            "gpu_ordinal": "0",
            "devices": json.dumps(devices),
        },
        "benchmarks": [],
    }
    for d, bw in ((0, 4.4e12), (1, 3.0e12), (0, 2.8e13), (1, 2.8e13)):
        name = (
            (CASES[0] if bw < 1e13 else CASES[1])
            .replace("/type:", f"/device:{d}/type:")
            .replace("/working_set:", f"/device:{d}/working_set:")
        )
        doc["benchmarks"].append(
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "bytes_per_second": bw,
            }
        )
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
    files = fleet_of(write_json, [4.37e12])
    assert fleet.main(files + ["--metric", "latency_ns"]) == 2
    assert capsys.readouterr().err == (
        f"fleet.py: {files[0]}: no case carries 'latency_ns' " "(it has: bytes_per_second, host_paced, real_time)\n"
    )


def test_a_file_without_cases_or_the_metric_is_named(write_json, capsys):
    # It would otherwise drop out silently: "1 of 1 GPUs within 10%".
    files = fleet_of(write_json, [4.37e12, 4.36e12])
    empty = write_json(
        {
            "context": {
                "membench_version": "0.1.0",
                "host_name": "n9",
                "gpu_name": "NVIDIA H200",
                "gpu_uuid": "GPU-n9",
            },
            "benchmarks": [],
        }
    )
    assert fleet.main(files + [empty]) == 2
    assert capsys.readouterr().err == f"fleet.py: {empty}: no cases (its 'benchmarks' list is empty)\n"


def test_the_same_gpu_twice_exits_2(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12])
    assert fleet.main(files + [files[0]]) == 2
    assert (
        capsys.readouterr().err
        == f"fleet.py: GPU GPU-node0-0 is in both {files[0]} and {files[0]}; give each GPU once\n"
    )


def test_an_untrusted_value_is_left_out_and_fails_unless_allowed(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.36e12, 4.38e12])
    contended = gpu_doc("node1", 1, {CASES[0]: 2.2e12, CASES[1]: 2.8e13})
    contended["benchmarks"][0].update(contended=1, other_processes=1)
    files.append(write_json(contended))
    assert fleet.main(files) == 1
    out = capsys.readouterr().out
    assert "| node1 device 1 (GPU-node1-1) | 2.2e+12 | - | UNTRUSTED: contended (1 other process on the GPU) |" in out
    # The median is of the trusted three: 4.37e12.
    assert f"{CASES[0]} (NVIDIA H200, 4 GPUs, bytes_per_second): median 4.37e+12, min 4.36e+12, max 4.38e+12" in out
    assert "UNTRUSTED: node1 device 1 (GPU-node1-1)" in out
    assert "FLAGGED" not in out
    assert (
        "3 of 4 GPUs within 10% of their model's median (each case by its measure) on 2 cases; 1 with untrusted values"
        in out
    )
    assert fleet.main(files + ["--allow-untrusted"]) == 0


def test_noise_at_the_threshold_is_untrusted(write_json, capsys):
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(3)]
    # The check's and every gate's 5%, whatever the deviation --threshold is.
    docs[2]["benchmarks"][1]["noise_pct"] = 5.0
    assert fleet.main([write_json(d) for d in docs]) == 1
    assert "UNTRUSTED: noise 5% >= the 5% threshold" in capsys.readouterr().out
    docs[2]["benchmarks"][1]["noise_pct"] = 4.9
    assert fleet.main([write_json(d) for d in docs]) == 0


def test_a_case_every_gpu_skipped_is_no_finding_but_one_gpu_skipping_is(write_json, capsys):
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(3)]
    for d in docs:
        d["benchmarks"][1].update(skipped=True, skip_message="needs a second GPU")
    assert fleet.main([write_json(d) for d in docs]) == 0
    assert "| n0 device 0 (GPU-n0-0) | - | - | skipped: needs a second GPU (on every GPU) |" in capsys.readouterr().out
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(3)]
    docs[0]["benchmarks"][0].update(skipped=True, skip_message="does not fit")
    assert fleet.main([write_json(d) for d in docs]) == 1
    out = capsys.readouterr().out
    assert "| n0 device 0 (GPU-n0-0) | - | - | SKIPPED: skipped: does not fit |" in out
    assert "FLAGGED: n0 device 0 (GPU-n0-0)" in out


def latency_doc(host: str, latency_ns: float) -> dict:
    name = "hierarchy/latency/working_set:1073741824/chase_stride:128/manual_time"
    return {
        "context": {
            "membench_version": "0.1.0",
            "host_name": host,
            "gpu_name": "NVIDIA H200",
            "gpu_ordinal": "0",
            "gpu_uuid": f"GPU-{host}",
        },
        "benchmarks": [
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "latency_ns": latency_ns,
                "noise_pct": 0.1,
            }
        ],
    }


def flagged_hosts(out: str) -> set[str]:
    return {line.split()[1].rstrip(",") for line in out.splitlines() if line.startswith("FLAGGED: ")}


def test_latency_is_lower_is_better_and_exactly_the_slow_gpu_is_flagged(write_json, capsys):
    # Median 600 ns: 700 is 16.7% slower (flagged); 530 is 11.7% faster (fine: faster is never flagged).
    files = [write_json(latency_doc(h, v)) for h, v in (("a", 600), ("b", 601), ("c", 599), ("d", 700), ("e", 530))]
    assert fleet.main(files + ["--metric", "latency_ns"]) == 1
    out = capsys.readouterr().out
    assert flagged_hosts(out) == {"d"}
    assert "| d device 0 (GPU-d) | 700 | 1.167 | FLAGGED |" in out
    assert "| e device 0 (GPU-e) | 530 | 0.883 | ok |" in out
    assert "4 of 5 GPUs within 10% of their model's median (latency_ns) on 1 cases" in out


def test_bandwidth_flags_exactly_the_slow_gpu_and_the_threshold_is_inclusive(write_json, capsys):
    # Median 100: 90 is exactly 10% worse (not flagged, the threshold is not exceeded); 89.9 is flagged; 130 is faster.
    values = {"a": 100e9, "b": 90e9, "c": 130e9, "d": 100e9, "e": 89.9e9}
    files = [write_json(gpu_doc(h, 0, {CASES[0]: v})) for h, v in values.items()]
    assert fleet.main(files) == 1
    assert flagged_hosts(capsys.readouterr().out) == {"e"}
    files = [write_json(gpu_doc(h, 0, {CASES[0]: v})) for h, v in values.items() if h != "e"]
    assert fleet.main(files) == 0
    assert flagged_hosts(capsys.readouterr().out) == set()


def test_repetitions_and_aggregates_give_each_gpu_its_median(write_json, capsys):
    from conftest import with_aggregates

    docs = []
    for host, reps in (("a", [100e9, 101e9, 99e9]), ("b", [100e9, 60e9, 100e9]), ("c", [70e9, 70e9, 71e9])):
        doc = gpu_doc(host, 0, {CASES[0]: 1.0})
        entry = doc["benchmarks"][0]
        doc["benchmarks"] = [
            dict(entry, bytes_per_second=v, repetitions=3, repetition_index=i) for i, v in enumerate(reps)
        ]
        docs.append(write_json(with_aggregates(doc)))
    assert fleet.main(docs) == 1
    out = capsys.readouterr().out
    assert "| b device 0 (GPU-b-0) | 1e+11 | 1.000 | ok |" in out  # its median, not its mean, and no aggregate
    assert flagged_hosts(out) == {"c"}


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--threshold", "0"], "fleet.py: --threshold 0.0: must be between 0 and 100"),
        (["--threshold", "100"], "fleet.py: --threshold 100.0: must be between 0 and 100"),
    ],
)
def test_a_bad_threshold_is_one_line_and_exit_2(write_json, capsys, flags, message):
    assert fleet.main(fleet_of(write_json, [4.37e12]) + flags) == 2
    assert capsys.readouterr().err == message + "\n"


def test_the_whole_report(write_json, capsys):
    # Given in reverse order; every kind of row; sorted by host and ordinal.
    a, b = CASES
    docs = {
        "n3": gpu_doc("n3", 0, {a: 4.4e12, b: 2.8e13}),
        "n2": gpu_doc("n2", 0, {a: 3.0e12, b: 2.8e13}),  # slow on a
        "n1": gpu_doc("n1", 0, {a: 4.3e12, b: 2.8e13}, error="wrong result"),  # failed a
        "n0": gpu_doc("n0", 0, {a: 4.4e12, b: 2.8e13}),
    }
    docs["n0"]["benchmarks"][1].update(contended=1, other_processes=2, noise_pct=12.0)
    files = [write_json(docs[h]) for h in ("n3", "n2", "n1", "n0")]
    assert fleet.main(files) == 1
    assert (
        capsys.readouterr().out
        == f"""\
{a} (NVIDIA H200, 4 GPUs, bytes_per_second): median 4.4e+12, min 3e+12, max 4.4e+12
| GPU | value | ratio to median | verdict |
| --- | ---: | ---: | --- |
| n0 device 0 (GPU-n0-0) | 4.4e+12 | 1.000 | ok |
| n1 device 0 (GPU-n1-0) | - | - | FAILED: wrong result |
| n2 device 0 (GPU-n2-0) | 3e+12 | 0.682 | FLAGGED |
| n3 device 0 (GPU-n3-0) | 4.4e+12 | 1.000 | ok |

{b} (NVIDIA H200, 4 GPUs, bytes_per_second): median 2.8e+13, min 2.8e+13, max 2.8e+13
| GPU | value | ratio to median | verdict |
| --- | ---: | ---: | --- |
| n0 device 0 (GPU-n0-0) | 2.8e+13 | - | UNTRUSTED: contended (2 other processes on the GPU); noise 12% >= the 5% threshold |
| n1 device 0 (GPU-n1-0) | 2.8e+13 | 1.000 | ok |
| n2 device 0 (GPU-n2-0) | 2.8e+13 | 1.000 | ok |
| n3 device 0 (GPU-n3-0) | 2.8e+13 | 1.000 | ok |

FLAGGED: n1 device 0 (GPU-n1-0), NVIDIA H200, from {files[2]}
FLAGGED: n2 device 0 (GPU-n2-0), NVIDIA H200, from {files[1]}
UNTRUSTED: n0 device 0 (GPU-n0-0), NVIDIA H200, from {files[3]}: some of its values are no evidence (--allow-untrusted accepts them)
1 of 4 GPUs within 10% of their model's median (each case by its measure) on 2 cases; 1 with untrusted values
"""
    )
    assert fleet.main(files + ["--allow-untrusted"]) == 1
    out = capsys.readouterr().out
    assert f"from {files[3]}: some of its values are no evidence\n" in out


def test_a_case_skipped_on_some_gpus_and_missing_on_the_others_flags_none(write_json, capsys):
    """A peer case skipped on two one-GPU nodes, absent from a third node's file (another sweep): the third is a
    warning, the two no finding; but skipped on one and measured on another, the one that skipped is flagged."""
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(3)]
    for d in docs[:2]:
        d["benchmarks"][1].update(skipped=True, skip_message="needs a second GPU")
    del docs[2]["benchmarks"][1]
    assert fleet.main([write_json(d) for d in docs]) == 0
    out = capsys.readouterr().out
    assert "| n0 device 0 (GPU-n0-0) | - | - | skipped: needs a second GPU (on every GPU) |" in out
    assert f"warning: {CASES[1]}: missing on 1 NVIDIA H200 GPU(s) (n2 device 0 (GPU-n2-0))" in out
    assert "FLAGGED" not in out
    docs[1]["benchmarks"][1] = {
        k: v for k, v in docs[1]["benchmarks"][1].items() if k not in ("skipped", "skip_message")
    }
    assert fleet.main([write_json(d) for d in docs]) == 1
    out = capsys.readouterr().out
    assert "| n0 device 0 (GPU-n0-0) | - | - | SKIPPED: skipped: needs a second GPU |" in out
    assert "FLAGGED: n0 device 0 (GPU-n0-0)" in out and "FLAGGED: n1" not in out


def test_every_gpu_skipping_for_one_reason_lists_each_and_is_no_finding(write_json, capsys):
    docs = [gpu_doc(h, 0, {CASES[0]: 4.4e12, CASES[1]: 2.8e13}) for h in ("n1", "n0")]
    for d in docs:
        d["benchmarks"][0].update(skipped=True, skip_message="needs a second GPU")
    assert fleet.main([write_json(d) for d in docs]) == 0
    out = capsys.readouterr().out
    assert (
        f"{CASES[0]} (NVIDIA H200, 2 GPUs)\n| GPU | value | ratio to median | verdict |\n| --- | ---: | ---: | --- |\n"
        "| n0 device 0 (GPU-n0-0) | - | - | skipped: needs a second GPU (on every GPU) |\n"
        "| n1 device 0 (GPU-n1-0) | - | - | skipped: needs a second GPU (on every GPU) |\n"
    ) in out


@pytest.mark.parametrize("metric", ["latency_cycles", "latency_ns", "real_time"])
def test_times_and_latencies_are_lower_is_better(write_json, capsys, metric):
    # Median 128: 144 is exactly 12.5% worse (not flagged at 12.5); 145 is; 100 is faster.
    files = []
    for host, v in (("a", 128.0), ("b", 128.0), ("c", 144.0), ("d", 100.0), ("e", 145.0)):
        doc = latency_doc(host, 1.0)
        doc["benchmarks"][0][metric] = v
        doc["benchmarks"][0]["time_unit"] = "ns"
        files.append(write_json(doc))
    assert fleet.main(files + ["--metric", metric, "--threshold", "12.5"]) == 1
    assert flagged_hosts(capsys.readouterr().out) == {"e"}


def test_bandwidth_exactly_the_threshold_worse_is_not_flagged(write_json, capsys):
    files = [write_json(gpu_doc(h, 0, {CASES[0]: v})) for h, v in (("a", 100e9), ("b", 100e9), ("c", 87.5e9))]
    assert fleet.main(files + ["--threshold", "12.5"]) == 0
    assert fleet.main(files + ["--threshold", "12.4"]) == 1
    assert flagged_hosts(capsys.readouterr().out) == {"c"}


def test_one_model_gives_no_warning_and_a_threshold_under_1_is_accepted(write_json, capsys):
    files = fleet_of(write_json, [4.37e12, 4.37e12])
    assert fleet.main(files + ["--threshold", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "warning" not in out
    assert "2 of 2 GPUs within 0.5% of their model's median (each case by its measure) on 2 cases\n" in out


def test_a_context_without_host_ordinal_or_uuid(write_json, capsys):
    docs = []
    for i in range(2):
        doc = gpu_doc("x", 0, {CASES[0]: 4.4e12})
        for key in ("host_name", "gpu_ordinal"):
            del doc["context"][key]
        doc["context"]["gpu_uuid"] = f"GPU-{i}"
        docs.append(doc)
    # A case tagged device 0 belongs to the file's only GPU, ordinal 0 when the context names none.
    tagged = CASES[0].replace("/type:", "/device:0/type:")
    docs[1]["benchmarks"][0].update(name=tagged, run_name=tagged)
    assert fleet.main([write_json(d) for d in docs]) == 0
    out = capsys.readouterr().out
    assert "| unknown-host device 0 (GPU-0) | 4.4e+12 | 1.000 | ok |" in out
    nameless = gpu_doc("y", 0, {CASES[0]: 4.4e12})
    del nameless["context"]["gpu_uuid"]
    assert fleet.main([write_json(nameless)]) == 0
    assert "| y device 0 (unknown-uuid) | 4.4e+12 | 1.000 | ok |" in capsys.readouterr().out


def test_a_median_of_zero_gives_no_ratio(write_json, capsys):
    docs = [gpu_doc(h, 0, {CASES[0]: 1.0}) for h in ("a", "b")]
    for d in docs:
        d["benchmarks"][0]["bytes_per_second"] = 0.0
    files = [write_json(d) for d in docs]
    assert fleet.main(files) == 0
    assert "| a device 0 (GPU-a-0) | 0 | nan | ok |" in capsys.readouterr().out


def test_a_case_one_model_lacks_is_still_judged_for_the_other(write_json, capsys):
    # Models are sorted: the A100s come first and lack CASES[1]; the H200s' row for it must still be there.
    a100 = [write_json(gpu_doc(f"old{i}", 0, {CASES[0]: 1.7e12}, model="NVIDIA A100")) for i in range(2)]
    h200 = [write_json(gpu_doc(f"new{i}", 0, {CASES[0]: 4.37e12, CASES[1]: v})) for i, v in enumerate((2.8e13, 2.0e13))]
    assert fleet.main(a100 + h200) == 1
    out = capsys.readouterr().out
    assert f"{CASES[1]} (NVIDIA H200, 2 GPUs, bytes_per_second): median 2.4e+13, min 2e+13, max 2.8e+13" in out
    assert "FLAGGED: new1 device 0 (GPU-new1-0), NVIDIA H200" in out


def test_untrusted_gpus_are_listed_by_host_then_ordinal(write_json, capsys):
    files = []
    for host, ordinal in (("node2", 0), ("node1", 1), ("node1", 0)):
        doc = gpu_doc(host, ordinal, {CASES[0]: 4.37e12, CASES[1]: 2.8e13})
        doc["benchmarks"][0].update(contended=1, other_processes=1)
        files.append(write_json(doc))
    assert fleet.main(files) == 1
    listed = [line.split(",")[0] for line in capsys.readouterr().out.splitlines() if line.startswith("UNTRUSTED: ")]
    assert listed == [
        "UNTRUSTED: node1 device 0 (GPU-node1-0)",
        "UNTRUSTED: node1 device 1 (GPU-node1-1)",
        "UNTRUSTED: node2 device 0 (GPU-node2-0)",
    ]


def test_a_host_paced_case_gets_the_verdict_compare_gives_it(write_json, capsys):
    # A pageable copy 33% slower on one GPU: noisy past the threshold it is no evidence, as in compare.py;
    # quiet, it is flagged only beyond three times its own noise.
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(3)]
    for d in docs:
        d["benchmarks"][1].update(host_paced=1, noise_pct=12.0)
    docs[2]["benchmarks"][1]["bytes_per_second"] = 2.8e13 * 0.673
    assert fleet.main([write_json(d) for d in docs]) == 1
    assert "UNTRUSTED: host-paced, noise 12% >= the 5% threshold" in capsys.readouterr().out
    for d in docs:
        d["benchmarks"][1]["noise_pct"] = 4.5  # a 13.5% gate: 33% slower is flagged, 12% is not
    assert fleet.main([write_json(d) for d in docs]) == 1
    assert "FLAGGED" in capsys.readouterr().out
    docs[2]["benchmarks"][1]["bytes_per_second"] = 2.8e13 * 0.88
    assert fleet.main([write_json(d) for d in docs]) == 0


def test_a_killed_runs_values_are_no_evidence(write_json, capsys):
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(3)]
    counters = {"bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured"}}
    docs[1]["membench"] = {"schema_version": 1, "complete": False, "counters": counters}
    assert fleet.main([write_json(d) for d in docs]) == 1
    assert "UNTRUSTED: run incomplete" in capsys.readouterr().out


def test_each_gpu_s_verdict_on_each_case_is_kept_for_the_matrix(write_json):
    """The verdicts the report's fleet matrix colours: ok, FLAGGED, SKIPPED, FAILED, UNTRUSTED, and a reason
    every GPU shares."""
    docs = [gpu_doc(f"n{i}", 0, {CASES[0]: 4.37e12, CASES[1]: 2.8e13}) for i in range(4)]
    docs[0]["benchmarks"][0].update(skipped=True, skip_message="does not fit")
    docs[1]["benchmarks"][0].update(error_occurred=True, error_message="verification failed")
    docs[2]["benchmarks"][0]["bytes_per_second"] = 2e12
    docs[3]["benchmarks"][1].update(contended=1, other_processes=1)
    table, judged_by = fleet.collect([write_json(d) for d in docs], "bytes_per_second", 10.0)
    cells: dict = {}
    fleet.judge(table, 10.0, judged_by, cells)
    by_host = {(case.split("/")[0], gpu.host): verdict for (case, gpu), verdict in cells.items()}
    first, second = CASES[0].split("/")[0], CASES[1].split("/")[0]
    assert by_host[first, "n0"] == "SKIPPED" and by_host[first, "n1"] == "FAILED"
    assert by_host[first, "n2"] == "FLAGGED" and by_host[first, "n3"] == "ok" and by_host[second, "n3"] == "UNTRUSTED"
    assert by_host[second, "n0"] == "ok"


def test_a_latency_case_is_judged_by_its_latency_and_a_doubled_one_flagged(capsys, write_json):
    # No --metric: each case by its own measure. Three GPUs chase at 600 ns, one at twice that: flagged, though
    # it reports no bandwidth at all.
    chase = "hierarchy/latency/working_set:1073741824/chase_stride:128/manual_time"
    docs = []
    for host, latency in (("n0", 600.0), ("n1", 605.0), ("n2", 598.0), ("n3", 1200.0)):
        doc = gpu_doc(host, 0, {CASES[0]: 4.3e12})
        doc["benchmarks"].append(
            {
                "name": chase,
                "run_name": chase,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "latency_ns": latency,
            }
        )
        docs.append(write_json(doc))
    code = fleet.main(docs)
    out = capsys.readouterr().out
    assert code == 1
    assert f"{chase} (NVIDIA H200, 4 GPUs, latency_ns)" in out
    assert "| n3 device 0 (GPU-n3-0) | 1200 | 1.992 | FLAGGED |" in out  # over the median, 602.5
    assert "FLAGGED: n3 device 0 (GPU-n3-0)" in out
    # By bandwidth alone the chase is not compared and the fleet passes.
    assert fleet.main([*docs, "--metric", "bytes_per_second"]) == 0
