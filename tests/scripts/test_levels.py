"""levels.py: plateaus of the hierarchy curves and the boundaries against the device's sizes."""
from __future__ import annotations

import copy

import levels
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


def test_recorded_h200_latency_steps_at_the_l1_and_l2_sizes(capsys):
    doc = load("h200_hierarchy.json")
    text, _ = levels.report(doc, 10)
    latency = text[text.index("latency (ns)"):]
    assert "| L1/shared per SM 256 KiB | yes |" in latency
    assert "| L2 60 MiB | yes |" in latency


def test_a_size_no_step_explains_fails(write_json, capsys):
    doc = copy.deepcopy(load("h200_hierarchy.json"))
    doc["context"]["l2_bytes"] = str(2**30)  # no step near 1 GiB
    doc["benchmarks"] = [b for b in doc["benchmarks"] if "latency" in b["name"]]
    assert levels.main([write_json(doc)]) == 1
    assert "| L2 1 GiB | NO |" in capsys.readouterr().out


def test_no_hierarchy_case_or_a_bad_tolerance_exits_2(write_json, capsys):
    doc = load("h200_async.json")
    assert levels.main([write_json(doc)]) == 2
    assert capsys.readouterr().err.startswith("levels.py: no hierarchy")
    with pytest.raises(SystemExit) as exit_:
        levels.main([write_json(doc), "--tolerance", "0"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == "levels.py: --tolerance 0.0: must be between 0 and 100"
