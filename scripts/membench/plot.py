"""Figures for every experiment present in a membench JSON file.

    python scripts/plot.py RESULTS.json --out DIR [--formats png,svg]

One figure per family found, titled as the family declares it and with the
GPU from the file's context, written as DIR/<family>.png and .svg, drawn from
the figures the family declares (figures.py): no family is named here. Works
on files holding any subset of families.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from membench import declarations as md
from membench import cli
from membench import results as mr

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backend_bases import FigureCanvasBase
except ModuleNotFoundError as error:
    cli.missing_package("plot.py", error)

from membench import figures  # noqa: E402  (after matplotlib: a missing package is plot.py's one line)


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="plot.py", description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="Google Benchmark JSON written by membench")
    p.add_argument("--out", required=True, help="directory for the figures")
    p.add_argument("--formats", default="png,svg", help="comma-separated image formats (default png,svg)")
    return p


def by_family(doc: dict) -> dict[str, list[mr.Case]]:
    """Cases that ran (errors left out), grouped by family."""
    out: dict[str, list[mr.Case]] = defaultdict(list)
    for case in mr.cases(doc).values():
        if case.error is None and case.runs:
            out[case.family].append(case)
    return out


def draw_family(doc: dict, family: str, cases: list[mr.Case], fig) -> bool:
    """Draws a family's declared figures into `fig`; False when it declares none that has a case to draw."""
    spec = md.families(doc).get(family)
    if spec is None or not figures.drawable(doc, spec, cases):
        return False
    figures.draw(doc, spec, cases, fig)
    return True


def make_figures(doc: dict, out_dir: Path, formats: list[str]) -> list[Path]:
    """Writes one figure per family present; returns the paths written."""
    written = []
    for family, cases in by_family(doc).items():
        fig = plt.figure(figsize=(13, 5.5), layout="constrained")
        if draw_family(doc, family, cases, fig):
            for fmt in formats:
                path = out_dir / f"{family}.{fmt}"
                fig.savefig(path, dpi=110)
                written.append(path)
        plt.close(fig)
    return written


def check_output(out: str, formats: str) -> tuple[Path, list[str]]:
    """The output directory and image formats, or InputError before anything is drawn."""
    chosen = [f.strip() for f in formats.split(",")]
    supported = FigureCanvasBase.get_supported_filetypes()
    unknown = [f for f in chosen if f not in supported]  # an empty item among them: "png,,svg"
    if unknown:
        raise mr.InputError(
            f"--formats {formats}: not an image format matplotlib writes "
            f"(one or more of {', '.join(sorted(supported))})"
        )
    out_dir = Path(out)
    if out_dir.exists() and not out_dir.is_dir():
        raise mr.InputError(f"--out {out}: exists and is not a directory")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise mr.InputError(f"--out {out}: cannot create the directory ({e.strerror})") from e
    return out_dir, chosen


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        out_dir, formats = check_output(args.out, args.formats)
        doc = mr.load(args.results)
        try:
            written = make_figures(doc, out_dir, formats)
        except mr.InputError as e:  # a declaration in the file that is not what membench writes
            raise mr.InputError(f"{args.results}: {e}") from e
    except mr.InputError as e:
        return cli.refused("plot.py", e)
    except (KeyError, TypeError, ValueError) as e:  # a file whose cases lack what a figure needs
        print(f"plot.py: {args.results}: cannot draw its figures ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    if not written:
        print("plot.py: no case of a known family ran in this file", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0
