"""The result file's schema (schema/result.schema.json): every result file the binary wrote on a GPU and the
repository keeps passes it, and each part a fuzzer breaks is named, in one line, by every script."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from membench import results as mr
from membench import schema

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "benchmarks/results/h100/2026-12-05-every-architecture/default.json"


def committed_results() -> list[Path]:
    out = []
    for path in sorted((ROOT / "benchmarks/results").rglob("*.json")):
        text = path.read_text()
        if '"benchmarks"' in text[:200000] and '"membench_version"' in text:
            out.append(path)
    return out


def test_the_schema_is_a_valid_json_schema_document():
    assert schema.validator() is not None  # check_schema raised otherwise


def test_every_committed_result_file_passes_it():
    paths = committed_results()
    assert len(paths) >= 20
    failing = {}
    for path in paths:
        doc = json.loads(path.read_text())
        if isinstance(doc, dict) and isinstance(doc.get("context"), dict) and "membench_version" in doc["context"]:
            if (why := schema.problem(doc)) is not None:
                failing[str(path.relative_to(ROOT))] = why
    assert failing == {}


BROKEN = [
    (lambda d: d["benchmarks"][0].__setitem__("run_type", 5), "benchmarks[0].run_type"),
    (lambda d: d["benchmarks"][0].__setitem__("error_occurred", "false"), "benchmarks[0].error_occurred"),
    (lambda d: d["membench"]["cases"][0].__setitem__("axes", "x"), "membench.cases[0].axes"),
    (lambda d: d["membench"]["cases"][0]["axes"].__setitem__(0, 7), "membench.cases[0].axes[0]"),
    (lambda d: d["membench"]["cases"][0].__setitem__("tags", [1]), "membench.cases[0].tags"),
    (lambda d: d["membench"].__setitem__("families", [1]), "membench.families"),
    (lambda d: d["membench"]["families"]["async"].__setitem__("axes", 5), "membench.families.async.axes"),
    (lambda d: d["membench"]["counters"]["latency_ns"].__setitem__("better", "sideways"), "membench.counters"),
]


@pytest.mark.parametrize("edit, place", BROKEN, ids=[p for _, p in BROKEN])
def test_each_broken_part_is_named_in_one_line(tmp_path, edit, place):
    doc = copy.deepcopy(json.loads(RECORDED.read_text()))
    edit(doc)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(mr.InputError) as refused:
        mr.load(path)
    line = str(refused.value)
    assert line.startswith(f"{path}: {place}") and "\n" not in line, line


@pytest.mark.parametrize(
    "text, why",
    [
        ('{"context": {"membench_version": "1", "membench_version": "2"}, "benchmarks": []}', "given twice"),
        ('{"context": {"membench_version": "1"}, "benchmarks": [{"name": "a\\u0000b"}]}', "NUL character"),
        ('{"context": {"membench_version": "1"}, "benchmarks": [{"name": "a\\ud800"}]}', "lone surrogate"),
    ],
)
def test_what_the_parser_would_take_is_refused_in_one_line(tmp_path, text, why):
    path = tmp_path / "hostile.json"
    path.write_text(text)
    with pytest.raises(mr.InputError) as refused:
        mr.load(path)
    assert why in str(refused.value) and "\n" not in str(refused.value)
