"""levels.py: plateaus of the hierarchy curves and the boundaries against the device's sizes."""

from __future__ import annotations

import copy

from membench import levels
import pytest
from conftest import load


def test_plateaus_and_the_transition_between_them():
    points = [(1, 10.0), (2, 10.5), (4, 9.8), (8, 40.0), (16, 100.0), (32, 104.0), (64, 99.0)]
    found = levels.find_plateaus(points, 10)
    assert [(p.first, p.last) for p in found] == [(1, 4), (16, 64)]
    assert found[0].value == 10.0
    assert found[1].value == 100.0


def test_a_single_point_is_no_plateau():
    assert levels.find_plateaus([(1, 1.0), (2, 5.0), (4, 25.0)], 10) == []


def test_recorded_latency_steps_at_the_l1_and_l2_sizes(capsys):
    doc = load("hierarchy.json")  # an H100: 256 KiB of L1/shared per SM, 50 MiB of L2
    text, _ = levels.report(doc, 10)
    latency = text[text.index("latency (ns)") :]
    assert "| 1-2 | 128 KiB and 512 KiB | L1/shared per SM 256 KiB | yes |" in latency
    assert "| 2-3 | 16 MiB and 64 MiB | L2 50 MiB | yes |" in latency


def test_a_size_no_step_explains_fails(write_json, capsys):
    doc = copy.deepcopy(load("hierarchy.json"))
    doc["context"]["l2_bytes"] = str(2**30)  # no step near 1 GiB
    doc["benchmarks"] = [b for b in doc["benchmarks"] if "latency" in b["name"]]
    assert levels.main([write_json(doc)]) == 1
    assert "| L2 1 GiB | NO |" in capsys.readouterr().out


def test_no_hierarchy_case_or_a_bad_tolerance_exits_2(write_json, capsys):
    doc = load("async.json")
    assert levels.main([write_json(doc)]) == 2
    assert capsys.readouterr().err.startswith("levels.py: no hierarchy")
    with pytest.raises(SystemExit) as exit_:
        levels.main([write_json(doc), "--tolerance", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == "levels.py: --tolerance 0.0: must be between 0 and 100"


def sweep(l1_last: int, l2_last: int, l1_bytes: int = 256 * 1024, l2_bytes: int = 60 * 2**20) -> dict:
    """A hierarchy/bandwidth sweep from 16 KiB to 1 GiB with three plateaus: 28 TB/s up to
    l1_last, 9 TB/s up to l2_last, 4.5 TB/s after the transition point that follows."""
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "gpu_name": "test GPU",
            "l1_shared_bytes_per_sm": str(l1_bytes),
            "l2_bytes": str(l2_bytes),
        },
        "benchmarks": [],
    }
    ws = 16 * 1024
    while ws <= 2**30:
        gbs = 28000 if ws <= l1_last else 9000 if ws <= l2_last else 6000 if ws == 2 * l2_last else 4500
        name = f"hierarchy/bandwidth/working_set:{ws}/manual_time"
        doc["benchmarks"].append(
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "bytes_per_second": gbs * 1e9,
            }
        )
        ws *= 2
    return doc


def test_a_sweep_whose_steps_sit_at_the_reported_sizes_agrees(write_json, capsys):
    assert levels.main([write_json(sweep(256 * 1024, 32 * 2**20))]) == 0
    out = capsys.readouterr().out
    assert "bandwidth (GB/s): 17 working sets, 3 plateaus" in out
    assert "| 1 | 16 KiB-256 KiB | 2.8e+04 |" in out
    assert "| 2 | 512 KiB-32 MiB | 9000 |" in out
    assert "| 3 | 128 MiB-1 GiB | 4500 |" in out
    assert "| 1-2 | 256 KiB and 512 KiB | L1/shared per SM 256 KiB | yes |" in out
    assert "| 2-3 | 32 MiB and 128 MiB | L2 60 MiB | yes |" in out


def test_a_step_one_doubling_late_still_agrees_two_do_not(write_json, capsys):
    # A cache that keeps much of a set a little larger than itself: the L1 plateau runs to 512 KiB.
    assert levels.main([write_json(sweep(512 * 1024, 32 * 2**20))]) == 0
    assert "| 1-2 | 512 KiB and 1 MiB | L1/shared per SM 256 KiB | yes |" in capsys.readouterr().out
    assert levels.main([write_json(sweep(1024 * 1024, 32 * 2**20))]) == 1
    out = capsys.readouterr().out
    assert "| - | no step around it | L1/shared per SM 256 KiB | NO |" in out
    assert "| 1-2 | 1 MiB and 2 MiB | (none) | info |" in out  # the step is shown, unexplained


def test_a_step_no_size_explains_is_information_not_failure(write_json, capsys):
    doc = sweep(256 * 1024, 32 * 2**20)
    del doc["context"]["l2_bytes"]  # the file says nothing of an L2
    assert levels.main([write_json(doc)]) == 0
    assert "| 2-3 | 32 MiB and 128 MiB | (none) | info |" in capsys.readouterr().out


def test_plateaus_need_two_points_within_the_tolerance():
    # 100 and 122: each within 10% of their median 111 (11 <= 11.1); 100 and 123 are not (11.5 > 11.15).
    assert [(p.first, p.last) for p in levels.find_plateaus([(1, 100.0), (2, 122.0)], 10)] == [(1, 2)]
    assert levels.find_plateaus([(1, 100.0), (2, 123.0)], 10) == []
    assert levels.find_plateaus([(4, 5.0), (1, 5.0), (2, 5.0)], 1)[0].first == 1  # sorted by working set


def test_size_names():
    assert [levels.size(n) for n in (512, 1024, 1536, 2**20, 60 * 2**20, 2**30, 2**34)] == [
        "512 B",
        "1 KiB",
        "1.5 KiB",
        "1 MiB",
        "60 MiB",
        "1 GiB",
        "16 GiB",
    ]


def test_the_whole_report_of_a_sweep(write_json, capsys):
    doc = sweep(256 * 1024, 32 * 2**20)
    for ws, ns in ((16 * 1024, 30.0), (32 * 1024, 31.0), (1 * 2**20, 250.0), (2 * 2**20, 260.0)):
        name = f"hierarchy/latency/working_set:{ws}/chase_stride:128/manual_time"
        doc["benchmarks"].append(
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "latency_ns": ns,
            }
        )
    assert levels.main([write_json(doc)]) == 1  # the latency curve has no step at the L2
    assert (
        capsys.readouterr().out
        == """\
bandwidth (GB/s): 17 working sets, 3 plateaus
| plateau | working sets | value |
| --- | --- | ---: |
| 1 | 16 KiB-256 KiB | 2.8e+04 |
| 2 | 512 KiB-32 MiB | 9000 |
| 3 | 128 MiB-1 GiB | 4500 |
| boundary | between | device reports | agrees |
| --- | --- | ---: | --- |
| 1-2 | 256 KiB and 512 KiB | L1/shared per SM 256 KiB | yes |
| 2-3 | 32 MiB and 128 MiB | L2 60 MiB | yes |

latency (ns), chase_stride 128: 4 working sets, 2 plateaus
| plateau | working sets | value |
| --- | --- | ---: |
| 1 | 16 KiB-32 KiB | 30.5 |
| 2 | 1 MiB-2 MiB | 255 |
| boundary | between | device reports | agrees |
| --- | --- | ---: | --- |
| 1-2 | 32 KiB and 1 MiB | L1/shared per SM 256 KiB | yes |
| - | no step around it | L2 60 MiB | NO |

"""
    )


@pytest.mark.parametrize(
    "l2_bytes, agrees",
    [
        (128 * 2**20, True),  # the first set of the next plateau
        (128 * 2**20 + 1, False),
        (16 * 2**20, True),  # half the last set of the plateau before
        (16 * 2**20 - 1, False),
    ],
)
def test_a_reported_size_agrees_from_half_the_last_set_before_to_the_first_after(l2_bytes, agrees):
    text, agree = levels.report(sweep(256 * 1024, 32 * 2**20, l2_bytes=l2_bytes), 10)
    assert agree is agrees
    assert ("| 2-3 | 32 MiB and 128 MiB | L2 " in text) is agrees


def test_a_point_exactly_at_the_tolerance_stays_on_the_plateau():
    # 100 and 300: median 200, each 100 from it, exactly 50% of it.
    assert [(p.first, p.last, p.value) for p in levels.find_plateaus([(1, 100.0), (2, 300.0)], 50)] == [(1, 2, 200.0)]
    assert levels.find_plateaus([(1, 100.0), (2, 300.0)], 49.9) == []


def test_only_warm_hierarchy_cases_that_ran_make_the_curves():
    doc = sweep(256 * 1024, 32 * 2**20)
    extra = [
        ("hierarchy/bandwidth/l2:cold/working_set:16384", {"bytes_per_second": 1e15}),  # cold: another experiment
        ("hierarchy/bandwidth/working_set:big", {"bytes_per_second": 1e9}),  # not a size
        ("global/coalesced/working_set:16384", {"bytes_per_second": 1e9}),  # not the hierarchy
        (
            "dsmem/latency/working_set:16384/chase_stride:64",
            {"latency_ns": 99.0},
        ),  # another family's variant of the name
        ("peer/device_to_device_latency_sm/working_set:16384/chase_stride:64", {"latency_ns": 849.0}),
        ("hierarchy/bandwidth/working_set:24576", {"error_occurred": True, "error_message": "wrong"}),
        ("hierarchy/bandwidth/working_set:40960", {"bytes_per_second": 0.0}),  # nothing measured
        ("hierarchy/latency/working_set:16384/chase_stride:64", {"latency_ns": 20.0, "bytes_per_second": 5e9}),
        ("hierarchy/latency/working_set:65536/chase_stride:64", {"latency_ns": 0.0}),
    ]
    doc["benchmarks"][:0] = [
        {
            "name": f"{n}/manual_time",
            "run_name": f"{n}/manual_time",
            "run_type": "iteration",
            "real_time": 1.0,
            "time_unit": "us",
            **extra_keys,
        }
        for n, extra_keys in extra
    ]
    found = levels.curves(doc)
    assert sorted(found) == ["bandwidth (GB/s)", "latency (ns), chase_stride 64"]
    assert len(found["bandwidth (GB/s)"]) == 17 and (16384, 28000.0) in found["bandwidth (GB/s)"]
    assert found["latency (ns), chase_stride 64"] == [(16384, 20.0)]


@pytest.mark.parametrize("tolerance, code", [("0.5", 0), ("99.5", None), ("100", 2), ("0", 2), ("-1", 2), ("nan", 2)])
def test_the_tolerance_is_a_percentage_strictly_between_0_and_100(write_json, capsys, tolerance, code):
    path = write_json(sweep(256 * 1024, 32 * 2**20))
    if code == 2:
        with pytest.raises(SystemExit) as exit_:
            levels.main([path, "--tolerance", tolerance])
        assert exit_.value.code == 2
        assert capsys.readouterr().err.endswith(": must be between 0 and 100\n")
    else:
        assert levels.main([path, "--tolerance", tolerance]) in (0, 1)
        assert capsys.readouterr().err == ""
