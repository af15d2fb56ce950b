"""Reading the JSON that membench writes (Google Benchmark's JSON format).

Pure functions over the parsed document; the scripts share them. Anything a
script cannot read raises InputError, whose message is the one line to print.

What a number means (its unit, which way is better, whether it is a
measurement, a model's prediction, configuration or a health mark) is read
from the file's "membench" object, written by the binary: meaning() and
better(). Files written before that object existed are read through
membench.compat, and only there.
"""

from __future__ import annotations

import json
import math
import os
import stat
import statistics
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from membench import compat
from membench import schema

TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
TIMES = ("real_time", "cpu_time")
PER_ITERATION = (*TIMES, "bytes")
# Google Benchmark's keys whose values are text or true/false; every other key of a run is a number.
_TEXT_KEYS = frozenset(
    {
        "name",
        "run_name",
        "run_type",
        "time_unit",
        "label",
        "error_message",
        "skip_message",
        "aggregate_name",
        "aggregate_unit",
        "error_occurred",
        "skipped",
    }
)
_SKIPPED_PREFIX = "skipped: "  # how Google Benchmark 1.7, which has no skip, shows membench's skips


# NVML's clock event reasons (nvmlClocksEventReason*), and those that mark a
# case: power, thermal, hardware slowdown.
CLOCK_EVENTS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
CLOCK_EVENT_MARKS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80
POWER_CAP = next(bit for bit, name in CLOCK_EVENTS.items() if name == "sw_power_cap")  # the board's power limiter
SLOWDOWN_MARKS = CLOCK_EVENT_MARKS & ~POWER_CAP  # what clock_event marks: a thermal or hardware slowdown

# The noise (percent) at or above which a value is no evidence, where a script
# is given none: compare.py's --threshold, export.py's and history.py's --noise-threshold.
NOISE_THRESHOLD = 5.0

# The change (percent) below which no gate calls a case changed, where a script
# is given none: compare.py's --threshold and history.py check's. One run of one
# binary on one GPU moves some cases a few percent from the next (the default
# run's host copies, a chase at the L1's edge), so a narrower gate fails a
# rerun of the same binary.
CHANGE_THRESHOLD = 5.0

# A host-paced case changes by less than this many times its noise from the
# host alone: the gates need that much before they call it a change.
HOST_NOISE_WIDTHS = 3.0


def clock_event_names(reasons: int) -> str:
    """'sw_power_cap, hw_thermal_slowdown' for the bits set; unknown bits in hex."""
    names = [name for bit, name in CLOCK_EVENTS.items() if reasons & bit]
    rest = reasons & ~sum(CLOCK_EVENTS)
    if rest:
        names.append(hex(rest))
    return ", ".join(names) or "none"


class InputError(Exception):
    """The input is not something these scripts can read."""


@dataclass(frozen=True)
class CaseName:
    """A case's name as data, the mirror of membench's CaseId:
    family/variant[/key:value...][/manual_time]. The keys are membench's tags
    (how the case runs: device, l2) and then the family's axes; the scripts
    read both alike, by key, so a new tag needs nothing here."""

    family: str
    variant: str
    parts: tuple[tuple[str, int | str], ...] = ()

    @property
    def params(self) -> dict[str, int | str]:
        """Tags and axes by key ({'l2': 'cold', 'n': 1024})."""
        return dict(self.parts)

    def without(self, *keys: str) -> CaseName:
        """The same case without these tags or axes (device: the name on every GPU; l2: the warm case)."""
        return CaseName(self.family, self.variant, tuple(p for p in self.parts if p[0] not in keys))

    def renamed(self, names: dict[str, str]) -> CaseName:
        """The same case with these keys renamed."""
        return CaseName(self.family, self.variant, tuple((names.get(k, k), v) for k, v in self.parts))

    def format(self, suffix: str = "/manual_time") -> str:
        return "/".join([self.family, self.variant, *(f"{k}:{v}" for k, v in self.parts)]) + suffix


@dataclass
class Case:
    """One benchmark case: its iteration runs (one per repetition), or why it did not run."""

    name: str
    family: str
    variant: str
    params: dict[str, int | str]
    runs: list[dict] = field(default_factory=list)
    error: str | None = None  # failed: a wrong result or a CUDA error
    skipped: str | None = None  # could not run on this GPU, with the reason
    run_complete: bool = True  # False: the process was killed before the run's end (its file says)

    def name_without(self, *keys: str, suffix: str = "/manual_time") -> str:
        """This case's name without these tags or axes, made from its parts, not parsed from its name
        (device: its name on every GPU)."""
        parts = tuple((k, v) for k, v in self.params.items() if k not in keys)
        return CaseName(self.family, self.variant, parts).format(suffix)

    def values(self, metric: str) -> list[float]:
        """The metric of every repetition, as numbers; times (in nanoseconds) and bytes per launch."""
        out = []
        for run in self.runs:
            if metric not in run:
                continue
            value = number(run[metric], f"{self.name}: '{metric}'")
            if metric in TIMES:
                unit = run.get("time_unit", "ns")
                if unit not in TIME_UNIT_NS:
                    raise InputError(f"{self.name}: unknown time_unit '{unit}'")
                value *= TIME_UNIT_NS[unit]
            # Files written before one iteration was one launch: an iteration
            # (and its bytes) was a batch of launches_per_iteration launches.
            if metric in PER_ITERATION and "launches_per_iteration" in run:
                value /= number(run["launches_per_iteration"], f"{self.name}: 'launches_per_iteration'") or 1.0
            out.append(value)
        return out

    def median(self, metric: str) -> float | None:
        values = self.values(metric)
        return statistics.median(values) if values else None

    def most(self, key: str) -> float | None:
        """The largest value of a counter over the repetitions (a mark any of them has counts)."""
        found = [number(run[key], f"{self.name}: '{key}'") for run in self.runs if key in run]
        return max(found) if found else None

    @property
    def host_paced(self) -> bool:
        """The host paces this case's time and noise (pageable staging, a small copy's round
        trip, page faults): its noise is the host's, not a sign of a shared GPU. A file
        written before the binary marked such cases is read as membench.compat says."""
        marked = self.most("host_paced")
        if marked is None and self.runs:
            return compat.old_host_paced(self.family, self.variant)
        return (marked or 0) >= 1

    def host_noise_pct(self) -> float:
        """The change (percent) this case's own noise allows where the host paces it: HOST_NOISE_WIDTHS times
        its noise; 0 for a case the GPU paces. Every gate widens by this, and only by this."""
        return HOST_NOISE_WIDTHS * (self.most("noise_pct") or 0) if self.host_paced else 0.0

    def gate_threshold(self, other: Case, threshold: float) -> float:
        """The change (percent) a gate needs to see between this case and `other`: the
        threshold, or for a host-paced case HOST_NOISE_WIDTHS times the larger noise of the two."""
        return max(threshold, self.host_noise_pct(), other.host_noise_pct())

    def doubts(self, noise_threshold: float) -> list[str]:
        """Why this case's measurement is no evidence at this noise threshold
        (percent); empty when it is. This is the one trust rule: compare,
        fleet, history, export, reference and the report all ask it. Another
        process held the GPU, a power, thermal or hardware clock event,
        batches dropped for a low clock, noise unknown, or noise at or above
        the threshold, in any repetition (the power cap alone, power_capped,
        is the case's own draw and no doubt); or the run was
        killed before its end. A host-paced case is doubted alike: its noise
        is the host's, but a value that noisy is no evidence of anything;
        where it is trusted, gate_threshold widens the change it must show. A
        consumer that tests the repetitions' spread itself (compare's
        Mann-Whitney test) passes an infinite threshold."""
        most = self.most
        out = [] if self.run_complete else ["run incomplete (the process ended before the run did)"]
        if (others := most("contended")) and others >= 1:
            count = most("other_processes") or 1
            out.append(f"contended ({count:g} other process{'es' if count != 1 else ''} on the GPU)")
        if (event := most("clock_event")) and event >= 1:  # a thermal or hardware slowdown, as the binary marks it
            reasons = 0
            for run in self.runs:
                reasons |= int(number(run.get("clock_event_reasons", 0), f"{self.name}: 'clock_event_reasons'"))
            out.append(f"clock event ({clock_event_names(reasons & SLOWDOWN_MARKS)})")
        if (throttled := most("throttled_batches")) and throttled > 0:
            out.append(f"throttled ({throttled:g} batches below the clock threshold)")
        noise = most("noise_pct")
        if noise is not None and noise < 0:
            out.append("noise unknown (fewer than two batches)")
        elif noise is not None and noise >= noise_threshold:
            paced = "host-paced, " if self.host_paced else ""
            out.append(f"{paced}noise {noise:.3g}% >= the {noise_threshold:g}% threshold")
        return out


def number(value: object, what: str) -> float:
    """A JSON number as float; anything else is an InputError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{what} is not a number ({json.dumps(value)[:40]})")
    return float(value)


SCHEMA_VERSION = 4  # the "membench" object's schema_version membench writes now
# What each version these scripts read added: 1 the catalog (counters, cases, families); 2 an axis added to a
# family after its first cases carries "before" (read by axes_before; a version-1 file has none); 3 figures that
# read other cases (model_from, slowdown_vs) and note counters, declared by global, layout and shared too (an
# older file's come from membench.compat); 4 clock_event without the power cap, which power_capped marks, and
# noise_target_pct (an older file's marks are upgraded at load by membench.compat.upgrade_marks).
SCHEMA_VERSIONS = (1, 2, 3, 4)
SCHEMAS_READ = ", ".join(map(str, SCHEMA_VERSIONS[:-1])) + f" and {SCHEMA_VERSIONS[-1]}"  # "1, 2, 3 and 4"


MAX_INPUT_BYTES = 512 << 20  # far more than any result file, reference or profile


def read_input(path: str | Path, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The text of a regular file, as the scripts read every input: a FIFO, a
    device or a folder is refused before a byte is read (it is opened without
    blocking), and so is a file over max_bytes or not UTF-8; an InputError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from e
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file")
        if info.st_size > max_bytes:
            raise InputError(f"{path}: {info.st_size} bytes; an input is read up to {max_bytes}")
        chunks, size = [], 0
        while size <= max_bytes and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from e
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise InputError(f"{path}: more than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (a byte at {e.start})") from e


def _strings(value: object):
    """Every key and string a parsed document holds."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            yield from v.keys()
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


class _KeyTwice(ValueError):
    pass


def _no_key_twice(pairs: list[tuple[str, object]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise _KeyTwice(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return out


def load(path: str | Path) -> dict:
    """Reads and checks a membench result file; raises InputError."""
    text = read_input(path)
    try:
        doc = json.loads(text, object_pairs_hook=_no_key_twice)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from e
    except _KeyTwice as e:  # the parser would keep the last silently
        raise InputError(f'{path}: not a result file ("{str(e)[:60]}" is given twice in one object)') from e
    except RecursionError as e:
        raise InputError(f"{path}: not a result file (nested too deep to read)") from e
    except ValueError as e:  # an integer of thousands of digits
        raise InputError(f"{path}: not a result file ({str(e).split(';')[0][:80]})") from e
    for text in _strings(doc):
        if "\x00" in text:  # an escaped NUL, which would cut a name wherever C reads it
            raise InputError(f"{path}: not a result file (text holding a NUL character, {text[:40]!a})")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:  # "\ud800": a lone surrogate, which no name or text can print
            raise InputError(f"{path}: not a result file (text holding a lone surrogate, {text[:40]!a})") from e
    check(doc, str(path))
    compat.upgrade_marks(doc)
    return doc


def check(doc: object, path: str) -> None:
    """That a parsed document is a membench result these scripts can read; raises InputError."""
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("benchmarks"), list)
        or not isinstance(doc.get("context"), dict)
    ):
        raise InputError(f"{path}: not Google Benchmark JSON (no 'context' and 'benchmarks')")
    if "membench_version" not in doc["context"]:
        raise InputError(f"{path}: not a membench result (its context has no membench_version)")
    if not doc["benchmarks"]:
        raise InputError(f"{path}: no cases (its 'benchmarks' list is empty)")
    for i, entry in enumerate(doc["benchmarks"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise InputError(f"{path}: benchmarks[{i}] is not a benchmark (an object with a 'name')")
        if entry.get("error_occurred") or entry.get("skipped") or entry.get("run_type", "iteration") != "iteration":
            continue
        what = f"{path}: {entry['name'][:80]}"
        if number(entry.get("real_time"), f"{what}: 'real_time'") < 0:
            raise InputError(f"{what}: 'real_time' is negative")
        iterations = entry.get("iterations", 1)  # Google Benchmark always writes it; hand-made fixtures may not
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise InputError(f"{what}: 'iterations' is not a count of one or more ({json.dumps(iterations)[:20]})")
        for key, value in entry.items():
            if key in _TEXT_KEYS:
                if not isinstance(value, (str, bool)):
                    raise InputError(f"{what}: '{key}' is not text ({json.dumps(value)[:40]})")
            else:
                number(value, f"{what}: counter '{key}'")  # a string, a list or NaN is no measurement
        if entry.get("time_unit", "ns") not in TIME_UNIT_NS:
            raise InputError(
                f"{path}: {entry['name'][:80]}: unknown time_unit {json.dumps(entry.get('time_unit'))[:20]}"
            )
    membench = doc.get("membench")
    if membench is not None:
        if not isinstance(membench, dict) or not isinstance(membench.get("counters", {}), dict):
            raise InputError(f"{path}: its 'membench' object is not membench's")
        version = membench.get("schema_version")
        if version not in SCHEMA_VERSIONS:
            raise InputError(f"{path}: schema_version {json.dumps(version)[:20]}; these scripts read " + SCHEMAS_READ)
    if (why := schema.problem(doc)) is not None:
        raise InputError(f"{path}: {why}")
    _rates_not_negative(doc, path)


def _rates_not_negative(doc: dict, path: str) -> None:
    """A measured rate or time (a counter the catalog gives a direction) below zero is no measurement."""
    counters = doc.get("membench", {}).get("counters", {}) if isinstance(doc.get("membench"), dict) else {}
    directed = {k for k, v in counters.items() if v.get("kind") == "measured" and v.get("better") != "neither"}
    for entry in doc["benchmarks"]:
        for key in directed.intersection(entry):
            if entry[key] < 0:
                raise InputError(f"{path}: {entry['name'][:80]}: '{key}' is negative ({entry[key]:.6g})")


@dataclass(frozen=True)
class Meaning:
    """What a counter means: its unit, which way is better (higher, lower,
    neither) and its kind (measured, model, configuration, health)."""

    unit: str
    better: str
    kind: str
    description: str = ""


def meaning(doc: dict, metric: str) -> Meaning:
    """The meaning the file gives a counter (or real_time, cpu_time); an older file's through membench.compat."""
    counters = doc.get("membench", {}).get("counters") if isinstance(doc.get("membench"), dict) else None
    if counters is None:
        return Meaning(*compat.old_meaning(metric))
    entry = counters.get(metric)
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
    """Whether a file says what a counter means: its catalog names it, or (a file before the catalog) the
    compatibility module knows it."""
    counters = doc.get("membench", {}).get("counters") if isinstance(doc.get("membench"), dict) else None
    if counters is None:
        return metric in TIMES or metric in compat.OLD_COUNTERS or meaning(doc, metric).better != "neither"
    return isinstance(counters.get(metric), dict)


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
    listed = (doc.get("membench") or {}).get("cases") if isinstance(doc.get("membench"), dict) else None
    if not isinstance(listed, list):
        return {}
    return {c["name"]: c for c in listed if isinstance(c, dict) and isinstance(c.get("name"), str)}


def axes_before(*docs: dict) -> dict[str, dict[str, int | str]]:
    """Per family, the value its cases had before each axis added to it later, as the files' catalogs
    declare it ("before"): what a case of an older file that lacks the axis stands for."""
    out: dict[str, dict[str, int | str]] = {}
    for doc in docs:
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
    for doc in docs:
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
        if name in listed:
            # As data; an axis added before the catalog said so (the frozen table) is filled as for any file.
            parsed = frozen_axes(listed_name(listed[name]))
            name = parsed.format("/manual_time" if name.endswith("/manual_time") else "")
        else:
            name, parsed = current_name(name)
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
