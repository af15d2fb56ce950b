"""The memory levels a hierarchy sweep shows, against the device's sizes.

    python scripts/levels.py RESULTS.json [--tolerance PCT]

Reads the hierarchy/bandwidth and hierarchy/latency cases of a membench JSON
file (warm L2; latency per chase_stride), finds the plateaus of each curve
(runs of two or more working sets whose value stays within --tolerance
percent of the run's median) and prints, per curve, each plateau's range and
level value, and each boundary between plateaus next to the size the device
reports that it should match: the SM's unified L1/shared memory, then the L2.
A boundary agrees when the reported size lies between half the last working
set of one plateau and the first of the next: a cache whose replacement is
not strictly LRU keeps much of a set a little larger than itself, so its
step may come one doubling late.

Exit status: 0 when every boundary found agrees, 1 when one does not, 2 when
the file cannot be read or holds no hierarchy sweep.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from collections import defaultdict

from membench import cli
from membench import results as mr


@dataclass
class Plateau:
    first: int  # working set (bytes) of its first point
    last: int  # and of its last
    value: float  # median of its points

    def __str__(self) -> str:
        return f"{size(self.first)}-{size(self.last)}"


def size(n: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return f"{n:g} B"


def find_plateaus(points: list[tuple[int, float]], tolerance_pct: float) -> list[Plateau]:
    """Plateaus of (working set, value) points, in working-set order: each a
    run of at least two consecutive points within tolerance of the run's
    median; points between plateaus belong to none (a transition)."""
    points = sorted(points)
    plateaus: list[Plateau] = []
    run: list[tuple[int, float]] = []

    def close() -> None:
        if len(run) >= 2:
            plateaus.append(Plateau(run[0][0], run[-1][0], statistics.median(v for _, v in run)))

    for ws, value in points:
        candidate = run + [(ws, value)]
        middle = statistics.median(v for _, v in candidate)
        if run and any(abs(v - middle) > tolerance_pct / 100 * middle for _, v in candidate):
            close()
            run = [(ws, value)]  # a new run starts here
        else:
            run = candidate
    close()
    return plateaus


def curves(doc: dict) -> dict[str, list[tuple[int, float]]]:
    """The warm hierarchy curves: bandwidth (GB/s; at each working set the best load width
    that ran) and latency (ns) per chase_stride."""
    out: dict[str, list[tuple[int, float]]] = defaultdict(list)
    best: dict[int, float] = {}
    for case in mr.cases(doc).values():
        if case.family != "hierarchy" or case.error or case.skipped or case.params.get("l2") == "cold":
            continue
        ws = case.params.get("working_set")
        if not isinstance(ws, int):
            continue
        if case.variant == "bandwidth" and case.median("bytes_per_second"):
            best[ws] = max(best.get(ws, 0.0), case.median("bytes_per_second") / 1e9)
        elif case.variant == "latency" and case.median("latency_ns"):
            out[f"latency (ns), chase_stride {case.params.get('chase_stride')}"].append((ws, case.median("latency_ns")))
    if not best:
        return out
    return {"bandwidth (GB/s)": sorted(best.items()), **out}


def device_sizes(doc: dict) -> list[tuple[str, float]]:
    """The level sizes the run's context reports, smallest first."""
    sizes = []
    for label, key in (("L1/shared per SM", "l1_shared_bytes_per_sm"), ("L2", "l2_bytes")):
        value = mr.context_number(doc, key)
        if value:
            sizes.append((label, value))
    return sizes


def report(doc: dict, tolerance_pct: float) -> tuple[str, bool]:
    found = curves(doc)
    if not found:
        raise mr.InputError("no hierarchy/bandwidth or hierarchy/latency case ran in this file")
    sizes = device_sizes(doc)
    lines, all_agree = [], True
    for name, points in sorted(found.items()):
        plateaus = find_plateaus(points, tolerance_pct)
        lines.append(f"{name}: {len(points)} working sets, {len(plateaus)} plateaus")
        lines.append("| plateau | working sets | value |")
        lines.append("| --- | --- | ---: |")
        for i, p in enumerate(plateaus):
            lines.append(f"| {i + 1} | {p} | {p.value:.4g} |")
        lines.append("| boundary | between | device reports | agrees |")
        lines.append("| --- | --- | ---: | --- |")
        steps = list(zip(plateaus, plateaus[1:]))
        matched = set()
        for label, reported in sizes:
            at = next((i for i, (a, b) in enumerate(steps) if a.last / 2 <= reported <= b.first), None)
            if at is None:
                all_agree = False
                lines.append(f"| - | no step around it | {label} {size(reported)} | NO |")
            else:
                matched.add(at)
                a, b = steps[at]
                lines.append(
                    f"| {at + 1}-{at + 2} | {size(a.last)} and {size(b.first)} | {label} {size(reported)} | yes |"
                )
        for i, (a, b) in enumerate(steps):
            if i not in matched:  # a step no reported size explains (an L2 partition, the TLBs)
                lines.append(f"| {i + 1}-{i + 2} | {size(a.last)} and {size(b.first)} | (none) | info |")
        lines.append("")
    return "\n".join(lines), all_agree


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="levels.py", description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="Google Benchmark JSON written by membench")
    p.add_argument("--tolerance", type=float, default=10.0, help="percent a plateau's points may differ (default 10)")
    return p


@cli.command
def main(argv: list[str] | None = None) -> int:
    p = create_parser()
    args = p.parse_args(argv)
    if not 0 < args.tolerance < 100:
        p.error(f"--tolerance {args.tolerance}: must be between 0 and 100")
    try:
        text, agree = report(mr.load(args.results), args.tolerance)
    except mr.InputError as e:
        return cli.refused("levels.py", e)
    print(text)
    return 0 if agree else 1
