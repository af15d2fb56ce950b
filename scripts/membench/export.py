"""Export a membench run to the formats regression trackers and monitoring read.

    python scripts/export.py RUN.json --format bmf|benchmark-action|benchmark-action-latency|prometheus [--out FILE]

What is exported is what the run's catalog calls a measurement with a
direction: every measured counter that is better higher or lower
(bytes_per_second, updates_per_second, gflops_per_second, latency_ns, ...;
never a model's prediction or the case's configuration). Each value is the
median of the case's repetitions. A case that failed or was skipped has no
value; a case the gates distrust (another process on the GPU, a clock
event, throttled batches, noise at or above --noise-threshold, a killed
run: the doubts every script shares) is left out too, and stderr says how
many. An export that would hold no value is an
error, never an empty success.

bmf: Bencher Metric Format, for `bencher run --adapter json`: each case's
measures, named after the counters (`bytes-per-second`, `updates-per-second`,
...; latency_ns as Bencher's built-in `latency`, in nanoseconds), with the
median as the value and the repetitions' minimum and maximum as the lower
and upper values.

benchmark-action and benchmark-action-latency: github-action-benchmark's
`customBiggerIsBetter` (every higher-is-better rate: bandwidths in GB/s,
update and FLOP rates in G/s) and `customSmallerIsBetter` (every latency, ns)
JSON; `extra` says the repetitions and the noise, and whether the host paces
the case.

prometheus: the Prometheus text format, for node_exporter's textfile
collector, in base units (bytes per second, seconds, ratios, hertz) as
Prometheus' naming conventions ask: one gauge per measured counter and per
health mark (`membench_bytes_per_second`, `membench_latency_seconds`,
`membench_noise_ratio`, ...), one sample per case, labelled `case`,
`family`, `variant`, `gpu_uuid`, `gpu_name` and `host`;
`membench_case_ok` (1 measured, 0 failed or skipped) and
`membench_case_trusted` for every case; the case's configuration as the
labels of `membench_case_info`; `membench_run_complete` (0 for a run a
signal stopped, whose measured cases are exported and the rest never ran,
and for the file of a process killed before its end, whose cases are all
untrusted); and
`membench_run_timestamp_seconds`, when the run started (the textfile
collector takes no sample timestamps). The file (--out) is replaced whole,
by a rename, and is written even when no case is trusted, so that a
collector never goes on serving the previous run's health.

A measured rate of exactly zero in every repetition is a rate that does not
apply (the FLOP rate of a case that computes nothing, in files written
before the binary left it out) and is not exported.

Exit status: 0 written; 1 prometheus, and no case trusted (the status
metrics written all the same); 2 unreadable input, a bad flag, or nothing
to export (the other formats: a killed run's file, or no trusted value).
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

from membench import cli
from membench import results as mr

FORMATS = ("bmf", "benchmark-action", "benchmark-action-latency", "prometheus")
# Units as they are written in the catalog, in Prometheus' base units: (name suffix, factor).
BASE_UNITS = {
    "B/s": ("bytes_per_second", 1.0),
    "B": ("bytes", 1.0),
    "ns": ("seconds", 1e-9),
    "us": ("seconds", 1e-6),
    "%": ("ratio", 0.01),
    "MHz": ("hertz", 1e6),
    "GFLOP/s": ("flops_per_second", 1e9),
    "updates/s": ("updates_per_second", 1.0),
}
# Unit tokens a counter's name may carry, dropped for the base unit's suffix.
UNIT_TOKENS = {"ns", "us", "pct", "mhz"}
# The trackers' units for a rate: (unit shown, divisor).
TRACKER_UNITS = {"B/s": ("GB/s", 1e9), "updates/s": ("Gupdates/s", 1e9), "GFLOP/s": ("GFLOP/s", 1.0)}


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="export.py", description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="JSON written by membench")
    p.add_argument("--format", required=True, choices=FORMATS, help="the output format")
    p.add_argument("--out", help="file to write; without it, standard output")
    p.add_argument(
        "--noise-threshold",
        type=float,
        default=mr.NOISE_THRESHOLD,
        help=f"noise (percent) at or above which a case is left out as untrusted (default {mr.NOISE_THRESHOLD:g}, "
        "as compare.py)",
    )
    return p


def measurements(doc: dict) -> list[str]:
    """The counters the catalog calls measurements with a direction, in the file's order."""
    return [
        m
        for m in mr.metrics(doc)
        if m not in mr.TIMES and mr.meaning(doc, m).kind == "measured" and mr.better(doc, m) != "neither"
    ]


def exported_cases(doc: dict, noise_threshold: float) -> tuple[list[mr.Case], int]:
    """The cases that ran and can be trusted, in the file's order, and how many others ran but are untrusted."""
    ran = [c for c in mr.cases(doc).values() if not c.error and not c.skipped and c.runs]
    trusted = [c for c in ran if not c.doubts(noise_threshold)]
    return trusted, len(ran) - len(trusted)


def applies(case: mr.Case, key: str) -> bool:
    """Whether the case has a value of this measurement: a rate of exactly zero in every repetition is a rate that
    does not apply (a FLOP rate of a case that computes nothing, as files before the binary left it out wrote it)."""
    values = case.values(key)
    return bool(values) and any(v != 0 for v in values)


def spread(case: mr.Case, key: str) -> dict | None:
    values = case.values(key)
    if not applies(case, key):
        return None
    return {"value": case.median(key), "lower_value": min(values), "upper_value": max(values)}


def bmf_measure(counter: str) -> str:
    """A counter's Bencher measure: latency_ns is Bencher's built-in 'latency' (ns); others by their name."""
    return "latency" if counter == "latency_ns" else counter.replace("_", "-")


def bmf(doc: dict, cases: list[mr.Case]) -> dict:
    out: dict[str, dict] = {}
    counters = measurements(doc)
    for case in cases:
        measures = {bmf_measure(k): m for k in counters if (m := spread(case, k)) is not None}
        if measures:
            out[case.name] = measures
    return out


def extra(case: mr.Case) -> str:
    noise = case.most("noise_pct")
    parts = [f"{len(case.runs)} repetition{'s' if len(case.runs) != 1 else ''}"]
    if noise is not None:
        parts.append(f"noise {noise:.3g}%")
    if case.host_paced:
        parts.append("host-paced")
    return ", ".join(parts)


def benchmark_action(doc: dict, cases: list[mr.Case], better: str) -> list[dict]:
    """github-action-benchmark's entries: every rate (better higher) or every latency (better lower, in ns)."""
    counters = [k for k in measurements(doc) if mr.better(doc, k) == better]
    if better == "higher":
        shown = {
            k: TRACKER_UNITS[mr.meaning(doc, k).unit] for k in counters if mr.meaning(doc, k).unit in TRACKER_UNITS
        }
    else:
        shown = {k: ("ns", 1.0) for k in counters if mr.meaning(doc, k).unit == "ns"}
    out = []
    for case in cases:
        present = [k for k in shown if applies(case, k)]
        for key in present:
            values = case.values(key)
            unit, divisor = shown[key]
            entry = {
                "name": case.name if len(present) == 1 else f"{case.name} ({key})",
                "unit": unit,
                "value": case.median(key) / divisor,
            }
            if len(values) > 1:
                entry["range"] = f"± {(max(values) - min(values)) / 2 / divisor:.6g}"
            entry["extra"] = extra(case)
            out.append(entry)
    return out


def label_value(text: str) -> str:
    """Escaped as the text format wants: backslash, double quote, newline."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def prometheus_name(counter: str, unit: str) -> tuple[str, float]:
    """membench_<counter in base units> and the factor to them: latency_ns -> membench_latency_seconds, 1e-9."""
    suffix, factor = BASE_UNITS.get(unit, ("", 1.0))
    parts = [p for p in re.sub(r"[^a-zA-Z0-9_]", "_", counter).lower().split("_") if p and p not in UNIT_TOKENS]
    if parts and parts[0] == "of":
        parts = parts[1:]
    name = "_".join("flops" if p == "gflops" else p for p in parts)
    if suffix and not name.endswith(suffix):
        name = f"{name}_{suffix}" if name else suffix
    return "membench_" + name, factor


def run_timestamp(doc: dict) -> float | None:
    try:
        return datetime.fromisoformat(str(doc["context"].get("date", ""))).timestamp()
    except ValueError:
        return None


def prometheus(doc: dict, path: str, noise_threshold: float) -> tuple[str, int]:
    """The text, and how many values it holds."""
    host = str(doc.get("context", {}).get("host_name", ""))
    gpus = mr.devices(doc, path)
    only = next(iter(gpus.values()))
    counters = [k for k in mr.metrics(doc) if k not in mr.TIMES]
    measured = set(measurements(doc))
    gauges = [
        k
        for k in counters
        if k in measured or (mr.meaning(doc, k).kind == "health" and mr.meaning(doc, k).unit != "bitmask")
    ]
    configuration = [
        k for k in counters if mr.meaning(doc, k).kind == "configuration" or mr.meaning(doc, k).unit == "bitmask"
    ]
    samples: dict[str, list[tuple[dict, float]]] = {}
    helps: dict[str, str] = {}
    status: dict[str, list[tuple[dict, float]]] = {
        "membench_case_ok": [],
        "membench_case_trusted": [],
        "membench_case_info": [],
    }
    for case in mr.cases(doc).values():
        uuid, name = gpus.get(case.params["device"], only) if "device" in case.params else only
        labels = {
            "case": case.name,
            "family": case.family,
            "variant": case.variant,
            "gpu_uuid": uuid,
            "gpu_name": name,
            "host": host,
        }
        ran = not case.error and not case.skipped and bool(case.runs)
        trusted = ran and not case.doubts(noise_threshold)
        status["membench_case_ok"].append((labels, 1.0 if ran else 0.0))
        status["membench_case_trusted"].append((labels, 1.0 if trusted else 0.0))
        if not ran:
            continue
        info = {k: f"{v:g}" for k in configuration if (v := case.median(k)) is not None}
        status["membench_case_info"].append(({**labels, **info}, 1.0))
        if not trusted:
            continue
        for key in gauges:
            value = case.median(key)
            if value is None or (key in measured and not applies(case, key)):
                continue
            meaning = mr.meaning(doc, key)
            metric, factor = prometheus_name(key, meaning.unit)
            samples.setdefault(metric, []).append((labels, value * factor))
            helps[metric] = f"{meaning.description or key} ({key}, in base units; the median of the repetitions)"
    lines = []
    status_help = {
        "membench_case_ok": "1 when the case was measured, 0 when it failed or was skipped",
        "membench_case_trusted": "1 when the case's values are evidence (no other process, clock event, "
        "throttling, noise over the threshold or killed run); only such cases have values",
        "membench_case_info": "the case's configuration, as labels",
    }
    for metric, rows in status.items():
        lines += [f"# HELP {metric} {status_help[metric]}", f"# TYPE {metric} gauge"]
        lines += [sample(metric, labels, value) for labels, value in rows]
    run_labels = {"gpu_uuid": only[0], "gpu_name": only[1], "host": host}
    lines += [
        "# HELP membench_run_complete 1 when the run reached its end; 0 when a signal stopped it first (its measured "
        "cases stand, the rest never ran) or its process was killed (its cases are then untrusted)",
        "# TYPE membench_run_complete gauge",
        sample("membench_run_complete", run_labels, 1.0 if mr.complete(doc) and not mr.stopped(doc) else 0.0),
    ]
    if (started := run_timestamp(doc)) is not None:
        lines += [
            "# HELP membench_run_timestamp_seconds when the run started (seconds since the epoch)",
            "# TYPE membench_run_timestamp_seconds gauge",
            sample("membench_run_timestamp_seconds", run_labels, started),
        ]
    for metric in sorted(samples):
        lines += [f"# HELP {metric} {label_value(helps[metric])}", f"# TYPE {metric} gauge"]
        lines += [sample(metric, labels, value) for labels, value in samples[metric]]
    return "\n".join(lines) + "\n", sum(len(v) for v in samples.values())


def sample(name: str, labels: dict, value: float) -> str:
    inner = ",".join(f'{re.sub(r"[^a-zA-Z0-9_]", "_", k)}="{label_value(v)}"' for k, v in labels.items())
    return f"{name}{{{inner}}} {value!r}"


def render(doc: dict, fmt: str, path: str, noise_threshold: float) -> tuple[str, int]:
    """The export and how many cases ran but were left out as untrusted; InputError when it holds no value."""
    cases, untrusted = exported_cases(doc, noise_threshold)
    if fmt == "prometheus":
        text, values = prometheus(doc, path, noise_threshold)
        count = values
    elif fmt == "bmf":
        out = bmf(doc, cases)
        text, count = json.dumps(out, indent=1) + "\n", len(out)
    else:
        out = benchmark_action(doc, cases, "higher" if fmt == "benchmark-action" else "lower")
        text, count = json.dumps(out, indent=1) + "\n", len(out)
    if count == 0 and fmt != "prometheus":
        raise mr.InputError(f"{path}: nothing to export as {fmt}: {nothing_trusted(doc, untrusted)}")
    return text, untrusted


def nothing_trusted(doc: dict, untrusted: int) -> str:
    why = f" ({untrusted} measured case(s) are untrusted)" if untrusted else ""
    return ("the run is incomplete (its process was killed); " if not mr.complete(doc) else "") + (
        f"no trusted case has a value{why}"
    )


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if not 0 < args.noise_threshold < float("inf"):
            raise mr.InputError(f"--noise-threshold {args.noise_threshold}: must be positive and finite")
        doc = mr.load(args.results)
        text, untrusted = render(doc, args.format, args.results, args.noise_threshold)
        if args.out:
            try:
                cli.replace_file(Path(args.out), text)
            except OSError as e:
                raise mr.InputError(f"--out {args.out}: cannot write the file ({e.strerror})") from e
        else:
            sys.stdout.write(text)
    except mr.InputError as e:
        return cli.refused("export.py", e)
    if untrusted:
        print(
            f"export.py: {untrusted} case(s) left out as untrusted (another process on the GPU, a clock event, "
            f"throttling, noise at or above {args.noise_threshold:g}% or a killed run)",
            file=sys.stderr,
        )
    if mr.stopped(doc):
        print(f"export.py: {args.results}: the run was {mr.ending(doc)}; they have no value", file=sys.stderr)
    if args.format == "prometheus" and not exported_cases(doc, args.noise_threshold)[0]:
        # The status is written whole all the same, so that a collector never serves the last run's health.
        print(f"export.py: {args.results}: {nothing_trusted(doc, untrusted)}: only the status written", file=sys.stderr)
        return 1
    return 0
