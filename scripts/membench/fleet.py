"""Many GPUs measured the same way, merged: which one is slow?

    python scripts/fleet.py FILE... [--threshold PCT] [--metric NAME] [--allow-untrusted]

Each FILE is membench's JSON from one process (one GPU: `--device=local`
under srun or mpirun) or from one process that ran several devices
(`--device=all`, cases named .../device:K/...). Every GPU is named by its
host, device ordinal and UUID from the file's context.

For every case, the GPUs of one model are compared with their median (GPUs
of different models are never compared; a fleet with several models gets a
warning): one table per case with each GPU's value and its ratio to the
median. A GPU more than --threshold percent worse than the median on any
case is flagged. Each case is compared by its own measure, the counter the
files' catalog ranks first among those it reports (its bandwidth, else its
latency, update rate or operation rate), or by --metric for every case;
worse is the way the catalog says is worse for that counter: lower for
bandwidths, higher for times and latencies (a metric without a direction
is refused). A case that failed on a GPU is flagged too, and so is one
skipped on some GPUs of a model but not all; a case missing on some GPUs is
reported and compared among the GPUs whose files have it (so a case skipped
for one reason on every GPU that has it is no finding). The cases that name the GPU
they reached (peer) are also drawn as a matrix for each host: a row the GPU
that ran the case, a column the GPU it reached.

A GPU's value is no evidence, and is left out of the median with an
UNTRUSTED verdict naming the reason, when another process held the GPU
(contended), a thermal or hardware clock slowdown (not the board's power
cap, the case's own draw), batches were dropped for a low clock, its
noise_pct is at or above 5% (the check's and every gate's rule, whatever
--threshold says), or its run was killed before the end: the doubts every script shares
(results.Case.doubts). A host-paced case (pageable copies, page faults) is
flagged only beyond three times its own noise, as compare.py judges it.

Exit status: 0 when every GPU is within the threshold, 1 when any is
flagged or any value is untrusted (unless --allow-untrusted), 2 when an
input cannot be read, has no cases or lacks the metric, or one GPU (UUID)
appears twice.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass

from membench import cli, pairs
from membench import declarations as md
from membench import results as mr


@dataclass(frozen=True)
class Gpu:
    host: str
    ordinal: int
    uuid: str
    model: str
    source: str  # the file

    def __str__(self) -> str:
        return f"{self.host} device {self.ordinal} ({self.uuid})"


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="fleet.py", description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="membench JSON files, one or more GPUs each")
    p.add_argument(
        "--threshold", type=float, default=10.0, help="percent worse than the median that flags a GPU (default 10)"
    )
    p.add_argument(
        "--metric",
        help="one measured counter to compare every case by; without it, each case by its catalog's measure",
    )
    p.add_argument(
        "--allow-untrusted",
        action="store_true",
        help="untrusted values (contended, clock event, throttled, too noisy) do not fail",
    )
    return p


def gpus_of(doc: dict, path: str) -> dict[int, Gpu]:
    """The GPUs a file measured, by ordinal."""
    host = str(doc["context"].get("host_name", "unknown-host"))
    return {ordinal: Gpu(host, ordinal, uuid, name, path) for ordinal, (uuid, name) in mr.devices(doc, path).items()}


def untagged(case: mr.Case) -> str:
    """A case's name without its device tag, the same on every GPU."""
    return case.name_without("device")


@dataclass
class Entry:
    gpu: Gpu
    value: float | None  # None: the case failed or was skipped there
    problem: str = ""  # why there is no value
    skipped: bool = False
    doubts: list[str] | None = None  # why the value is no evidence
    gate: float = 0.0  # the change (percent) it must show to be flagged, where wider than --threshold (host-paced)


def collect(
    paths: list[str], metric: str | None, threshold: float
) -> tuple[dict[str, list[Entry]], dict[str, tuple[str, str]]]:
    """Every case's value on every GPU that has it, keyed by untagged name, and each case's counter and which way
    is better for it (the files' catalog says): `metric`, or without one the case's own measure."""
    table: dict[str, list[Entry]] = defaultdict(list)
    judged_by: dict[str, tuple[str, str]] = {}
    seen: dict[str, str] = {}
    docs = [mr.load(path) for path in paths]  # each read before any is judged: one reads beside the others
    for path, doc in zip(paths, docs):
        if metric is not None:
            mr.require_metric(doc, path, metric)
        elif not mr.cases(doc):
            raise mr.InputError(f"{path}: no cases")
        gpus = gpus_of(doc, path)
        for gpu in gpus.values():
            if gpu.uuid in seen:
                raise mr.InputError(f"GPU {gpu.uuid} is in both {seen[gpu.uuid]} and {path}; give each GPU once")
            seen[gpu.uuid] = path
        for case in mr.cases(doc, *docs).values():
            ordinal = case.params.get("device")
            if not isinstance(ordinal, int):
                ordinal = next(iter(gpus))
            gpu = gpus.get(ordinal)
            if gpu is None:
                raise mr.InputError(
                    f"{path}: case {case.name} ran on device {ordinal}, which the context does not list"
                )
            if case.error or case.skipped:
                table[untagged(case)].append(
                    Entry(gpu, None, case.error or f"skipped: {case.skipped}", skipped=case.skipped is not None)
                )
                continue
            name = untagged(case)
            if name not in judged_by:
                counter = metric or md.measure_of(doc, case)
                if counter is None:
                    continue  # no measure here; another GPU's file may give it one
                judged_by[name] = (counter, mr.require_direction(docs, counter))
            value = case.median(judged_by[name][0])
            if value is not None:  # cases without the metric are not compared
                table[name].append(
                    Entry(gpu, value, doubts=case.doubts(mr.NOISE_THRESHOLD), gate=case.gate_threshold(case, threshold))
                )
    return table, judged_by


def judge(
    table: dict[str, list[Entry]],
    threshold: float,
    judged_by: dict[str, tuple[str, str]],
    cells: dict[tuple[str, Gpu], str] | None = None,
) -> tuple[str, set[Gpu], set[Gpu], list[str]]:
    """The per-case tables, the flagged GPUs, the GPUs with untrusted values and the warnings;
    `judged_by` gives each case's counter and which way ('higher' or 'lower') is better. `cells`, where given,
    gets each case's verdict on each GPU (ok, FLAGGED, UNTRUSTED, FAILED, SKIPPED, or the reason every GPU
    skipped it)."""
    cells = {} if cells is None else cells
    all_gpus = {e.gpu for entries in table.values() for e in entries}
    models = sorted({g.model for g in all_gpus})
    warnings = []
    if len(models) > 1:
        warnings.append(
            f"{len(models)} GPU models in this fleet ({', '.join(models)}): each is compared only with its own"
        )
    flagged: set[Gpu] = set()
    untrusted: set[Gpu] = set()
    lines = []
    for case, entries in table.items():
        counter, better = judged_by.get(case, ("", "higher"))
        lower_better = better == "lower"
        for model in models:
            here = [e for e in entries if e.gpu.model == model]
            if not here:
                continue
            missing = {g for g in all_gpus if g.model == model} - {e.gpu for e in here}
            if missing:
                warnings.append(
                    f"{case}: missing on {len(missing)} {model} GPU(s) ({', '.join(sorted(map(str, missing)))})"
                )
            values = [e.value for e in here if e.value is not None and not e.doubts]
            median = statistics.median(values) if values else None
            # A case every GPU of the model that has it skipped for one reason (a peer case on one-GPU nodes) is
            # no finding; the GPUs whose files lack it are the warning above, not a reason to flag the others.
            skipped_everywhere = all(e.skipped for e in here) and len({e.problem for e in here}) == 1
            lines.append(
                f"{case} ({model}, {len(here)} GPUs{', ' + counter if counter else ''})"
                + (f": median {median:.6g}, min {min(values):.6g}, max {max(values):.6g}" if values else "")
            )
            lines.append("| GPU | value | ratio to median | verdict |")
            lines.append("| --- | ---: | ---: | --- |")
            for e in sorted(here, key=lambda e: (e.gpu.host, e.gpu.ordinal)):
                if e.value is None and skipped_everywhere:
                    lines.append(f"| {e.gpu} | - | - | {e.problem} (on every GPU) |")
                    cells[case, e.gpu] = f"{e.problem} (on every GPU)"
                    continue
                if e.value is None:
                    flagged.add(e.gpu)
                    lines.append(f"| {e.gpu} | - | - | {'SKIPPED' if e.skipped else 'FAILED'}: {e.problem} |")
                    cells[case, e.gpu] = "SKIPPED" if e.skipped else "FAILED"
                    continue
                if e.doubts:
                    untrusted.add(e.gpu)
                    lines.append(f"| {e.gpu} | {e.value:.6g} | - | UNTRUSTED: {'; '.join(e.doubts)} |")
                    cells[case, e.gpu] = "UNTRUSTED"
                    continue
                ratio = e.value / median if median else float("nan")
                worse = (ratio - 1) * 100 if lower_better else (1 - ratio) * 100
                bad = worse > max(threshold, e.gate)
                if bad:
                    flagged.add(e.gpu)
                lines.append(f"| {e.gpu} | {e.value:.6g} | {ratio:.3f} | {'FLAGGED' if bad else 'ok'} |")
                cells[case, e.gpu] = "FLAGGED" if bad else "ok"
            lines.append("")
    return "\n".join(lines), flagged, untrusted, warnings


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    if not 0 < args.threshold < 100:
        print(f"fleet.py: --threshold {args.threshold}: must be between 0 and 100", file=sys.stderr)
        return 2
    try:
        table, judged_by = collect(args.files, args.metric, args.threshold)
        matrices = pairs.markdown([(path, mr.load(path)) for path in args.files], args.metric or "bytes_per_second")
    except mr.InputError as e:
        return cli.refused("fleet.py", e)
    text, flagged, untrusted, warnings = judge(table, args.threshold, judged_by)
    print(text)
    if matrices:
        print(matrices)
    for w in warnings:
        print(f"warning: {w}")
    gpus = {e.gpu for entries in table.values() for e in entries}
    for gpu in sorted(flagged, key=lambda g: (g.host, g.ordinal)):
        print(f"FLAGGED: {gpu}, {gpu.model}, from {gpu.source}")
    for gpu in sorted(untrusted, key=lambda g: (g.host, g.ordinal)):
        print(
            f"UNTRUSTED: {gpu}, {gpu.model}, from {gpu.source}: some of its values are no evidence"
            + ("" if args.allow_untrusted else " (--allow-untrusted accepts them)")
        )
    judged = gpus - untrusted
    print(
        f"{len(judged - flagged)} of {len(gpus)} GPUs within {args.threshold:g}% of their model's median "
        f"({args.metric or 'each case by its measure'}) on {len(table)} cases"
        + (f"; {len(untrusted)} with untrusted values" if untrusted else "")
    )
    return 1 if flagged or (untrusted and not args.allow_untrusted) else 0
