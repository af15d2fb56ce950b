"""Reading a result file: the bytes refused before they are parsed (a FIFO,
a huge or non-UTF-8 file), the JSON refused where it repeats a key or holds
a NUL or a lone surrogate, the document checked against the schema and
field by field, and an older file upgraded once to today's schema (membench.compat).
Re-exported by membench.results."""

from __future__ import annotations

import copy
import json
import os
import stat
from pathlib import Path

from membench import compat
from membench import schema
from membench.case import TIME_UNIT_NS, InputError, number

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


SCHEMA_VERSION = 4  # the "membench" object's schema_version membench writes now
# What each version these scripts read added: 1 the catalog (counters, cases, families); 2 an axis added to a
# family after its first cases carries "before" (read by axes_before; a version-1 file has none); 3 figures that
# read other cases (model_from, slowdown_vs) and note counters, declared by global, layout and shared too (an
# older file's come from membench.compat); 4 clock_event without the power cap, which power_capped marks, and
# noise_target_pct. A file of an older version, or from before the catalog, is upgraded at load
# (membench.compat.upgrade): what it lacks, made as that version's step says.
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
    return compat.upgrade(doc, SCHEMA_VERSION)


def current(doc: dict) -> dict:
    """The document as today's schema says it. A file read by load() already is (it was upgraded as it was read);
    a document made in memory (a test's, one a script assembles) is upgraded into a copy, by the same upgrade."""
    if compat.schema_of(doc) >= SCHEMA_VERSION or not isinstance(doc.get("benchmarks"), list):
        return doc  # today's, or no result file (a listing's catalog read beside one)
    return compat.upgrade(copy.deepcopy(doc), SCHEMA_VERSION)


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
