"""Figures drawn from what a family declares (membench.results.Family): no
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

from membench import levels
from membench import declarations as md
from membench import cli
from membench import results as mr

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter, NullLocator
except ModuleNotFoundError as error:
    cli.missing_package("figures.py", error)

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
    factor, p = cli.prefix(top)
    return (factor, joined(p)) if p else (1.0, unit)


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


def x_of(case: mr.Case, x: str):
    """A case's place along x: its value of the axis, or its variant."""
    return case.variant if x == "variant" else case.params[x]


def best(doc: dict, figure: md.Figure, cases: list[mr.Case]) -> list[mr.Case]:
    """Of the cases that differ only in the figure's best_of axes, the one with the best y (by the catalog)."""
    if not figure.best_of:
        return cases
    lower = mr.better(doc, figure.y) == "lower"
    kept: dict[tuple, mr.Case] = {}
    for c in cases:
        key = (c.variant, tuple(sorted((k, str(v)) for k, v in c.params.items() if k not in figure.best_of)))
        held = kept.get(key)
        value = c.median(figure.y)
        if held is None or (value < held.median(figure.y) if lower else value > held.median(figure.y)):
            kept[key] = c
    return [c for c in cases if c in kept.values()]


def series(cases: list[mr.Case], x: str, best_of: tuple[str, ...] = ()) -> dict[tuple, list[mr.Case]]:
    """The cases by every axis, tag and variant that varies among them, but x and the best_of axes; in order
    (numbers as numbers)."""
    keys = sorted({k for c in cases for k in c.params if k != x and k not in best_of})
    varying = [k for k in keys if len({c.params.get(k) for c in cases}) > 1]
    by_variant = x != "variant" and len({c.variant for c in cases}) > 1
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


def axis_unit(doc: dict, family: md.Family, axis: str) -> str:
    declared = next((a.get("unit", "") for a in family.axes if a.get("name") == axis), "")
    if declared:
        return declared
    entries = doc.get("membench", {}).get("cases", []) if isinstance(doc.get("membench"), dict) else []
    for entry in entries if isinstance(entries, list) else []:
        for a in entry.get("axes", []) if isinstance(entry, dict) else []:
            if isinstance(a, dict) and a.get("name") == axis:
                return str(a.get("unit", ""))
    return ""


def positions(family: md.Family, cases: list[mr.Case], x: str, categories: bool) -> tuple[dict, list[str]]:
    """Where each x value sits: a number as itself; a named axis's names (or the variants, in the file's order)
    at 0, 1, ... in declared order; with `categories`, numbers too, in order."""
    values = list(dict.fromkeys(x_of(c, x) for c in cases))
    if all(isinstance(v, int) for v in values) and not categories:
        return {v: v for v in values}, []
    declared = family.axis_names(x)
    names = [n for n in declared if n in values] + [v for v in values if v not in declared]
    if all(isinstance(v, int) for v in names):
        names = sorted(names)
    return {v: names.index(v) for v in values}, [str(n) for n in names]


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


def members(figure: md.Figure, cases: list[mr.Case]) -> list[mr.Case]:
    """The cases a figure draws: those of its variants that have its x axis and its y counter."""
    return [
        c
        for c in cases
        if (figure.x == "variant" or figure.x in c.params)
        and (not figure.variants or c.variant in figure.variants)
        and c.median(figure.y) is not None
    ]


def draw_series(ax, k: int, count: int, xs: list, ys: list, errs: list, name: str, bars: bool) -> tuple:
    """One series: bars offset within their slot, or a line with its markers; its error bars; its colour."""
    tone = colour(k, count)
    if bars:
        width = 0.8 / count
        xs = [x - 0.4 + width * (k + 0.5) for x in xs]
        ax.bar(xs, ys, width * 0.95, yerr=errs if any(errs) else None, color=tone, label=name, capsize=2)
    else:
        ax.plot(xs, ys, color=tone, ls=LINESTYLES[(k // 20) % 4], marker=MARKERS[k % 8], ms=4, label=name)
        if any(errs):
            ax.errorbar(xs, ys, yerr=errs, fmt="none", ecolor=tone, capsize=2)
    return tone, xs


def panel(doc: dict, family: md.Family, figure: md.Figure, cases: list[mr.Case], ax) -> None:
    chosen = best(doc, figure, members(figure, cases))
    divisor, shown = scale(mr.meaning(doc, figure.y).unit, [c.median(figure.y) for c in chosen])
    groups = series(chosen, figure.x, figure.best_of)
    one_x = len({x_of(c, figure.x) for c in chosen}) == 1
    categorical = figure.bars or figure.x == "variant" or bool(family.axis_names(figure.x))
    place, names = positions(family, chosen, figure.x, figure.bars)
    if one_x and not figure.bars:  # one value along x: a bar per series, named under it
        place, names = {x_of(chosen[0], figure.x): 0}, []
    units = {k: axis_unit(doc, family, k) for key in groups for k, _ in key}
    bars = figure.bars or one_x
    for k, (key, row) in enumerate(groups.items()):
        row.sort(key=lambda c: place[x_of(c, figure.x)])
        xs = [place[x_of(c, figure.x)] for c in row]
        ys = [c.median(figure.y) / divisor for c in row]
        errs = [spread(c, figure.y) / divisor for c in row]
        tone, xs = draw_series(ax, k, len(groups), xs, ys, errs, label(key, row[0].variant, units), bars)
        models = [(x, c.median(figure.model)) for x, c in zip(xs, row) if figure.model]
        models = [(x, m / divisor) for x, m in models if m is not None]
        if models:
            style = dict(marker="_", ls="none", ms=18 if one_x else 10, mew=2) if bars else dict(ls="--")
            ax.plot([m[0] for m in models], [m[1] for m in models], color=tone, alpha=0.7, **style)
    for key in figure.lines:
        value = mr.context_number(doc, key)
        if value:
            ax.axhline(value / divisor, color="red", ls="--", alpha=0.6, label=key.replace("_", " "))
    x_unit = axis_unit(doc, family, figure.x)
    for key in figure.vlines if not categorical else ():
        value = mr.context_number(doc, key)
        if value:
            ax.axvline(
                value, color="grey", ls=":", alpha=0.8, label=f"{key.replace('_', ' ')} ({levels.size(int(value))})"
            )
    if figure.model and any(c.median(figure.model) is not None for c in chosen):
        ax.plot([], [], "k_" if bars else "k--", alpha=0.7, label=f"{'mark' if bars else 'dashed'}: {figure.model}")
    if one_x and not figure.bars:
        ax.set_xticks(
            [0.4 - 0.8 / len(groups) * (len(groups) - k - 0.5) for k in range(len(groups))],
            [label(key, m[0].variant, units) for key, m in groups.items()],
            rotation=15,
            ha="right",
            fontsize=7,
        )
        only = x_of(chosen[0], figure.x)
        shown_x = levels.size(only) if x_unit == "bytes" and isinstance(only, int) else str(only)
        ax.set_xlabel(f"{figure.x} = {shown_x}")
    else:
        if names and x_unit == "bytes" and all(n.isdigit() for n in names):
            names = [levels.size(int(n)) for n in names]
        format_x(ax, x_unit, list(place.values()), figure.x_log and not categorical, names)
        ax.set_xlabel(figure.x + (f" ({x_unit})" if x_unit not in ("", "name", figure.x) else ""))
    if figure.y_log:
        # Labelled at 1, 2 and 5 of every decade, in plain numbers: a decade or two of latency is more than one tick.
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        # From zero, with room above the highest point: autoscaling pads by the data's range, which for
        # flat lines is nothing, so they would run along the frame.
        ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], ax.dataLim.y1 * 1.05))
    ax.set_ylabel(f"{figure.y} ({shown})" if shown else figure.y)
    ax.set_title(figure.heading or f"{family.name}: {figure.y} by {figure.x}")
    ax.grid(True, alpha=0.3)
    if groups:
        ax.legend(fontsize=6 if len(groups) > 8 else 7, ncol=2 if len(groups) > 8 else 1)


def drawable(family: md.Family, cases: list[mr.Case]) -> list[md.Figure]:
    """The declared figures that have a case to draw."""
    return [f for f in family.figures if members(f, cases)]


def draw(doc: dict, family: md.Family, cases: list[mr.Case], fig) -> None:
    """The family's declared figures side by side in `fig`."""
    chosen = drawable(family, cases)
    for ax, figure in zip(fig.subplots(1, len(chosen), squeeze=False)[0], chosen):
        panel(doc, family, figure, cases, ax)
    fig.suptitle(title(doc, family.title))
