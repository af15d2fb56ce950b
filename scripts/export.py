"""Export a membench run to the formats regression trackers and monitoring read.

    python scripts/export.py RUN.json --format bmf|benchmark-action|benchmark-action-latency|prometheus [--out FILE]

bmf: Bencher Metric Format, for `bencher run --adapter json`: each case's
bandwidth under the measure `bytes-per-second` (higher is better; Bencher
creates it on first use) and its latency under Bencher's built-in `latency`
(nanoseconds), each with the median of the repetitions as the value and
their minimum and maximum as the lower and upper values.

benchmark-action and benchmark-action-latency: github-action-benchmark's
`customBiggerIsBetter` (every case's bandwidth, GB/s) and
`customSmallerIsBetter` (every case's latency, ns) JSON. That action reads
Google Benchmark's own JSON too, but keeps only `real_time`.

prometheus: the Prometheus text format, for node_exporter's textfile
collector: one gauge per counter (`membench_bytes_per_second`,
`membench_latency_ns`, `membench_noise_pct`, ...), one sample per case,
labelled `case`, `gpu_uuid`, `gpu_name` and `host`, and `membench_case_ok`
(1 measured, 0 failed or skipped) for every case.

A case that failed or was skipped has no value in bmf and benchmark-action.
Exit status: 0 written, 2 unreadable input or a bad flag.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import membench_results as mr

FORMATS = ("bmf", "benchmark-action", "benchmark-action-latency", "prometheus")
BANDWIDTH, LATENCY = "bytes_per_second", "latency_ns"
GB = 1e9
# Google Benchmark's own numbers in a run, not membench's counters.
NOT_COUNTERS = {"family_index", "per_family_instance_index", "repetitions", "repetition_index", "threads",
                "iterations", "real_time", "cpu_time"}


def create_parser() -> mr.Parser:
    p = mr.Parser(prog="export.py", description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="Google Benchmark JSON written by membench")
    p.add_argument("--format", required=True, choices=FORMATS, help="the output format")
    p.add_argument("--out", help="file to write; without it, standard output")
    return p


def measured(doc: dict) -> list[mr.Case]:
    """The cases that ran, in the file's order."""
    return [c for c in mr.cases(doc).values() if not c.error and not c.skipped and c.runs]


def metric(case: mr.Case, key: str) -> dict | None:
    values = case.values(key)
    if not values:
        return None
    return {"value": case.median(key), "lower_value": min(values), "upper_value": max(values)}


def bmf(doc: dict) -> dict:
    out: dict[str, dict] = {}
    for case in measured(doc):
        measures = {}
        if (bw := metric(case, BANDWIDTH)) is not None:
            measures["bytes-per-second"] = bw
        if (lat := metric(case, LATENCY)) is not None:
            measures["latency"] = lat
        if measures:
            out[case.name] = measures
    return out


def benchmark_action(doc: dict, key: str) -> list[dict]:
    scale, unit = (GB, "GB/s") if key == BANDWIDTH else (1.0, "ns")
    out = []
    for case in measured(doc):
        values = case.values(key)
        if not values:
            continue
        median = case.median(key) / scale
        spread = (max(values) - min(values)) / 2 / scale
        entry = {"name": case.name, "unit": unit, "value": median}
        if len(values) > 1:
            entry["range"] = f"± {spread:.6g}"
        out.append(entry)
    return out


def label_value(text: str) -> str:
    """Escaped as the text format wants: backslash, double quote, newline."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def metric_name(counter: str) -> str:
    return "membench_" + re.sub(r"[^a-zA-Z0-9_]", "_", counter)


def prometheus(doc: dict, path: str) -> str:
    host = str(doc.get("context", {}).get("host_name", ""))
    gpus = mr.devices(doc, path)
    only = next(iter(gpus.values()))
    samples: dict[str, list[tuple[dict, float]]] = {}
    ok: list[tuple[dict, float]] = []
    for case in mr.cases(doc).values():
        uuid, name = gpus.get(case.params["device"], only) if "device" in case.params else only
        labels = {"case": case.name, "gpu_uuid": uuid, "gpu_name": name, "host": host}
        ran = not case.error and not case.skipped and bool(case.runs)
        ok.append((labels, 1.0 if ran else 0.0))
        if not ran:
            continue
        keys = sorted({k for run in case.runs for k, v in run.items()
                       if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in NOT_COUNTERS})
        for key in keys:
            value = case.median(key)
            if value is not None:
                samples.setdefault(metric_name(key), []).append((labels, value))
    lines = ["# HELP membench_case_ok 1 when the case was measured, 0 when it failed or was skipped",
             "# TYPE membench_case_ok gauge"]
    lines += [sample("membench_case_ok", labels, value) for labels, value in ok]
    for name in sorted(samples):
        lines += [f"# HELP {name} membench counter {name[len('membench_'):]} (the median of the repetitions)",
                  f"# TYPE {name} gauge"]
        lines += [sample(name, labels, value) for labels, value in samples[name]]
    return "\n".join(lines) + "\n"


def sample(name: str, labels: dict, value: float) -> str:
    inner = ",".join(f'{k}="{label_value(v)}"' for k, v in labels.items())
    return f"{name}{{{inner}}} {value!r}"


def render(doc: dict, fmt: str, path: str) -> str:
    if fmt == "bmf":
        return json.dumps(bmf(doc), indent=1) + "\n"
    if fmt == "benchmark-action":
        return json.dumps(benchmark_action(doc, BANDWIDTH), indent=1) + "\n"
    if fmt == "benchmark-action-latency":
        return json.dumps(benchmark_action(doc, LATENCY), indent=1) + "\n"
    return prometheus(doc, path)


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        text = render(mr.load(args.results), args.format, args.results)
        if args.out:
            try:
                Path(args.out).write_text(text)
            except OSError as e:
                raise mr.InputError(f"--out {args.out}: cannot write the file ({e.strerror})") from e
        else:
            sys.stdout.write(text)
    except mr.InputError as e:
        print(f"export.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
