"""Figures for every experiment present in a membench JSON file.

    python scripts/plot.py RESULTS.json --out DIR [--formats png,svg]

One figure per family found, titled as the family declares it and with the
GPU from the file's context, written as DIR/<family>.png and .svg. A family
that declares its figures is drawn from them (figures.py); the few in
PLOTTERS are still drawn by hand. Works on files holding any subset of
families.
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
from membench.figures import title  # noqa: E402

GB = 1e9


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


def bw(case: mr.Case) -> float:
    return (case.median("bytes_per_second") or 0.0) / GB


def finish(ax, xlabel: str, ylabel: str, heading: str, legend: bool, fontsize: int = 7, ncol: int = 1) -> None:
    """Labels, title, grid and (when there is something to name) a legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(heading)
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(fontsize=fontsize, ncol=ncol)


def family_title(doc: dict, family: str) -> str:
    """The title the family declares (an older file's through membench.compat)."""
    declared = md.families(doc).get(family)
    return declared.title if declared else family


def dram_bound(case: mr.Case, copy_rate: float) -> float | None:
    """GB/s of useful bytes if the case moved its modelled DRAM bytes at `copy_rate`."""
    dram = (case.median("dram_read_bytes") or 0) + (case.median("dram_write_bytes") or 0)
    useful = case.median("bytes")
    return copy_rate * useful / dram / GB if dram and useful else None


def plot_global(doc: dict, cases: list[mr.Case], fig: plt.Figure) -> None:
    ax_stride, ax_n = fig.subplots(1, 2)
    geometries = {"strided": "o-", "strided_full_grid": "s--", "strided_readonly": "^-.", "strided_texture": "v:"}
    strided = [c for c in cases if c.variant in geometries]
    for n in sorted({c.params["n"] for c in strided}):
        copy = next((c for c in cases if c.variant == "memcpy" and c.params.get("n") == n), None)
        for variant, style in geometries.items():
            row = sorted(
                (c for c in strided if c.params["n"] == n and c.variant == variant), key=lambda c: c.params["stride"]
            )
            if row:
                ax_stride.plot(
                    [c.params["stride"] for c in row], [bw(c) for c in row], style, label=f"{variant}, n = {n:,}"
                )
        row = sorted(
            (c for c in strided if c.params["n"] == n and c.variant == "strided"), key=lambda c: c.params["stride"]
        )
        if copy and row:
            rate = copy.median("bytes_per_second") or 0
            ax_stride.plot(
                [c.params["stride"] for c in row],
                [dram_bound(c, rate) for c in row],
                "k:",
                alpha=0.7,
                label=f"model: memcpy rate x useful / DRAM bytes (n = {n:,})",
            )
    if not strided:
        ax_stride.axis("off")
        ax_stride.text(0.5, 0.5, "no strided cases in this file", ha="center", va="center")
    else:
        ax_stride.set_xscale("log", base=2)
        ax_stride.set_yscale("log")
    finish(
        ax_stride,
        "stride (floats between neighbouring threads)",
        "effective bandwidth (GB/s, useful bytes)",
        "global/strided: two launch geometries",
        bool(strided),
        7,
    )

    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    offsets = sorted({c.params["offset"] for c in cases if isinstance(c.params.get("offset"), int)})
    shown_offset = next((o for o in offsets if o), offsets[0] if offsets else None)
    for c in cases:
        if c.variant in geometries:
            continue
        label = c.variant
        if c.variant == "vectorized":
            label += f" vec {c.params.get('vec')} ilp {c.params.get('ilp')}"
            if "persistent" in c.params:
                label += " grid-stride" if c.params["persistent"] else " one trip"
        if c.params.get("l2") == "cold":
            label += ", cold L2"
        if "offset" in c.params:  # one offset past alignment stands for them all: no column of dots at one n
            if c.params["offset"] != shown_offset:
                continue
            label += f" offset {shown_offset}"
        series[label].append((c.params["n"], bw(c)))
    peak = mr.context_number(doc, "dram_peak_bytes_per_second")
    if len({n for points in series.values() for n, _ in points}) == 1:
        bars_at_one_n(ax_n, series, peak)
    else:
        lines_by_n(ax_n, series, peak, mr.context_number(doc, "l2_bytes"))
    fig.suptitle(title(doc, family_title(doc, "global")))


def bars_at_one_n(ax, series: dict[str, list[tuple[int, float]]], peak: float | None) -> None:
    """One n: a bar a variant, named on its own row (a line of one point is a dot whose colour must be matched)."""
    rows = sorted(((points[0][1], label) for label, points in series.items()), key=lambda r: r[0])
    ax.barh(range(len(rows)), [r[0] for r in rows], color="tab:blue")
    ax.set_yticks(range(len(rows)), [r[1] for r in rows], fontsize=6)
    if peak:
        ax.axvline(peak / GB, color="red", ls="--", alpha=0.5, label="theoretical DRAM peak")
    n = next(iter(series.values()))[0][0]
    finish(ax, "bandwidth (GB/s, useful bytes read + written)", "", f"global: each variant at n = {n:,}", bool(peak), 7)


def lines_by_n(ax, series: dict[str, list[tuple[int, float]]], peak: float | None, l2: float | None) -> None:
    """Several n: a line a variant, each its own colour and marker (more variants than a colour cycle has)."""
    colours = plt.get_cmap("tab20").colors
    markers = "osv^D<>pP*Xh"
    for k, (label, points) in enumerate(sorted(series.items())):
        points.sort()
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            marker=markers[k % len(markers)],
            color=colours[k % len(colours)],
            label=label,
        )
    if l2:
        ax.axvline(l2 / 8, color="grey", ls=":", label="n where in + out = L2 size")
    if peak:
        ax.axhline(peak / GB, color="red", ls="--", alpha=0.5, label="theoretical DRAM peak")
    ax.set_xscale("log", base=2)
    finish(ax, "n (floats)", "bandwidth (GB/s, read + write)", "global: bandwidth vs n", bool(series), 7)


def plot_layout(doc: dict, cases: list[mr.Case], fig: plt.Figure) -> None:
    """Bars per (n, fields); the marker is what the DRAM model predicts when the
    case moves its modelled DRAM bytes at the rate AoS reaches with every field
    (where that case and the DRAM counters are present), else SoA x dram_efficiency."""
    ax = fig.subplots()
    groups = sorted({(c.params.get("structs", 0), c.params.get("fields", 0)) for c in cases})
    variants = sorted({c.variant for c in cases})
    width = 0.8 / max(len(variants), 1)

    def find(variant: str, n: int, fields: int) -> mr.Case | None:
        return next(
            (
                c
                for c in cases
                if c.variant == variant and c.params.get("structs") == n and c.params.get("fields") == fields
            ),
            None,
        )

    for i, v in enumerate(variants):
        xs, heights, models = [], [], []
        for g, (n, fields) in enumerate(groups):
            case = find(v, n, fields)
            if case is None:
                continue
            full = find("aos", n, 4)
            soa = find("soa", n, fields)
            xs.append(g + i * width)
            heights.append(bw(case))
            if full is not None and case.median("dram_read_bytes") is not None:
                models.append(dram_bound(case, full.median("bytes_per_second") or 0))
            else:
                models.append(bw(soa) * (case.median("dram_efficiency") or 0) if soa else None)
        ax.bar(xs, heights, width, label=v)
        mx = [x for x, m in zip(xs, models) if m is not None]
        ax.plot(
            mx,
            [m for m in models if m is not None],
            "k_",
            markersize=20,
            mew=2,
            label="model (see the figure's note)" if i == 0 else None,
        )
    ax.set_xticks([g + width * (len(variants) - 1) / 2 for g in range(len(groups))])
    ax.set_xticklabels([f"{n:,} structs\n{fields} field(s)" for n, fields in groups])
    ax.set_ylabel("effective bandwidth (GB/s, useful bytes)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.suptitle(
        title(doc, family_title(doc, "layout") + " (model: the AoS all-fields rate x useful / modelled DRAM bytes)")
    )


def plot_tiles(ax, tiles: list[mr.Case]) -> None:
    """shared/column_tile: bars by pad at each tile side, each marked with its read conflict and the blocks an
    SM holds."""
    sides = sorted({c.params["tile_side"] for c in tiles})
    pads = sorted({c.params["pad"] for c in tiles})
    width = 0.8 / len(pads)
    for k, pad in enumerate(pads):
        row = {c.params["tile_side"]: c for c in tiles if c.params["pad"] == pad}
        xs = [i + (k - (len(pads) - 1) / 2) * width for i, side in enumerate(sides) if side in row]
        shown = [row[side] for side in sides if side in row]
        bars = ax.bar(xs, [bw(c) for c in shown], width, label=f"pad {pad}")
        for bar, c in zip(bars, shown):
            ways, blocks = c.median("conflict_ways"), c.median("blocks_per_sm")
            note = f"{ways:g}-way" + (f", {blocks:g}/SM" if blocks is not None else "")
            ax.annotate(
                note,
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=6,
                rotation=90,
            )
    ax.set_xticks(range(len(sides)))
    ax.set_xticklabels([f"{s} x {s} tile" for s in sides], fontsize=8)
    ax.set_ylabel("bandwidth (GB/s, global read + write)")
    ax.set_title("shared/column_tile: the pad by tile side\n(read conflict, blocks an SM holds)")
    ax.margins(y=0.2)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def plot_shared(doc: dict, cases: list[mr.Case], fig: plt.Figure) -> None:
    matrix = [c for c in cases if c.variant in ("row", "column", "swizzle")]
    degree = [c for c in cases if c.variant == "conflict_degree"]
    tiles = [c for c in cases if c.variant == "column_tile"]
    ax_bars, ax_curve, *ax_tiles = fig.subplots(1, 3 if tiles else 2)
    labels, values, ways = [], [], []
    for c in sorted(
        matrix,
        key=lambda c: (c.params.get("side", 0), ["row", "column", "swizzle"].index(c.variant), c.params.get("pad", 0)),
    ):
        label = c.variant + (f"\npad {c.params['pad']}" if "pad" in c.params else "")
        labels.append(f"{label}\nside {c.params.get('side')}")
        values.append(bw(c))
        ways.append(c.median("conflict_ways"))
    bars = ax_bars.bar(range(len(values)), values, color="tab:blue")
    for bar, w in zip(bars, ways):
        if w:
            ax_bars.annotate(
                f"{w:g}-way",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=8,
            )
    ax_bars.set_xticks(range(len(labels)))
    ax_bars.set_xticklabels(labels, fontsize=7)
    ax_bars.set_ylabel("bandwidth (GB/s, global read + write)")
    ax_bars.set_title("32 x 32 tile through shared memory")
    ax_bars.grid(True, axis="y", alpha=0.3)

    for width in sorted({c.params.get("width") for c in degree}):
        row = sorted((c for c in degree if c.params.get("width") == width), key=lambda c: c.params["shared_stride"])
        base = next((bw(c) for c in row if c.params["shared_stride"] == 1), None)
        if not base:
            continue
        strides = [c.params["shared_stride"] for c in row]
        (line,) = ax_curve.plot(strides, [base / bw(c) for c in row], "o-", ms=3, label=f"measured, {width}-byte")
        ax_curve.plot(
            strides,
            [c.median("conflict_ways") for c in row],
            "--",
            color=line.get_color(),
            alpha=0.6,
            label=f"model conflict_ways, {width}-byte",
        )
    ax_curve.set_xlabel("stride between lanes (elements)")
    ax_curve.set_ylabel("slowdown vs stride 1 (x)")
    ax_curve.set_yscale("log", base=2)
    ax_curve.set_title("shared/conflict_degree")
    ax_curve.grid(True, alpha=0.3)
    if degree:
        ax_curve.legend(fontsize=7)
    if tiles:
        plot_tiles(ax_tiles[0], tiles)
    fig.suptitle(title(doc, family_title(doc, "shared")))


# The families whose figures are still drawn by hand; every other family is
# drawn from the figures it declares (figures.py).
PLOTTERS = {"global": plot_global, "layout": plot_layout, "shared": plot_shared}


def draw_family(doc: dict, family: str, cases: list[mr.Case], fig) -> bool:
    """Draws a family's figure into `fig`: from its declared figures, or by hand where PLOTTERS names it;
    False when it has neither."""
    spec = md.families(doc).get(family)
    if spec is not None and figures.drawable(spec, cases):
        figures.draw(doc, spec, cases, fig)
        return True
    if family in PLOTTERS:
        PLOTTERS[family](doc, cases, fig)
        return True
    return False


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
