"""Figures drawn from what a family declares (membench_results.Family): no
family is named here, so a new family gets its figure without a change.

One panel per declared figure. Along x the declared axis; up y the declared
counter, in its unit from the file's catalog, scaled to a readable prefix.
Every combination of the other axes and tags (the variant among them) that
varies is a line of its own, so points that differ in an axis not drawn are
never joined. Each point carries its spread (the repetitions' standard
deviation, else the noise the case reported); a declared model counter is
drawn dashed in its line's colour; declared context keys are drawn across.
A figure whose cases all sit at one x is drawn as bars.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

import levels
import membench_results as mr

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator
except ModuleNotFoundError as error:
    mr.missing_package("figures.py", error)

PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def title(doc: dict, what: str) -> str:
    date = str(doc.get("context", {}).get("date", ""))[:10]
    return f"{what}\n{mr.gpu_name(doc)}" + (f", {date}" if date else "")


def scale(unit: str, values: list[float]) -> tuple[float, str]:
    """A divisor and the unit it leaves (B/s -> GB/s) for values of a rate or a size; 1 for the rest."""
    if not values or not (unit.endswith("/s") or unit == "B"):
        return 1.0, unit
    top = max(abs(v) for v in values)
    joined = (lambda p: p + unit) if unit.startswith("B") else (lambda p: f"{p} {unit}")
    return next(((f, joined(p)) for f, p in PREFIXES if top >= f), (1.0, unit))


def spread(case: mr.Case, metric: str) -> float:
    """The repetitions' standard deviation of a metric, else its median times the noise the case reported."""
    values = case.values(metric)
    if len(values) >= 2:
        return statistics.stdev(values)
    noise = case.median("noise_pct")
    return (values[0] * noise / 100.0) if values and noise is not None and noise > 0 else 0.0


def colour(k: int, count: int):
    """A colour that no other line of the panel has, up to twenty; past that the line style tells them apart."""
    palette = plt.get_cmap("tab10" if count <= 10 else "tab20")
    return palette(k % palette.N)


def series(cases: list[mr.Case], x: str) -> dict[tuple, list[mr.Case]]:
    """The cases by every axis, tag and variant that varies among them, but x; in order (numbers as numbers)."""
    keys = sorted({k for c in cases for k in c.params if k != x})
    varying = [k for k in keys if len({c.params.get(k) for c in cases}) > 1]
    by_variant = len({c.variant for c in cases}) > 1
    out: dict[tuple, list[mr.Case]] = defaultdict(list)
    for c in cases:
        key = ((("variant", c.variant),) if by_variant else ()) + tuple((k, c.params.get(k)) for k in varying)
        out[key].append(c)
    order = lambda key: [(v is None, isinstance(v, str), v if isinstance(v, int) else str(v)) for _, v in key]  # noqa: E731
    return dict(sorted(out.items(), key=lambda item: order(item[0])))


def label(key: tuple, fallback: str, units: dict[str, str]) -> str:
    """'variant, axis value, ...' (sizes of a byte axis as sizes), leaving out the axes a case does not have."""

    def value(k: str, v) -> str:
        return levels.size(v) if units.get(k) == "bytes" and isinstance(v, int) else str(v)

    parts = [str(v) if k == "variant" else f"{k} {value(k, v)}" for k, v in key if v is not None]
    return ", ".join(parts) if parts else fallback


def axis_unit(doc: dict, family: mr.Family, axis: str) -> str:
    declared = next((a.get("unit", "") for a in family.axes if a.get("name") == axis), "")
    if declared:
        return declared
    entries = doc.get("membench", {}).get("cases", []) if isinstance(doc.get("membench"), dict) else []
    for entry in entries if isinstance(entries, list) else []:
        for a in entry.get("axes", []) if isinstance(entry, dict) else []:
            if isinstance(a, dict) and a.get("name") == axis:
                return str(a.get("unit", ""))
    return ""


def positions(family: mr.Family, cases: list[mr.Case], x: str) -> tuple[dict, list[str]]:
    """Where each x value sits: a number as itself; a named axis's names at 0, 1, ... in declared order."""
    values = {c.params[x] for c in cases}
    if all(isinstance(v, int) for v in values):
        return {v: v for v in values}, []
    names = [n for n in family.axis_names(x) if n in values] + sorted(
        str(v) for v in values if v not in family.axis_names(x)
    )
    return {v: names.index(str(v)) for v in values}, names


def format_x(ax, family_unit: str, xs: list[int], log: bool, names: list[str]) -> None:
    """Ticks at the values drawn: names on a named axis, sizes on a byte axis, integers on the rest."""
    if names:
        ax.xaxis.set_major_locator(FixedLocator(range(len(names))))
        ax.set_xticklabels(names)
        return
    fmt = FuncFormatter(lambda v, _: levels.size(int(v)) if family_unit == "bytes" else f"{v:,.0f}")
    distinct = sorted(set(xs))
    if log and distinct[0] > 0 and distinct[-1] / distinct[0] >= 4:
        ax.set_xscale("log", base=2)
        ticks = distinct if len(distinct) <= 12 else distinct[:: -(-len(distinct) // 12)]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_minor_locator(NullLocator())
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=min(len(distinct) + 1, 10)))
    ax.xaxis.set_major_formatter(fmt)
    ax.tick_params(axis="x", labelrotation=30 if len(distinct) > 6 else 0, labelsize=7)


def members(figure: mr.Figure, cases: list[mr.Case]) -> list[mr.Case]:
    """The cases a figure draws: those of its variants that have its x axis and its y counter."""
    return [
        c
        for c in cases
        if figure.x in c.params
        and (not figure.variants or c.variant in figure.variants)
        and c.median(figure.y) is not None
    ]


def panel(doc: dict, family: mr.Family, figure: mr.Figure, cases: list[mr.Case], ax) -> None:
    chosen = members(figure, cases)
    unit = mr.meaning(doc, figure.y).unit
    divisor, shown = scale(unit, [c.median(figure.y) for c in chosen])
    place, names = positions(family, chosen, figure.x)
    groups = series(chosen, figure.x)
    units = {k: axis_unit(doc, family, k) for key in groups for k, _ in key}
    one_x = len(place) == 1
    for k, (key, row) in enumerate(groups.items()):
        row.sort(key=lambda c: place[c.params[figure.x]])
        xs = [place[c.params[figure.x]] for c in row]
        ys = [c.median(figure.y) / divisor for c in row]
        errs = [spread(c, figure.y) / divisor for c in row]
        tone, name = colour(k, len(groups)), label(key, row[0].variant, units)
        if one_x:
            ax.bar(k, ys[0], 0.6, yerr=errs[0], color=tone, label=name, capsize=3)
        else:
            ax.plot(xs, ys, color=tone, ls=LINESTYLES[(k // 20) % 4], marker=MARKERS[k % 8], ms=4, label=name)
            if any(errs):
                ax.errorbar(xs, ys, yerr=errs, fmt="none", ecolor=tone, capsize=2)
        models = [(x, c.median(figure.model)) for x, c in zip(xs, row) if figure.model]
        models = [(x, m / divisor) for x, m in models if m is not None]
        if models:
            ax.plot(
                [k] * len(models) if one_x else [m[0] for m in models],
                [m[1] for m in models],
                "_" if one_x else "--",
                color=tone,
                alpha=0.7,
                ms=18,
                mew=2,
            )
    for key in figure.lines:
        value = mr.context_number(doc, key)
        if value:
            ax.axhline(value / divisor, color="red", ls="--", alpha=0.6, label=key.replace("_", " "))
    if figure.model and any(c.median(figure.model) is not None for c in chosen):
        ax.plot([], [], "k--", alpha=0.7, label=f"dashed: {figure.model}")
    x_unit = axis_unit(doc, family, figure.x)
    if one_x:
        ax.set_xticks(
            range(len(groups)),
            [label(key, m[0].variant, units) for key, m in groups.items()],
            rotation=15,
            ha="right",
            fontsize=7,
        )
        ax.set_xlim(-0.75, len(groups) - 0.25)
        only = next(iter(place))
        shown_x = levels.size(only) if x_unit == "bytes" and isinstance(only, int) else str(only)
        ax.set_xlabel(f"{figure.x} = {shown_x}")
    else:
        format_x(ax, x_unit, list(place.values()), figure.x_log, names)
        ax.set_xlabel(figure.x + (f" ({x_unit})" if x_unit not in ("", "name", figure.x) else ""))
    if figure.y_log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel(f"{figure.y} ({shown})" if shown else figure.y)
    ax.set_title(figure.heading or f"{family.name}: {figure.y} by {figure.x}")
    ax.grid(True, alpha=0.3)
    if groups:
        ax.legend(fontsize=6 if len(groups) > 8 else 7, ncol=2 if len(groups) > 8 else 1)


def drawable(family: mr.Family, cases: list[mr.Case]) -> list[mr.Figure]:
    """The declared figures that have a case to draw."""
    return [f for f in family.figures if members(f, cases)]


def draw(doc: dict, family: mr.Family, cases: list[mr.Case], fig) -> None:
    """The family's declared figures side by side in `fig`."""
    chosen = drawable(family, cases)
    for ax, figure in zip(fig.subplots(1, len(chosen), squeeze=False)[0], chosen):
        panel(doc, family, figure, cases, ax)
    fig.suptitle(title(doc, family.title))
