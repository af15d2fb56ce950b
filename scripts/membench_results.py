"""Reading the JSON that membench writes (Google Benchmark's JSON format).

Pure functions over the parsed document; the scripts share them.
"""
from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
_PARAM = re.compile(r"^([A-Za-z_]+):(-?\d+)$")


class InputError(Exception):
    """The input is not something these scripts can read."""


@dataclass
class Case:
    """One benchmark case: its iteration runs (one per repetition) or its error."""

    name: str
    family: str
    variant: str
    params: dict[str, int]
    runs: list[dict] = field(default_factory=list)
    error: str | None = None

    def values(self, metric: str) -> list[float]:
        """The metric of every repetition; times are converted to nanoseconds."""
        out = []
        for run in self.runs:
            if metric in ("real_time", "cpu_time"):
                # Per launch: an iteration of a short case is a batch of launches.
                launches = float(run.get("launches_per_iteration", 1.0)) or 1.0
                out.append(float(run[metric]) * TIME_UNIT_NS.get(run.get("time_unit", "ns"), 1.0) / launches)
            elif metric in run:
                out.append(float(run[metric]))
        return out

    def median(self, metric: str) -> float | None:
        values = self.values(metric)
        return statistics.median(values) if values else None


def load(path: str | Path) -> dict:
    """Reads and checks a Google Benchmark JSON file; raises InputError."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from e
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list) or not isinstance(
        doc.get("context"), dict
    ):
        raise InputError(f"{path}: not Google Benchmark JSON (no 'context' and 'benchmarks')")
    return doc


def parse_name(name: str) -> tuple[str, str, dict[str, int]]:
    """'global/strided/n:1024/stride:2/manual_time' -> ('global', 'strided', {'n': 1024, 'stride': 2})."""
    parts = name.split("/")
    params = {}
    for part in parts[2:]:
        m = _PARAM.match(part)
        if m:
            params[m.group(1)] = int(m.group(2))
    family = parts[0]
    variant = parts[1] if len(parts) > 1 else ""
    return family, variant, params


def cases(doc: dict) -> dict[str, Case]:
    """The cases of a document, in run order, keyed by run name (aggregates ignored)."""
    out: dict[str, Case] = {}
    for entry in doc["benchmarks"]:
        if entry.get("run_type", "iteration") != "iteration":
            continue
        name = entry.get("run_name", entry.get("name", ""))
        if name not in out:
            family, variant, params = parse_name(name)
            out[name] = Case(name, family, variant, params)
        case = out[name]
        if entry.get("error_occurred") or entry.get("skipped"):
            case.error = entry.get("error_message") or entry.get("skip_message") or "error"
        else:
            case.runs.append(entry)
    return out


def gpu_name(doc: dict) -> str:
    return str(doc.get("context", {}).get("gpu_name", "unknown GPU"))


def context_number(doc: dict, key: str) -> float | None:
    value = doc.get("context", {}).get(key)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
