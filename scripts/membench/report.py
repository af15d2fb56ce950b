"""A report of membench runs to look at: one self-contained HTML page and a markdown summary.

    python scripts/report.py RUN.json [MORE.json ...] --out DIR

Writes DIR/report.html (opens offline from the file: its style and figures
are inside it) and DIR/report.md (for a CI log or a pull request; its
figures are DIR/figures/*.png). Both hold, for the run reported (the first
file; of two files of one GPU, the second, the contender):

- the study on this GPU: the article's three tables (coalesced vs strided,
  shared memory, async copies) at its sizes, this GPU's ratios next to the
  RTX 4090's, and what the counters say of each (the default run and
  sweeps/seed.json carry these cases);
- the run: the GPU, driver, clocks, UUID, and its health (cases failed,
  skipped, noisy, contended, throttled, under a clock event);
- every family: each case measured against its model and the peak, with its
  marks, and the figures plot.py draws.

With two files of the same GPU, the baseline first: the page reports the
second and compares it against the first (compare.py's verdicts; a baseline
that ran after the second file is warned of). With files of different GPUs,
the fleet view (fleet.py's) beside the first. Exit status: 0 written, 2 unreadable input or a bad flag.
"""

from __future__ import annotations

import base64
import html
import statistics
import sys
import tempfile
from pathlib import Path

from membench import history_store
from membench import declarations as md
from membench import cli
from membench import results as mr
from membench.report_page import CHECK, STYLE, Table, fit, md_text, md_to_html, quantity, readable  # noqa: F401
from membench.report_marks import marks, noisy_means, peak_note  # noqa: F401

try:
    from membench import plot, report_others
except ModuleNotFoundError as error:
    cli.missing_package("report.py", error)

GB = 1e9


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="report.py", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "results",
        nargs="+",
        help="Google Benchmark JSON written by membench; the first is the baseline of a second of the same GPU "
        "(the page reports the second), or the first of a fleet",
    )
    p.add_argument("--out", required=True, help="directory for report.html and report.md")
    p.add_argument(
        "--history", help="a history.py history (file or URL): each study case's values over its runs on this GPU model"
    )
    p.add_argument(
        "--explain",
        nargs="+",
        metavar="REPORT",
        help="Nsight Compute reports (.ncu-rep or their raw CSV pages) of your kernels: a section places them under "
        "this run's ceilings, as membench-explain does",
    )
    p.add_argument("--ncu", default="ncu", help="with --explain: Nsight Compute's command line, to read a .ncu-rep")
    return p


def by_plain_name(doc: dict) -> dict[str, mr.Case]:
    """Cases by name without the device tag and /manual_time (the first device's, in a run over several)."""
    out: dict[str, mr.Case] = {}
    for case in mr.cases(doc).values():
        out.setdefault(case.name_without("device", suffix=""), case)
    return out


def gbps(case: mr.Case | None) -> float | None:
    value = case.median("bytes_per_second") if case and not case.error and not case.skipped else None
    return value / GB if value else None


def counter_text(doc: dict, counter: str, value: float) -> str:
    """A counter's value as a person reads it: as it is below 10,000, else with a prefix and the catalog's unit
    (33.6 MB, not 3.35544e+07)."""
    if abs(value) < 1e4:
        return f"{value:g}"
    unit = mr.meaning(doc, counter).unit
    return quantity(value, "" if unit in ("flag", counter) else unit).strip()


def claims(doc: dict, rows: list[md.StudyRow], cases: dict[str, mr.Case], gpu: str) -> Table:
    """A table of claims the article makes without numbers: each row's case beside its baseline on this GPU,
    and the model counters of both that say why."""
    t = Table(
        rows[0].table_title, ["claim", f"GB/s, {gpu}", "baseline GB/s", "ratio", "why: the model, case (baseline)"]
    )
    for r in rows:
        case, base = cases.get(r.case), cases.get(r.baseline or rows[0].case)
        here, there = gbps(case), gbps(base)
        why = [
            f"{c} {counter_text(doc, c, case.median(c))} ({counter_text(doc, c, base.median(c))})"
            if base and base.median(c) is not None
            else f"{c} {counter_text(doc, c, case.median(c))}"
            for c in r.counters
            if case and case.median(c) is not None
        ]
        t.rows.append(
            [
                r.label,
                f"{here:.0f}" if here else "not in this file",
                f"{there:.0f}" if there else "",
                f"{here / there:.2f}x" if here and there else "",
                "; ".join(why),
            ]
        )
    t.note = "Each claim's case beside the case it is compared with, both in this run."
    return t


def study(doc: dict) -> list[Table]:
    """The study's tables, from the rows the families declare: this GPU's GB/s and ratios beside the article's
    RTX 4090 numbers, and the counters each row declares as the why."""
    cases = by_plain_name(doc)
    gpu = mr.gpu_name(doc)
    by_table: dict[int, list[md.StudyRow]] = {}
    for row in md.study_rows(doc):
        by_table.setdefault(row.table, []).append(row)
    tables = []
    for rows in by_table.values():
        if not any(r.article_gb_per_second for r in rows):
            tables.append(claims(doc, rows, cases, gpu))
            continue
        counters = list(dict.fromkeys(c for r in rows for c in r.counters))
        first_here, first_there = gbps(cases.get(rows[0].case)), rows[0].article_gb_per_second
        header = ["case", f"GB/s, {gpu}", "vs first row", "GB/s, RTX 4090 (article)", "vs first row", *counters]
        t = Table(rows[0].table_title, header)
        seen = False
        for r in rows:
            here, case = gbps(cases.get(r.case)), cases.get(r.case)
            values = [case.median(c) if case else None for c in counters]
            seen = seen or any(v is not None for v in values)
            t.rows.append(
                [
                    r.label,
                    f"{here:.0f}" if here else "not in this file",
                    f"{here / first_here:.2f}x" if here and first_here else "",
                    f"{r.article_gb_per_second:.2f}",
                    f"{r.article_gb_per_second / first_there:.2f}x",
                    *(counter_text(doc, c, v) if v is not None else "" for c, v in zip(counters, values)),
                ]
            )
        described = [f"{c} ({d})" if (d := mr.meaning(doc, c).description) else c for c in counters]
        t.note = (
            f"Why, from the counters: {'; '.join(described)}."
            if seen
            else "The counters for this table are not in this file."
        )
        tables.append(t)
    return tables


def study_history(db: str, doc: dict) -> Table:
    """Each study case's bytes per second over the runs of this GPU model in a history.py file, oldest first."""
    try:
        con = history_store.Store(db, read_only=True)
    except mr.InputError as e:
        raise mr.InputError(f"--history: {str(e).removeprefix('--db ')}") from e
    try:
        t = Table("The study's cases in the history", ["case", "runs", "min", "median", "max", "last five (GB/s)"])
        for row in md.study_rows(doc):
            label, name = row.label, row.case
            stored = con.stored_names(name + "/manual_time")
            values = [
                v / GB
                for (v,) in con.execute(
                    f"SELECT value FROM measurements m JOIN runs r ON r.id = m.run WHERE m.name IN "
                    f"({history_store.placeholders(stored)}) AND metric = 'bytes_per_second' AND trusted = 1 AND "
                    "gpu_name = ? ORDER BY started, r.id",
                    (*stored, mr.gpu_name(doc)),
                )
            ]
            t.rows.append(
                [label, str(len(values))]
                + (
                    [
                        f"{min(values):.0f}",
                        f"{statistics.median(values):.0f}",
                        f"{max(values):.0f}",
                        ", ".join(f"{v:.0f}" for v in values[-5:]),
                    ]
                    if values
                    else ["", "", "", ""]
                )
            )
    except history_store.DatabaseError as e:
        raise mr.InputError(f"--history {history_store.shown(db)}: not a history ({e})") from e
    return t


def families(doc: dict) -> list[Table]:
    """Every family's cases: the measurement with its noise and repetitions, the model in the same unit, the
    share of the peak, the board's energy per byte where the run measured it (--energy), and the marks."""
    tables: dict[str, Table] = {}
    cases = mr.cases(doc).values()
    energy = any(c.median("pj_per_byte") is not None for c in cases)
    header = (
        ["case", "measured", "noise", "repetitions", "model", "% of peak"] + (["pJ/B"] if energy else []) + ["marks"]
    )
    # What a case measured (the first headline it reports), and the model in the same unit beside it.
    measures = [(metric, model, mr.meaning(doc, metric).unit) for metric, model in md.headlines(doc)]
    for case in cases:
        t = tables.setdefault(case.family, Table(case.family, header))
        measured = model = noise = ""
        if not case.error and not case.skipped:
            for metric, model_metric, unit in measures:
                if (value := case.median(metric)) is not None:
                    measured = quantity(value, unit)
                    if model_metric and (predicted := case.median(model_metric)):
                        model = quantity(predicted, unit)
                    break
            if (pct_noise := case.median("noise_pct")) is not None and pct_noise >= 0:
                noise = f"{pct_noise:.2g}%"
        pct = case.median("pct_of_peak")
        name = case.name_without(suffix="")
        t.rows.append(
            [
                name[len(case.family) + 1 :],
                measured,
                noise,
                str(len(case.runs)) if measured else "",
                model,
                f"{pct:.1f}" if pct is not None and measured else "",
                *([f"{pj:.4g}" if (pj := case.median("pj_per_byte")) is not None else ""] if energy else []),
                marks(case),
            ]
        )
    over: dict[str, list[mr.Case]] = {}
    for case in cases:
        if not case.error and not case.skipped and (case.median("pct_of_peak") or 0) > 100:
            over.setdefault(case.family, []).append(case)
    for family, above in over.items():
        tables[family].note = peak_note(above)
    return list(tables.values())


def the_run(doc: dict, path: str) -> Table:
    ctx = doc.get("context", {})
    cases = list(mr.cases(doc).values())
    count = lambda test: sum(1 for c in cases if test(c))  # noqa: E731
    ran = [c for c in cases if not c.error and not c.skipped]

    def marked(mark: str) -> int:
        """Cases any of whose repetitions has the mark (a flag of 1, or a single throttled batch), each once."""
        return sum(1 for c in ran if (c.most(mark) or 0) >= 1)

    memory = mr.context_number(doc, "memory_clock_khz")
    rows = [
        ("file", path),
        *(
            [("GPU", mr.gpu_name(doc)), ("UUID", str(ctx.get("gpu_uuid", "")))]
            if len(gpus := mr.devices(doc, path)) < 2
            else [(f"GPU {k}", f"{name} ({uuid})") for k, (uuid, name) in sorted(gpus.items())]
        ),
        ("host", str(ctx.get("host_name", ""))),
        ("date", str(ctx.get("date", ""))),
        ("driver", str(ctx.get("driver_version", ""))),
        ("CUDA (driver API, runtime)", f"{ctx.get('cuda_driver_version', '')}, {ctx.get('runtime_version', '')}"),
        ("peak SM clock", f"{ctx.get('sm_clock_peak_mhz', '')} MHz"),
        ("memory clock", f"{memory / 1000:.0f} MHz" if memory else ""),
        ("membench", f"{ctx['membench_version']} ({ctx.get('membench_build', '')})"),  # every result has a version
        *(
            [("GPU code", f"{ctx['code_ran_as']} (the build carries {ctx.get('cuda_architectures', 'unknown')})")]
            if "code_ran_as" in ctx
            else []
        ),
        (
            "cases",
            f"{len(cases)}: {len(ran)} measured, {count(lambda c: c.error)} failed, "
            f"{count(lambda c: c.skipped)} skipped",
        ),
        ("ended", mr.ending(doc)),
        (
            "health",
            f"{marked('noisy')} noisy, {marked('contended')} contended, "
            f"{marked('throttled_batches')} throttled, {marked('clock_event')} under a clock event",
        ),
        ("noisy", noisy_means(doc)),
    ]
    return Table("", ["what", "value"], [[k, v] for k, v in rows])


def figures(doc: dict) -> list[tuple[str, str]]:
    """(family, base64 PNG) for every figure plot.py draws of this run."""
    with tempfile.TemporaryDirectory() as tmp:
        return [
            (path.stem, base64.b64encode(path.read_bytes()).decode("ascii"))
            for path in plot.make_figures(doc, Path(tmp), ["png"])
        ]


NO_STUDY = "No case of the study in this run: membench --sweep=sweeps/seed.json runs them."


def write(
    paths: list[str], out: Path, history: str | None = None, reports: list[str] | None = None, ncu: str = "ncu"
) -> tuple[Path, Path]:
    docs = [mr.load(p) for p in paths]
    shown = report_others.reported(paths, docs)
    doc = docs[shown]
    head = f"membench report: {mr.gpu_name(doc)}"
    study_tables, run, family_tables = study(doc), the_run(doc, paths[shown]), families(doc)
    if history:
        study_tables.append(study_history(history, doc))
    extra = report_others.several(paths, docs)
    brief = report_others.several(paths, docs, every_row=False)
    kernels, kernels_figure = report_others.your_kernels(doc, paths[shown], reports, ncu) if reports else (None, None)
    sections = ["The study on this GPU", "The run", "Every family"] + (["Beside the others"] if extra else [])
    sections += ["Your kernels on this GPU"] if kernels else []
    md = [f"# {md_text(head)}", "", "Contents: " + ", ".join(sections) + ".", "", "## The study on this GPU", ""]
    md += [t.markdown() + "\n" for t in study_tables] or [NO_STUDY + "\n"]
    pictures = figures(doc)
    md += ["## The run", "", run.markdown(), "", "## Every family", ""]
    for t in family_tables:
        md.append(f"### {md_text(t.title)}\n")
        md += [f"![{f}](figures/{f}.png)\n" for f, _ in pictures if f == t.title]
        md.append(Table("", t.header, t.rows, t.note).markdown() + "\n")
    if brief:
        md += [brief, "", "The cases judged the same are on report.html.", ""] if brief != extra else [brief, ""]
    if kernels:
        md += [
            kernels,
            "![your kernels on the measured roofline](figures/your_kernels.png)\n" if kernels_figure else "",
        ]
    page = [
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(head)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(head)}</h1>",
        '<nav><b>Contents:</b> <a href="#study">the study</a> · <a href="#run">the run</a> · '
        + " · ".join(f'<a href="#family-{html.escape(t.title)}">{html.escape(t.title)}</a>' for t in family_tables)
        + (' · <a href="#others">beside the others</a>' if extra else "")
        + "</nav>",
        '<h2 id="study">The study on this GPU</h2>',
        *([t.html() for t in study_tables] or [f"<p>{html.escape(NO_STUDY)}</p>"]),
        '<h2 id="run">The run</h2>',
        run.html(),
        "<h2>Every family</h2>",
    ]
    for t in family_tables:
        page.append(f'<h3 id="family-{html.escape(t.title)}">{html.escape(t.title)}</h3>')
        page += [
            f'<img alt="{html.escape(f)} figure" src="data:image/png;base64,{data}">'
            for f, data in pictures
            if f == t.title
        ]
        page.append(Table("", t.header, t.rows, t.note).html())
    if extra:
        page.append(md_to_html(extra))
    if kernels:
        page.append('<div id="kernels">' + md_to_html(kernels) + "</div>")
        if kernels_figure:
            page.append(
                f'<img alt="your kernels on the measured roofline" src="data:image/png;base64,{kernels_figure}">'
            )
    page.append(f"<script>{CHECK}</script></body></html>")
    (out / "figures").mkdir(parents=True, exist_ok=True)
    if kernels_figure:
        (out / "figures" / "your_kernels.png").write_bytes(base64.b64decode(kernels_figure))
    for f, data in pictures:  # the markdown's figures, beside it (the page holds its own)
        (out / "figures" / f"{f}.png").write_bytes(base64.b64decode(data))
    (out / "report.md").write_text(fit("\n".join(md)))
    (out / "report.html").write_text("\n".join(page))
    return out / "report.html", out / "report.md"


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    out = Path(args.out)
    try:
        if out.exists() and not out.is_dir():
            raise mr.InputError(f"--out {out}: exists and is not a directory")
        written = write(args.results, out, args.history, args.explain, args.ncu)
    except mr.InputError as e:
        return cli.refused("report.py", e)
    except OSError as e:
        print(f"report.py: --out {out}: cannot write ({e.strerror})", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError) as e:  # a file whose cases lack what a table or figure needs
        print(f"report.py: {args.results[0]}: cannot report it ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
