"""Reading the JSON that membench writes (Google Benchmark's JSON format).

Pure functions over the parsed document; the scripts share them. Anything a
script cannot read raises InputError, whose message is the one line to print.

What a number means (its unit, which way is better, whether it is a
measurement, a model's prediction, configuration or a health mark) is read
from the file's "membench" object, written by the binary: meaning() and
better(). A file of an older schema is upgraded to today's as it is loaded
(membench.compat); nothing here knows an old schema. A name given outside
a file (a history's, a reference's, a flag's) is read under today's axis
names by current_name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from membench import compat
from membench.case import (  # noqa: F401 (the names every script reads from here)
    CHANGE_THRESHOLD,
    CLOCK_EVENT_MARKS,
    CLOCK_EVENTS,
    HOST_NOISE_WIDTHS,
    NOISE_THRESHOLD,
    PER_ITERATION,
    POWER_CAP,
    SLOWDOWN_MARKS,
    TIME_UNIT_NS,
    TIMES,
    Case,
    CaseName,
    InputError,
    clock_event_names,
    number,
)
from membench.loading import (  # noqa: F401
    MAX_INPUT_BYTES,
    SCHEMA_VERSION,
    SCHEMA_VERSIONS,
    current,
    SCHEMAS_READ,
    check,
    load,
    read_input,
)

_SKIPPED_PREFIX = "skipped: "  # how Google Benchmark 1.7, which has no skip, shows membench's skips


@dataclass(frozen=True)
class Meaning:
    """What a counter means: its unit, which way is better (higher, lower,
    neither) and its kind (measured, model, configuration, health)."""

    unit: str
    better: str
    kind: str
    description: str = ""


def meaning(doc: dict, metric: str) -> Meaning:
    """The meaning the file's catalog gives a counter (or real_time, cpu_time); "undeclared" where it gives none."""
    doc = current(doc)
    counters = doc.get("membench", {}).get("counters") if isinstance(doc.get("membench"), dict) else None
    entry = counters.get(metric) if isinstance(counters, dict) else None
    if not isinstance(entry, dict):
        return Meaning("", "neither", "undeclared")
    return Meaning(
        str(entry.get("unit", "")),
        str(entry.get("better", "neither")),
        str(entry.get("kind", "undeclared")),
        str(entry.get("description", "")),
    )


def better(doc: dict, metric: str) -> str:
    """'higher', 'lower' or 'neither', as the file says."""
    return meaning(doc, metric).better


def _declares(doc: dict, metric: str) -> bool:
    """Whether a file says what a counter means: its catalog names it."""
    doc = current(doc)
    counters = doc.get("membench", {}).get("counters") if isinstance(doc.get("membench"), dict) else None
    return isinstance(counters, dict) and isinstance(counters.get(metric), dict)


def require_direction(docs: list[dict], metric: str) -> str:
    """The direction every file gives a metric a gate judges; an InputError when it has none or they differ. A file
    whose catalog does not declare the metric (written before the counter existed) has no say."""
    docs = [d for d in docs if _declares(d, metric)] or docs

    found = {better(d, metric) for d in docs}
    if found == {"higher"} or found == {"lower"}:
        return found.pop()
    if len(found) > 1:
        raise InputError(f"--metric {metric}: the files disagree on which way is better ({', '.join(sorted(found))})")
    kind = {meaning(d, metric).kind for d in docs}.pop()
    raise InputError(
        f"--metric {metric}: a {kind} counter, with no better direction; a gate needs a measurement "
        "such as bytes_per_second, latency_ns or updates_per_second"
    )


def frozen_axes(parsed: CaseName) -> CaseName:
    """A case under today's axis names and with the axes added before the catalog declared them (the
    compatibility module's frozen tables)."""
    return CaseName(parsed.family, parsed.variant, compat.today_parts(parsed.family, parsed.variant, parsed.parts))


def current_name(name: str) -> tuple[str, CaseName]:
    """A run name of a file written before its catalog carried the cases as data, read by the compatibility
    module, under today's axis names and axes; and its parts. The name as it is where nothing changed."""
    try:
        parsed = CaseName(*compat.parse_old_name(name))
    except ValueError as e:
        raise InputError(str(e)) from e
    today = frozen_axes(parsed)
    if today == parsed:
        return name, parsed
    return today.format("/manual_time" if name.endswith("/manual_time") else ""), today


def stopped(doc: dict) -> str:
    """Why the run ended before its last case, as the binary wrote it ("interrupted by SIGTERM": a signal
    stopped it, every case not yet run is skipped with that reason, the file is whole and its measured cases
    stand); "" for a run that reached its end or a file without an `end`."""
    membench = doc.get("membench")
    end = membench.get("end") if isinstance(membench, dict) else None
    return str(end.get("stopped") or "") if isinstance(end, dict) else ""


def ending(doc: dict) -> str:
    """How the run ended, in words: reached its end, stopped by a signal (how many cases never ran), or killed."""
    if not complete(doc):
        return "killed before its end: its cases are untrusted"
    if not (why := stopped(doc)):
        return "reached its end"
    end = doc["membench"]["end"]
    counts = f": {end['cases_not_run']} of {end['cases_selected']} cases never ran" if "cases_selected" in end else ""
    return f"stopped ({why}){counts}"


def complete(doc: dict) -> bool:
    """Whether the run reached its end: False for the file of a process killed
    before it (membench writes "complete": false until the last case is in).
    A file written before membench said so was whole JSON, so complete."""
    membench = doc.get("membench")
    return not isinstance(membench, dict) or membench.get("complete", True) is not False


def catalog(doc: dict) -> dict[str, dict]:
    """The file's own list of its cases (membench.cases: family, variant, tags and axes as data), by name;
    empty for a file written before the list travelled with it."""
    doc = current(doc)
    listed = (doc.get("membench") or {}).get("cases") if isinstance(doc.get("membench"), dict) else None
    if not isinstance(listed, list):
        return {}
    return {c["name"]: c for c in listed if isinstance(c, dict) and isinstance(c.get("name"), str)}


def axes_before(*docs: dict) -> dict[str, dict[str, int | str]]:
    """Per family, the value its cases had before each axis added to it later, as the files' catalogs
    declare it ("before"): what a case of an older file that lacks the axis stands for."""
    out: dict[str, dict[str, int | str]] = {}
    for doc in map(current, docs):
        for entry in catalog(doc).values():  # a case's axes say it too (and a --list_cases=json listing)
            for axis in entry.get("axes", []):
                if isinstance(axis, dict) and "before" in axis:
                    out.setdefault(entry.get("family"), {})[axis["name"]] = axis["before"]
        families = (doc.get("membench") or {}).get("families") if isinstance(doc.get("membench"), dict) else None
        for family, declared in (families or {}).items():
            for axis in declared.get("axes", []) if isinstance(declared, dict) else []:
                if isinstance(axis, dict) and "before" in axis:
                    value, names = axis["before"], axis.get("names")
                    out.setdefault(family, {})[axis["name"]] = names[value] if names else value
    return out


def variant_axes(*docs: dict) -> dict[tuple[str, str], tuple[str, ...]]:
    """The axes each variant's cases have, in their order, as the newest of the files' catalogs lists them."""
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for doc in map(current, docs):
        for entry in catalog(doc).values():
            axes = tuple(a["name"] for a in entry.get("axes", []) if isinstance(a, dict) and "name" in a)
            key = (entry.get("family"), entry.get("variant"))
            if len(axes) >= len(out.get(key, ())):
                out[key] = axes
    return out


def listed_name(entry: dict) -> CaseName:
    """A case of the catalog as data: its tags, then its axes (a named axis by its name)."""
    tags = tuple((k, v) for k, v in (entry.get("tags") or {}).items())
    axes = tuple((a["name"], a["value"]) for a in entry.get("axes", []))
    return CaseName(entry["family"], entry["variant"], tags + axes)


def with_axes_added(parsed: CaseName, before: dict, shape: tuple[str, ...]) -> CaseName:
    """A case of a file written before some of its variant's axes were added, with the values its cases had
    then, its axes in today's order."""
    known = before.get(parsed.family, {})
    missing = [a for a in shape if a not in parsed.params and a in known]
    if not missing:
        return parsed
    params = {**parsed.params, **{a: known[a] for a in missing}}
    tags = tuple(p for p in parsed.parts if p[0] not in shape)
    return CaseName(parsed.family, parsed.variant, tags + tuple((a, params[a]) for a in shape if a in params))


def cases(doc: dict, *others: dict) -> dict[str, Case]:
    """The cases of a document, in run order, keyed by run name under today's axis names (aggregates
    ignored). Each case's tags and axes come from the file's catalog; a file written before the catalog
    has its names read by the compatibility module. An axis the file's cases lack that the catalogs of
    the file and of `others` (the files it is read beside) say was added later takes the value its cases
    had before, so a case reads as the same case on either side of the axis."""
    doc, others = current(doc), tuple(map(current, others))
    out: dict[str, Case] = {}
    whole = complete(doc)
    listed = catalog(doc)
    before = axes_before(doc, *others)
    shapes = variant_axes(doc, *others)
    for entry in doc["benchmarks"]:
        if entry.get("run_type", "iteration") != "iteration":
            continue
        name = entry.get("run_name", entry["name"])
        if not isinstance(name, str):
            raise InputError(f"{entry['name']}: 'run_name' is not a string")
        try:
            # As data, from the catalog (an older file's was made at load, under today's axis names).
            parsed = listed_name(listed[name]) if name in listed else CaseName.parse(name)
        except ValueError as e:
            raise InputError(str(e)) from e
        name = parsed.format("/manual_time" if name.endswith("/manual_time") else "")
        filled = with_axes_added(parsed, before, shapes.get((parsed.family, parsed.variant), ()))
        if filled != parsed:
            parsed, name = filled, filled.format("/manual_time" if name.endswith("/manual_time") else "")
        if name not in out:
            out[name] = Case(name, parsed.family, parsed.variant, parsed.params, run_complete=whole)
        case = out[name]
        message = str(entry.get("error_message") or entry.get("skip_message") or "")
        if entry.get("skipped"):
            case.skipped = message or "skipped"
        elif entry.get("error_occurred"):
            if message.startswith(_SKIPPED_PREFIX):
                case.skipped = message[len(_SKIPPED_PREFIX) :]
            else:
                case.error = message or "error"
        else:
            case.runs.append(entry)
    return out


def metrics(doc: dict) -> list[str]:
    """The numeric keys the measured runs carry (counters and times), sorted."""
    found = set()
    for case in cases(doc).values():
        for run in case.runs:
            found.update(k for k, v in run.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    skip = {"family_index", "per_family_instance_index", "repetitions", "repetition_index", "threads", "iterations"}
    return sorted(found - skip)


def require_metric(doc: dict, path: str, metric: str) -> None:
    """A file a gate reads must have cases, and some measured case must carry the metric."""
    found = cases(doc)
    if not found:
        raise InputError(f"{path}: no cases")
    if metric not in metrics(doc):
        raise InputError(f"{path}: no case carries '{metric}' (it has: {', '.join(metrics(doc)) or 'none measured'})")


def devices(doc: dict, path: str) -> dict[int, tuple[str, str]]:
    """The GPUs a file measured, by ordinal: (UUID, name). A run over several
    GPUs lists them in its context's 'devices' (its cases tagged device:K);
    a run on one names it in gpu_ordinal, gpu_uuid and gpu_name."""
    ctx = doc.get("context", {})
    if "devices" in ctx:
        try:
            listed = json.loads(ctx["devices"])
            return {int(d["ordinal"]): (str(d["uuid"]), str(d["name"])) for d in listed}
        except (ValueError, TypeError, KeyError) as e:
            raise InputError(f"{path}: context 'devices' is not a list of devices ({e})") from e
    try:
        ordinal = int(ctx.get("gpu_ordinal", 0))
    except (TypeError, ValueError) as e:
        raise InputError(f"{path}: context 'gpu_ordinal' is not a number") from e
    return {ordinal: (str(ctx.get("gpu_uuid", "unknown-uuid")), gpu_name(doc))}


def gpu_name(doc: dict) -> str:
    return str(doc.get("context", {}).get("gpu_name", "unknown GPU"))


def started(doc: dict) -> datetime | None:
    """When the run started (its context's date), or None."""
    try:
        return datetime.fromisoformat(str(doc.get("context", {}).get("date", "")))
    except ValueError:
        return None


def out_of_order(baseline: dict, contender: dict) -> str | None:
    """What is wrong with the order of two runs given baseline first, or None: the baseline ran after."""
    first, second = started(baseline), started(contender)
    if first is None or second is None or first.tzinfo is None or second.tzinfo is None or first <= second:
        return None
    return f"the baseline ran at {first.isoformat()}, after the contender ({second.isoformat()})"


def context_number(doc: dict, key: str) -> float | None:
    value = doc.get("context", {}).get(key)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
