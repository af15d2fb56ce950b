"""membench/results.py: reading membench's JSON the way every script does."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from membench import cli
from membench import compat
from membench import results as mr
import pytest


def parse_name(name: str) -> mr.CaseName:
    """A name read from its text, as only the compatibility module does (for files without a catalog)."""
    return mr.CaseName(*compat.parse_old_name(name))


def entry(name: str, **fields) -> dict:
    return {"name": name, "run_name": name, "run_type": "iteration", "real_time": 2.0, "time_unit": "us", **fields}


def doc(*benchmarks: dict, **context) -> dict:
    return {"context": {"membench_version": "0.1.0", **context}, "benchmarks": list(benchmarks)}


def test_names_split_into_family_variant_and_keyed_parts():
    parsed = parse_name("global/strided/device:1/l2:cold/n:1024/stride:2/manual_time")
    assert parsed == mr.CaseName("global", "strided", (("device", 1), ("l2", "cold"), ("n", 1024), ("stride", 2)))
    assert parsed.params == {"device": 1, "l2": "cold", "n": 1024, "stride": 2}
    assert parsed.format() == "global/strided/device:1/l2:cold/n:1024/stride:2/manual_time"
    assert parsed.without("device").format() == "global/strided/l2:cold/n:1024/stride:2/manual_time"
    assert parsed.without("l2", "stride").format("") == "global/strided/device:1/n:1024"
    named = parse_name("stream/triad/type:double/elements:-3")
    assert named.parts == (("type", "double"), ("elements", -3))
    # The order is the name's: a tag key after an axis stays there.
    assert parse_name("a/b/n:1/l2:cold").format("") == "a/b/n:1/l2:cold"
    # A tag the scripts have never heard of reads like any other part.
    assert parse_name("a/b/clock:base/n:1").params == {"clock": "base", "n": 1}
    assert parsed.renamed({"n": "elements"}).format("") == "global/strided/device:1/l2:cold/elements:1024/stride:2"
    cold = mr.cases(doc(entry("global/coalesced/l2:cold/n:1024/manual_time")))
    assert [c.name_without("l2") for c in cold.values()] == ["global/coalesced/n:1024/manual_time"]


@pytest.mark.parametrize("name", ["x", "/b", "a//n:1", "a/b/n", "a/b/:1", "a/b/n:"])
def test_what_is_not_a_case_name_is_an_input_error(name):
    with pytest.raises(ValueError):
        parse_name(name)
    with pytest.raises(mr.InputError):
        mr.current_name(name)
    with pytest.raises(mr.InputError):
        mr.cases(doc(entry(name)))


def test_times_are_nanoseconds_per_launch_whatever_the_unit():
    for unit, scale in (("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)):
        case = mr.cases(doc(entry("a/b/manual_time", real_time=2.0, time_unit=unit)))["a/b/manual_time"]
        assert case.values("real_time") == [2.0 * scale]
    case = mr.cases(doc(entry("a/b/manual_time", bytes_per_second=5.0)))["a/b/manual_time"]
    assert case.values("bytes_per_second") == [5.0]  # a counter is not scaled
    assert case.values("absent") == [] and case.median("absent") is None
    with pytest.raises(mr.InputError, match="a/b/manual_time: unknown time_unit 'min'"):
        mr.cases(doc(entry("a/b/manual_time", time_unit="min")))["a/b/manual_time"].values("real_time")


def test_repetitions_give_a_median_and_aggregates_are_not_runs():
    runs = [
        entry("a/b/manual_time", bytes_per_second=v, repetition_index=i) for i, v in enumerate((3.0, 1.0, 2.0, 10.0))
    ]
    mean = entry("a/b/manual_time_mean", bytes_per_second=999.0, run_type="aggregate", aggregate_name="mean")
    mean["run_name"] = "a/b/manual_time"
    cases = mr.cases(doc(*runs, mean))
    assert list(cases) == ["a/b/manual_time"]
    assert cases["a/b/manual_time"].values("bytes_per_second") == [3.0, 1.0, 2.0, 10.0]
    assert cases["a/b/manual_time"].median("bytes_per_second") == 2.5


def test_errors_and_skips_of_both_google_benchmark_versions():
    failed = entry("f/x/manual_time", error_occurred=True, error_message="verification failed: out[3] = 0")
    skipped = entry("s/x/manual_time", skipped=True, skip_message="needs a second GPU")
    old_skip = entry("o/x/manual_time", error_occurred=True, error_message="skipped: needs sm_90")
    bare = entry("b/x/manual_time", error_occurred=True)
    cases = mr.cases(doc(failed, skipped, old_skip, bare))
    assert (cases["f/x/manual_time"].error, cases["f/x/manual_time"].skipped) == (
        "verification failed: out[3] = 0",
        None,
    )
    assert (cases["s/x/manual_time"].error, cases["s/x/manual_time"].skipped) == (None, "needs a second GPU")
    assert (cases["o/x/manual_time"].error, cases["o/x/manual_time"].skipped) == (None, "needs sm_90")
    assert cases["b/x/manual_time"].error == "error"
    assert all(not c.runs for c in cases.values())


def test_metrics_are_the_numbers_measured_runs_carry():
    d = doc(
        entry("a/b/manual_time", bytes_per_second=1.0, noisy=True, iterations=10, repetitions=1, threads=1),
        entry("c/d/manual_time", error_occurred=True, error_message="x", latency_ns=3.0),
    )
    # Not booleans, bookkeeping or failed cases; host_paced is the mark the upgrade of a file this old adds.
    assert mr.metrics(d) == ["bytes_per_second", "host_paced", "real_time"]


@pytest.mark.parametrize("value", ["fast", None, [1], True, float("inf")])
def test_a_metric_that_is_not_a_number_is_an_input_error(value):
    case = mr.cases(doc(entry("a/b/manual_time", bytes_per_second=value)))["a/b/manual_time"]
    with pytest.raises(mr.InputError, match="a/b/manual_time: 'bytes_per_second' is not a number"):
        case.values("bytes_per_second")


def test_load_refuses_what_is_not_google_benchmark_json(tmp_path):
    cases = {
        "not.json": "{",
        "list.json": "[]",
        "nocontext.json": '{"benchmarks": []}',
        "badentry.json": '{"context": {"membench_version": "0.1.0"}, "benchmarks": [7]}',
        "noname.json": '{"context": {"membench_version": "0.1.0"}, "benchmarks": [{}]}',
    }
    messages = {
        "not.json": "not JSON (Expecting property name enclosed in double quotes at line 1)",
        "list.json": "not Google Benchmark JSON (no 'context' and 'benchmarks')",
        "nocontext.json": "not Google Benchmark JSON (no 'context' and 'benchmarks')",
        "badentry.json": "benchmarks[0] is not a benchmark (an object with a 'name')",
        "noname.json": "benchmarks[0] is not a benchmark (an object with a 'name')",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(mr.InputError) as e:
            mr.load(path)
        assert str(e.value) == f"{path}: {messages[name]}"
    with pytest.raises(mr.InputError, match="is a directory, not a file"):
        mr.load(tmp_path)
    with pytest.raises(mr.InputError, match="cannot read"):
        mr.load(tmp_path / "missing.json")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc(entry("a/b/manual_time"))))
    assert mr.load(good)["benchmarks"][0]["name"] == "a/b/manual_time"


# What is not a membench result, or not one these scripts can read: one line each.
@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000, "not a result file (nested too deep to read)"),
        (
            '{"context": {"membench_version": "0.1.0"}, "benchmarks": [{"name": "a/b", "real_time": '
            + "9" * 5000
            + "}]}",
            "not a result file (Exceeds the limit (4300 digits) for integer string conversion",
        ),
        (
            json.dumps(
                {"context": {"executable": "./bm", "library_version": "v1.8.3"}, "benchmarks": [entry("BM_memcpy/8")]}
            ),
            "not a membench result (its context has no membench_version)",
        ),
        (json.dumps(doc()), "no cases (its 'benchmarks' list is empty)"),
        (
            json.dumps(doc(entry("a/b/manual_time", real_time="fast"))),
            "a/b/manual_time: 'real_time' is not a number (\"fast\")",
        ),
        (  # a failed case is not read, and the one after it still is
            json.dumps(
                doc({"name": "a/a/manual_time", "error_occurred": True}, entry("a/b/manual_time", real_time="x"))
            ),
            "a/b/manual_time: 'real_time' is not a number (\"x\")",
        ),
        (
            json.dumps(doc(entry("a/b/manual_time", time_unit="fortnight"))),
            'a/b/manual_time: unknown time_unit "fortnight"',
        ),
        (
            json.dumps({**doc(entry("a/b/manual_time")), "membench": {"schema_version": 99}}),
            "schema_version 99; these scripts read 1, 2, 3 and 4",
        ),
        (json.dumps({**doc(entry("a/b/manual_time")), "membench": []}), "its 'membench' object is not membench's"),
    ],
)
def test_load_refuses_what_is_not_a_membench_result(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(mr.InputError) as e:
        mr.load(path)
    assert str(e.value).startswith(f"{path}: {message}")
    assert "\n" not in str(e.value) and len(str(e.value)) < 300


def test_the_catalog_in_the_file_says_which_way_is_better_and_older_files_are_read_through_compat():
    new = {
        **doc(entry("a/b/manual_time", latency_ns=5.0)),
        "membench": {
            "schema_version": 1,
            "counters": {
                "latency_ns": {"unit": "ns", "better": "lower", "kind": "measured"},
                "model_level": {"unit": "level", "better": "neither", "kind": "model"},
            },
        },
    }
    assert mr.better(new, "latency_ns") == "lower"
    assert mr.meaning(new, "model_level").kind == "model"
    assert mr.meaning(new, "not_in_the_file").kind == "undeclared"
    # A file written before the catalog: its upgrade at load gives each counter it holds its old meaning.
    old = doc(entry("a/b/manual_time", latency_ns=5.0, model_bytes_per_second=1.0, device3_bytes_per_second=2.0))
    assert mr.better(old, "latency_ns") == "lower" and mr.better(old, "bytes_per_second") == "higher"
    assert mr.better(old, "updates_per_second") == "higher" and mr.better(old, "cpu_time") == "neither"
    assert mr.meaning(old, "model_bytes_per_second").kind == "model"
    assert mr.meaning(old, "device3_bytes_per_second").better == "higher"
    # The file decides, not a name: a catalog that says higher is higher.
    flipped = {**new, "membench": {"schema_version": 1, "counters": {"latency_ns": {"better": "higher"}}}}
    assert mr.require_direction([flipped], "latency_ns") == "higher"
    with pytest.raises(mr.InputError, match="disagree"):
        mr.require_direction([new, flipped], "latency_ns")
    with pytest.raises(mr.InputError, match="a model counter, with no better direction"):
        mr.require_direction([new], "model_level")


def test_context_helpers():
    d = doc(gpu_name="NVIDIA H200", l2_bytes="62914560", broken="x")
    assert mr.gpu_name(d) == "NVIDIA H200"
    assert mr.gpu_name({}) == "unknown GPU"
    assert mr.context_number(d, "l2_bytes") == 62914560.0
    assert mr.context_number(d, "broken") is None and mr.context_number(d, "absent") is None


def test_require_metric_names_the_file():
    with pytest.raises(mr.InputError) as e:
        mr.require_metric(doc(), "a.json", "bytes_per_second")
    assert str(e.value) == "a.json: no cases"
    with pytest.raises(mr.InputError) as e:
        mr.require_metric(doc(entry("a/b/manual_time", latency_ns=5.0)), "b.json", "bytes_per_second")
    assert str(e.value) == "b.json: no case carries 'bytes_per_second' (it has: host_paced, latency_ns, real_time)"
    mr.require_metric(doc(entry("a/b/manual_time", bytes_per_second=1.0)), "c.json", "bytes_per_second")


@pytest.mark.parametrize(
    "fields, doubts",
    [
        ({}, []),
        (
            {
                "contended": 0,
                "other_processes": 0,
                "clock_event": 0,
                "clock_event_reasons": 1,
                "throttled_batches": 0,
                "noise_pct": 4.99,
            },
            [],
        ),
        ({"contended": 1, "other_processes": 1}, ["contended (1 other process on the GPU)"]),
        ({"contended": 1}, ["contended (1 other process on the GPU)"]),
        # A slowdown is named by its reasons; the power cap beside it is the case's own draw, not named.
        (
            {"clock_event": 1, "power_capped": 1, "clock_event_reasons": 0x4 | 0x20 | 0x1},
            ["clock event (sw_thermal_slowdown)"],
        ),
        ({"throttled_batches": 1}, ["throttled (1 batches below the clock threshold)"]),
        # The power cap with a batch dropped for its low clock is no longer the case's own draw.
        (
            {"clock_event": 0, "power_capped": 1, "clock_event_reasons": 0x4, "throttled_batches": 1},
            ["throttled (1 batches below the clock threshold)"],
        ),
        ({"clock_event": 0, "power_capped": 1, "clock_event_reasons": 0x4}, []),
        ({"noise_pct": 5.0}, ["noise 5% >= the 5% threshold"]),
        ({"noise_pct": -1}, ["noise unknown (fewer than two batches)"]),
        (
            {"contended": 1, "other_processes": 3, "noise_pct": 50.0},
            ["contended (3 other processes on the GPU)", "noise 50% >= the 5% threshold"],
        ),
    ],
)
def test_doubts_name_every_reason(fields, doubts):
    case = mr.cases(doc(entry("a/b/manual_time", **fields)))["a/b/manual_time"]
    assert case.doubts(5.0) == doubts


def test_doubts_look_at_every_repetition():
    runs = [
        entry("a/b/manual_time", noise_pct=0.1, repetition_index=0),
        entry("a/b/manual_time", noise_pct=0.2, contended=1, other_processes=2, repetition_index=1),
    ]
    assert mr.cases(doc(*runs))["a/b/manual_time"].doubts(5.0) == ["contended (2 other processes on the GPU)"]


def test_clock_event_names():
    assert mr.clock_event_names(0) == "none"
    assert mr.clock_event_names(0x1FF) == (
        "gpu_idle, applications_clocks_setting, sw_power_cap, hw_slowdown, sync_boost, "
        "sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown, "
        "display_clock_setting"
    )
    assert mr.clock_event_names(0x8 | 0x1000) == "hw_slowdown, 0x1000"
    assert mr.CLOCK_EVENT_MARKS == 0x4 | 0x8 | 0x20 | 0x40 | 0x80


def test_a_usage_error_is_one_line_and_exit_2(capsys):
    parser = cli.Parser(prog="x.py")
    parser.add_argument("--n", type=int)
    with pytest.raises(SystemExit) as e:
        parser.parse_args(["--n", "many"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "x.py: argument --n: invalid int value: 'many'\n"


def test_a_repetition_without_the_metric_is_passed_over_not_the_end():
    runs = [
        entry("a/b/manual_time", repetition_index=0),
        entry("a/b/manual_time", bytes_per_second=4.0, repetition_index=1),
    ]
    assert mr.cases(doc(*runs))["a/b/manual_time"].values("bytes_per_second") == [4.0]


def test_times_default_to_nanoseconds_and_cpu_time_is_a_time():
    bare = {"name": "a/b/manual_time", "real_time": 3.0, "cpu_time": 4.0}  # no time_unit, no run_type
    case = mr.cases(doc(bare))["a/b/manual_time"]
    assert case.values("real_time") == [3.0]
    assert [{k: v for k, v in run.items() if k != "host_paced"} for run in case.runs] == [bare]
    case = mr.cases(doc(entry("a/b/manual_time", cpu_time=4.0, time_unit="ms")))["a/b/manual_time"]
    assert case.values("cpu_time") == [4e6]


def test_old_batched_files_divide_per_launch_and_a_zero_batch_divides_by_one():
    old = entry("a/b/manual_time", real_time=8.0, time_unit="ns", bytes=800.0, launches_per_iteration=4)
    case = mr.cases(doc(old))["a/b/manual_time"]
    assert (case.values("real_time"), case.values("bytes"), case.values("cpu_time")) == ([2.0], [200.0], [])
    zero = entry("a/b/manual_time", real_time=8.0, time_unit="ns", launches_per_iteration=0)
    assert mr.cases(doc(zero))["a/b/manual_time"].values("real_time") == [8.0]


def test_a_skip_without_a_message_still_says_skipped():
    case = mr.cases(doc(entry("a/b/manual_time", skipped=True)))["a/b/manual_time"]
    assert (case.skipped, case.error, case.runs) == ("skipped", None, [])


def test_metrics_leave_out_google_benchmarks_bookkeeping():
    bookkeeping = {
        k: 1
        for k in (
            "family_index",
            "per_family_instance_index",
            "repetitions",
            "repetition_index",
            "threads",
            "iterations",
        )
    }
    assert mr.metrics(doc(entry("a/b/manual_time", bytes_per_second=1.0, **bookkeeping))) == [
        "bytes_per_second",
        "host_paced",  # the mark the upgrade of a file this old adds
        "real_time",
    ]


def test_a_name_is_a_value():
    name = parse_name("global/strided/n:8/stride:2")
    assert {name: 1}[parse_name("global/strided/n:8/stride:2")] == 1
    with pytest.raises(AttributeError):
        name.family = "layout"
    assert mr.CaseName("a", "b").format("") == "a/b" and mr.CaseName("a", "b").params == {}


def test_a_name_that_needs_no_renaming_is_kept_as_written():
    # parse and format would turn structs:007 into structs:7; a name with nothing to rename is not rewritten.
    assert (
        mr.current_name("layout/aos/structs:007/fields:4/manual_time")[0]
        == "layout/aos/structs:007/fields:4/manual_time"
    )
    assert mr.current_name("layout/aos/n:007/fields:4")[0] == "layout/aos/structs:7/fields:4"


def test_noise_of_exactly_zero_is_known_and_quiet():
    case = mr.cases(doc(entry("a/b/manual_time", noise_pct=0.0)))["a/b/manual_time"]
    assert case.doubts(5.0) == []


def test_clock_event_reasons_of_every_repetition_are_named():
    runs = [
        entry("a/b/manual_time", clock_event=1, clock_event_reasons=0x8, repetition_index=0),
        entry("a/b/manual_time", clock_event=0, clock_event_reasons=0x40, repetition_index=1),
        entry("a/b/manual_time", clock_event=0, repetition_index=2),
    ]
    assert mr.cases(doc(*runs))["a/b/manual_time"].doubts(5.0) == ["clock event (hw_slowdown, hw_thermal_slowdown)"]


@pytest.mark.parametrize(
    "reasons, clock_event, power_capped",
    [(0x4, 0, 1), (0x4 | 0x40, 1, 1), (0x8, 1, 0), (0x1, 0, 0)],
)
def test_a_file_of_schema_3_is_read_as_schema_4_marks_it(tmp_path, reasons, clock_event, power_capped):
    # Schema 3 counted the board's power cap in clock_event; at load it is power_capped, and clock_event a slowdown.
    old = doc(entry("a/b/manual_time", clock_event=1 if reasons & 0xEC else 0, clock_event_reasons=reasons))
    old["membench"] = {"schema_version": 3, "complete": True, "counters": {}}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    (run,) = mr.cases(mr.load(path))["a/b/manual_time"].runs
    assert (run["clock_event"], run["power_capped"]) == (clock_event, power_capped)
    today = doc(entry("a/b/manual_time", clock_event=1, clock_event_reasons=0x4))  # schema 4: as written
    today["membench"] = {"schema_version": 4, "complete": True, "counters": {}}
    path.write_text(json.dumps(today))
    assert mr.cases(mr.load(path))["a/b/manual_time"].runs[0]["clock_event"] == 1


def test_messages_name_the_value_and_the_reason(tmp_path):
    case = mr.cases(doc(entry("a/b/manual_time", bytes_per_second="x" * 60)))["a/b/manual_time"]
    with pytest.raises(mr.InputError) as e:
        case.values("bytes_per_second")
    assert str(e.value) == f"a/b/manual_time: 'bytes_per_second' is not a number (\"{'x' * 39})"
    with pytest.raises(mr.InputError) as e:
        mr.load(tmp_path / "missing.json")
    assert str(e.value) == f"{tmp_path / 'missing.json'}: cannot read (No such file or directory)"


def test_a_mark_any_repetition_has_counts_not_only_the_first():
    runs = [
        entry("a/b/manual_time", noise_pct=0.1, contended=0, repetition_index=0),
        entry("a/b/manual_time", noise_pct=0.2, contended=0, repetition_index=1),
        entry("a/b/manual_time", noise_pct=12.0, contended=1, other_processes=1, repetition_index=2),
    ]
    case = mr.cases(doc(*runs))["a/b/manual_time"]
    assert case.most("noise_pct") == 12.0
    assert case.doubts(5.0) == ["contended (1 other process on the GPU)", "noise 12% >= the 5% threshold"]


def test_a_host_paced_cases_noise_is_a_doubt_like_any_and_a_shared_gpu_too():
    paced = mr.cases(doc(entry("a/b/manual_time", noise_pct=12.0, host_paced=1)))["a/b/manual_time"]
    assert paced.host_paced and paced.doubts(5.0) == ["host-paced, noise 12% >= the 5% threshold"]
    assert paced.doubts(12.5) == [] and paced.doubts(math.inf) == []
    shared = mr.cases(doc(entry("a/b/manual_time", noise_pct=1.0, host_paced=1, contended=1)))["a/b/manual_time"]
    assert shared.doubts(5.0) == ["contended (1 other process on the GPU)"]
    assert paced.gate_threshold(paced, 5.0) == 36.0
    plain = mr.cases(doc(entry("a/b/manual_time", noise_pct=12.0)))["a/b/manual_time"]
    assert plain.gate_threshold(plain, 5.0) == 5.0


def test_an_entry_without_a_run_type_is_an_iteration_and_is_checked(tmp_path):
    bare = {"name": "a/b/manual_time", "real_time": "soon", "time_unit": "us"}  # Google Benchmark before run_type
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"context": {"membench_version": "0.1.0"}, "benchmarks": [bare]}))
    with pytest.raises(mr.InputError, match="'real_time'"):
        mr.load(path)


def test_a_counter_declared_without_a_description_has_none():
    declared = {"membench": {"counters": {"x_bytes": {"unit": "B", "better": "neither", "kind": "model"}}}}
    assert mr.meaning(declared, "x_bytes") == mr.Meaning("B", "neither", "model", "")


def test_the_power_limiter_alone_is_the_one_clock_event_a_case_is_judged_under():
    assert mr.CLOCK_EVENTS[mr.POWER_CAP] == "sw_power_cap"
    assert mr.CLOCK_EVENT_MARKS & ~mr.POWER_CAP == 0x8 | 0x20 | 0x40 | 0x80


def test_a_killed_runs_cases_are_doubted_and_an_old_file_is_whole():
    killed = doc(entry("a/b/manual_time", noise_pct=0.1))
    killed["membench"] = {"schema_version": 1, "complete": False, "counters": {}}
    case = mr.cases(killed)["a/b/manual_time"]
    assert not mr.complete(killed) and not case.run_complete
    assert case.doubts(math.inf) == ["run incomplete (the process ended before the run did)"]
    killed["membench"]["complete"] = True
    assert mr.complete(killed) and mr.cases(killed)["a/b/manual_time"].doubts(5.0) == []
    assert mr.complete(doc(entry("a/b/manual_time")))  # no membench object: written whole


def test_how_a_run_ended_killed_stopped_or_at_its_end():
    run = doc(entry("a/b/manual_time", noise_pct=0.1), entry("a/c/manual_time", skipped=True))
    run["membench"] = {"schema_version": 3, "complete": True, "counters": {}}
    assert mr.stopped(run) == "" and mr.ending(run) == "reached its end"  # no end section: an older file
    run["membench"]["end"] = {"cases_selected": 2, "cases_not_run": 0, "cases_resumed": 0}
    assert mr.stopped(run) == "" and mr.ending(run) == "reached its end"
    # A signal: the file is whole and its measured case stands; the one it never reached is said, not doubted.
    run["membench"]["end"].update(cases_not_run=1, stopped="interrupted by SIGTERM")
    assert mr.stopped(run) == "interrupted by SIGTERM" and mr.complete(run)
    assert mr.ending(run) == "stopped (interrupted by SIGTERM): 1 of 2 cases never ran"
    assert mr.cases(run)["a/b/manual_time"].doubts(5.0) == []
    run["membench"]["complete"] = False
    assert mr.ending(run) == "killed before its end: its cases are untrusted"
    assert mr.ending(doc(entry("a/b/manual_time"))) == "reached its end"


def test_an_old_files_host_paced_cases_are_the_compatibility_modules():
    old = doc(
        entry("transfer/host_to_device_memcpy_ce/host:pageable/bytes:4096/manual_time"),
        entry("managed/resident/bytes:1/manual_time"),
        entry("global/coalesced/n:1/manual_time"),
    )
    assert [c.host_paced for c in mr.cases(old).values()] == [True, False, False]
    marked = doc(entry("transfer/host_to_device_memcpy_ce/host:pinned/bytes:4096/manual_time", host_paced=0))
    assert not next(iter(mr.cases(marked).values())).host_paced  # the file's own mark wins


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"real_time": -1.0}, "'real_time' is negative"),
        ({"iterations": 0}, "'iterations' is not a count of one or more (0)"),
        ({"iterations": 2.5}, "'iterations' is not a count of one or more (2.5)"),
        ({"bytes_per_second": "fast"}, "counter 'bytes_per_second' is not a number (\"fast\")"),
        ({"noise_pct": None}, "counter 'noise_pct' is not a number (null)"),
        ({"bytes": float("nan")}, "counter 'bytes' is not a number (NaN)"),
        ({"label": 5}, "'label' is not text (5)"),
    ],
)
def test_a_measured_entry_whose_numbers_are_not_numbers_is_refused_naming_the_case(tmp_path, bad, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc(entry("a/b/manual_time", **bad))))
    with pytest.raises(mr.InputError) as e:
        mr.load(path)
    assert str(e.value) == f"{path}: a/b/manual_time: {message}"


def test_a_fifo_is_refused_without_being_opened_for_a_read_that_waits(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(mr.InputError, match="not a regular file"):
        mr.load(fifo)
    with pytest.raises(mr.InputError, match="not a regular file"):
        mr.read_input("/dev/zero")
    big = tmp_path / "big.json"
    big.write_text("x" * 11)
    with pytest.raises(mr.InputError, match="11 bytes; an input is read up to 10"):
        mr.read_input(big, max_bytes=10)
    big.write_bytes(b"\xff\xfe")
    with pytest.raises(mr.InputError, match="not UTF-8"):
        mr.read_input(big)


def _toy_run(with_k: bool, rate: float) -> dict:
    """A run of a family 'toy' from before and after its variant got an axis k, declared with its value before."""
    axes = [{"name": "n", "value": 8, "unit": "things"}] + (
        [{"name": "k", "value": 1, "unit": "ways"}] if with_k else []
    )
    name = "toy/v/n:8" + ("/k:1" if with_k else "") + "/manual_time"
    declared = [{"name": "n", "unit": "things", "help": "h"}]
    if with_k:
        declared.append({"name": "k", "unit": "ways", "help": "added later", "before": 1})
    return {
        "context": {"gpu_name": "NVIDIA H200", "membench_version": "0.1.0"},
        "benchmarks": [
            {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "bytes_per_second": rate}
        ],
        "membench": {
            "schema_version": 1,
            "counters": {"bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured"}},
            "cases": [{"name": name, "family": "toy", "variant": "v", "tags": {}, "axes": axes}],
            "families": {"toy": {"axes": declared}},
        },
    }


def test_a_case_from_before_an_axis_was_added_reads_beside_a_newer_file_as_the_case_with_its_value_before():
    """No table of added axes: the newer file's catalog says what the axis was before, and a file written
    before it reads as that case beside it (read alone, as it was written)."""
    from membench import compare

    old, new = _toy_run(False, 1e12), _toy_run(True, 1.1e12)
    assert list(mr.cases(old)) == ["toy/v/n:8/manual_time"]
    assert list(mr.cases(old, new)) == list(mr.cases(new, old)) == ["toy/v/n:8/k:1/manual_time"]
    assert mr.cases(old, new)["toy/v/n:8/k:1/manual_time"].params == {"n": 8, "k": 1}
    rows = compare.compare(old, new, "bytes_per_second", 5.0, 0.05)
    assert [(r.name, r.baseline, r.contender) for r in rows] == [("toy/v/n:8/k:1/manual_time", 1e12, 1.1e12)]


def test_a_case_s_tags_and_axes_come_from_the_catalog_not_its_name():
    """The catalog is what a case is; a name that disagrees with it (a renamed case) reads as the catalog says."""
    doc = _toy_run(True, 1e12)
    doc["membench"]["cases"][0]["axes"][0]["value"] = 9  # the catalog's n, not the name's
    doc["membench"]["cases"][0]["tags"] = {"l2": "cold"}
    (case,) = mr.cases(doc).values()
    assert case.params == {"l2": "cold", "n": 9, "k": 1} and (case.family, case.variant) == ("toy", "v")


def test_the_check_distrusts_noise_where_the_scripts_do():
    # One rule of both languages: the C++ check's kUntrustedNoisePct is the scripts' NOISE_THRESHOLD.
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "run" / "check.hpp"
    if not path.exists():
        pytest.skip("no C++ beside these tests (a copy of scripts/ and tests/ alone)")
    header = path.read_text()
    (value,) = re.findall(r"inline constexpr double kUntrustedNoisePct = ([0-9.]+);", header)
    assert float(value) == mr.NOISE_THRESHOLD
    # And a host-paced case's band widens in the check as the scripts' gates do: by HOST_NOISE_WIDTHS x its noise.
    (widths,) = re.findall(r"inline constexpr double kHostNoiseWidths = ([0-9.]+);", header)
    assert float(widths) == mr.HOST_NOISE_WIDTHS
