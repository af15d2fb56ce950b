"""What report.py sets beside a run: the comparison of two runs of one GPU (compare.py's verdicts, one table a
metric, what needs a look first) and the fleet view of several GPUs (fleet.py's verdicts, one table a column a
GPU), and the user's own kernels under the run's ceilings (membench-explain's answer), as markdown the page
renders."""

from __future__ import annotations

import base64
import statistics
import tempfile
from collections import Counter
from pathlib import Path

from membench import compare, fleet, pairs
from membench import declarations as md
from membench import results as mr
from membench.report_page import Table, md_text, quantity


# compare.py's verdicts in the order a person reads them: what failed or moved first, what could not be judged
# (noise), what held last.
VERDICT_ORDER = [
    "ERROR",
    "REGRESSION",
    "missing in contender",
    "SKIPPED",
    "UNTRUSTED",
    "improvement",
    "noise",
    "same",
]


def worth_a_look(verdict: str) -> int:
    """Where a verdict goes in the report, in VERDICT_ORDER (a stable sort keeps the file's order within one)."""
    return next((k for k, v in enumerate(VERDICT_ORDER) if verdict.startswith(v)), len(VERDICT_ORDER))


def one_gpu_pair(paths: list[str], docs: list[dict]) -> bool:
    """Two files of the same GPUs: a baseline and a contender, compared."""
    if len(paths) != 2:
        return False
    uuids = [set(uuid for uuid, _ in mr.devices(doc, path).values()) for path, doc in zip(paths, docs)]
    return uuids[0] == uuids[1]


def reported(paths: list[str], docs: list[dict]) -> int:
    """Which file the page reports: of a baseline and a contender the contender (the second), else the first."""
    return 1 if one_gpu_pair(paths, docs) else 0


def several(paths: list[str], docs: list[dict], every_row: bool = True) -> str:
    """Markdown: the comparison of two runs of one GPU, or the fleet view of several GPUs (in several files, or
    in one file of a run over several devices). Without every_row the comparison leaves out the cases judged the
    same (report.md, which a comment must hold; the page has them)."""
    if len(paths) < 2 and len(mr.devices(docs[0], paths[0])) < 2:
        return ""
    if one_gpu_pair(paths, docs):
        parts = [
            f"## {paths[1]} against {paths[0]}\n",
            f"The baseline is the first file, {paths[0]}; the contender, which this page reports, {paths[1]}.\n",
        ]
        if (order := mr.out_of_order(docs[0], docs[1])) is not None:
            parts.append(f"**Warning: {order}.** Give the baseline first: every change here has its sign turned.\n")
        # Each case on the headlines it has (its bandwidth, its latency, its update rate: the catalog's).
        present = set(mr.metrics(docs[0])) | set(mr.metrics(docs[1]))
        compared = dict.fromkeys(m for doc in docs for m, _ in md.headlines(doc))
        for k, metric in enumerate(m for m in compared if m in present):
            judged = compare.compare(docs[0], docs[1], metric, 5.0, 0.05)
            # A case with no value in either file (skipped, failed, missing) is listed once, in the first table.
            rows = sorted(
                (r for r in judged if not r.verdict.startswith("no '") and (k == 0 or r.change_pct is not None)),
                key=lambda r: worth_a_look(r.verdict),
            )
            if not rows:
                continue  # its cases are listed in the first table: none to compare on this metric
            verdicts = Counter(r.verdict.split(":")[0] for r in rows)
            said = sorted(verdicts.items(), key=lambda kv: (worth_a_look(kv[0]), kv[0]))
            if not every_row:
                rows = [r for r in rows if not r.verdict.startswith("same")]
            parts.append(
                f"compare.py's verdicts on {metric} (5% threshold), what needs a look first: "
                + ", ".join(f"{n} {v}" for v, n in said)
                + ".\n\n"
                + compare.render(rows, metric, 0.05, mr.meaning(docs[1], metric).unit)
                + "\n"
            )
        return "\n".join(parts)
    table, judged_by = fleet.collect(paths, None, 10.0)
    cells: dict = {}
    _, flagged, untrusted, warnings = fleet.judge(table, 10.0, judged_by, cells)
    gpus = sorted({e.gpu for entries in table.values() for e in entries}, key=lambda g: (g.host, g.ordinal))
    # One row a case, one column a GPU: a slow GPU is the column of marks.
    header = ["case", *(f"{g.host} device {g.ordinal}" for g in gpus), "slowest / median"]
    rows = []
    for case, entries in table.items():
        on = {e.gpu: e for e in entries}
        values = [e.value for e in entries if e.value is not None and not e.doubts]
        row = [case]
        for g in gpus:
            e, verdict = on.get(g), cells.get((case, g), "missing")
            shown = quantity(e.value, "B/s") if e is not None and e.value is not None else "-"
            row.append(shown if verdict == "ok" else f"{shown} {verdict}")
        if values:
            worst = min(values) if judged_by.get(case, ("", "higher"))[1] == "higher" else max(values)
            row.append(f"{worst / statistics.median(values):.3f}")
        else:
            row.append("-")
        rows.append(row)
    summary = [f"FLAGGED: {g}" for g in sorted(flagged, key=lambda g: (g.host, g.ordinal))]
    summary += [f"UNTRUSTED: {g}" for g in sorted(untrusted, key=lambda g: (g.host, g.ordinal))]
    said = "; ".join(summary) if summary else f"no GPU more than 10% from its model's median in {len(rows)} cases"
    return (
        f"## The fleet\n\nfleet.py's verdicts (bytes_per_second, 10% threshold): {md_text(said)}.\n\n"
        + "\n".join(f"- GPU: {md_text(str(g))}" for g in gpus)
        + "\n\n"
        + Table("", header, rows).markdown()
        # Lists with a blank line before each: a line right under a table is one more row of it in markdown.
        + ("\n\n" + "\n".join(f"- warning: {md_text(w)}" for w in warnings) if warnings else "")
        + (f"\n\n{matrices}" if (matrices := pairs.markdown(list(zip(paths, docs)), "bytes_per_second")) else "")
    )


def your_kernels(doc: dict, path: str, reports: list[str], ncu: str) -> tuple[str, str | None]:
    """The section --explain adds: the kernels of the reports under this run's ceilings (Markdown), and the
    roofline with the kernels as points (a PNG, base64)."""
    from membench import ceilings, explain, explain_show

    measured = ceilings.from_results(doc, path)
    placements = explain.placed(explain.load_kernels(reports, ncu), measured)
    section = explain_show.markdown(placements, measured).replace(
        "## membench-explain: ", "## Your kernels on this GPU: ", 1
    )
    try:
        with tempfile.TemporaryDirectory() as tmp:
            figure = Path(tmp) / "roofline.png"
            explain_show.figure(placements, measured, str(figure))
            return section, base64.b64encode(figure.read_bytes()).decode("ascii")
    except ModuleNotFoundError:
        return section, None
