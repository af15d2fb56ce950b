"""Shared fixtures: real membench JSON recorded on an H200, and builders for
constructed variants of it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture
def h200_global() -> dict:
    """membench --n=2^28 --vec=1,2,4 --ilp=1,2,4,8 --benchmark_filter=^global/ on an H200."""
    return load("h200_global_2p28.json")


@pytest.fixture
def write_json(tmp_path):
    """Writes a document to a fresh file and returns its path."""
    counter = iter(range(10_000))

    def write(doc: dict) -> str:
        path = tmp_path / f"doc{next(counter)}.json"
        path.write_text(json.dumps(doc))
        return str(path)

    return write


def with_repetitions(doc: dict, name_prefix: str, values: list[float], metric: str = "bytes_per_second") -> dict:
    """A copy of `doc` whose case starting with `name_prefix` has one run per value."""
    out = copy.deepcopy(doc)
    template = next(b for b in out["benchmarks"] if b["name"].startswith(name_prefix) and not b.get("error_occurred"))
    runs = []
    for i, v in enumerate(values):
        run = copy.deepcopy(template)
        run[metric] = v
        run["repetitions"] = len(values)
        run["repetition_index"] = i
        runs.append(run)
    index = out["benchmarks"].index(template)
    out["benchmarks"][index : index + 1] = runs
    return out


def scaled(doc: dict, name_prefix: str, factor: float, metric: str = "bytes_per_second") -> dict:
    out = copy.deepcopy(doc)
    for b in out["benchmarks"]:
        if b["name"].startswith(name_prefix) and metric in b:
            b[metric] *= factor
    return out


def with_aggregates(doc: dict) -> dict:
    """A copy of `doc` as Google Benchmark writes it with --benchmark_repetitions: after each case's
    repetitions, its mean, median, stddev and cv entries (run_type "aggregate", named <case>_mean ...),
    whose values differ from the repetitions' so that reading them as repetitions shows."""
    out = copy.deepcopy(doc)
    entries = []
    by_case: dict[str, list[dict]] = {}
    for b in out["benchmarks"]:
        by_case.setdefault(b.get("run_name", b["name"]), []).append(b)
    for name, runs in by_case.items():
        entries.extend(runs)
        if runs[0].get("error_occurred") or runs[0].get("skipped"):
            continue
        for aggregate in ("mean", "median", "stddev", "cv"):
            entry = copy.deepcopy(runs[0])
            entry.update(
                name=f"{name}_{aggregate}",
                run_name=name,
                run_type="aggregate",
                aggregate_name=aggregate,
                repetitions=len(runs),
            )
            for key, value in entry.items():
                if key in ("bytes_per_second", "real_time", "latency_ns") and isinstance(value, (int, float)):
                    entry[key] = value * 1000.0  # far from any repetition
            entries.append(entry)
    out["benchmarks"] = entries
    return out
