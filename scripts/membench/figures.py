"""Figures drawn from what a family declares (membench.results.Family): no
family is named here, so a new family gets its figure without a change.

One panel per declared figure. Along x the declared axis; up y the declared
counter, in its unit from the file's catalog, scaled to a readable prefix.
Every combination of the other axes and tags (the variant among them) that
varies is a line of its own, so points that differ in an axis not drawn are
never joined. Each point carries its spread (the repetitions' standard
deviation, else the noise the case reported); a declared model counter, or a
model computed from another case (memcpy's rate x useful / DRAM bytes), is
drawn dashed in its line's colour; declared context keys are drawn across.
A figure may draw y as a slowdown against another case, and write counters
on each point. A figure whose cases all sit at one x is drawn as bars.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass

from membench import levels, roofline
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


def counterpart(pattern: md.Pattern, case: mr.Case, cases: list[mr.Case]) -> mr.Case | None:
    """The case a figure's pattern names beside `case`: of the pattern's variant, at the axes it fixes, and every
    other axis and tag it has the drawn case's; of several, the one that shares the most with it (a cold case's
    cold counterpart, not the warm one). None where there is none, or two share as much."""
    fixed = dict(pattern.axes)
    found = []
    for c in cases:
        if c.variant != pattern.variant or any(c.params.get(k) != v for k, v in fixed.items()):
            continue
        rest = {k: v for k, v in c.params.items() if k not in fixed}
        if all(case.params.get(k) == v for k, v in rest.items()):
            found.append((len(rest), c))
    found.sort(key=lambda f: -f[0])
    if not found or (len(found) > 1 and found[0][0] == found[1][0]):
        return None
    return found[0][1]


def y_values(doc: dict, figure: md.Figure, cases: list[mr.Case]) -> dict[str, float]:
    """Each case's y, by name: its counter; with a slowdown, how many times slower it is than its counterpart
    (the counterpart's y over its own where higher is better). A case without one is left out."""
    out = {}
    lower = mr.better(doc, figure.y) == "lower"
    for c in cases:
        value = c.median(figure.y)
        if value is not None and figure.slowdown_vs is not None:
            base = counterpart(figure.slowdown_vs, c, cases)
            against = base.median(figure.y) if base is not None else None
            value = (value / against if lower else against / value) if against and value else None
        if value is not None:
            out[c.name] = value
    return out


def model_value(figure: md.Figure, case: mr.Case, cases: list[mr.Case]) -> float | None:
    """What the figure's model says of a case: its model counter, or the model computed from another case (that
    case's y, times this one's `times` counters, over the sum of the `over` counters it has)."""
    derived = figure.model_from
    if derived is None:
        return case.median(figure.model) if figure.model else None
    base = counterpart(derived.of, case, cases)
    rate = base.median(figure.y) if base is not None else None
    factors = [case.median(t) for t in derived.times]
    over = sum(v for v in (case.median(o) for o in derived.over) if v is not None)
    if rate is None or None in factors or not over:
        return None
    return rate * math.prod(factors) / over


def best(doc: dict, figure: md.Figure, cases: list[mr.Case], ys: dict[str, float]) -> list[mr.Case]:
    """Of the cases that differ only in the figure's best_of axes, the one with the best y (by the catalog)."""
    if not figure.best_of:
        return cases
    lower = figure.slowdown_vs is not None or mr.better(doc, figure.y) == "lower"
    kept: dict[tuple, mr.Case] = {}
    for c in cases:
        key = (c.variant, tuple(sorted((k, str(v)) for k, v in c.params.items() if k not in figure.best_of)))
        held = kept.get(key)
        value = ys[c.name]
        if held is None or (value < ys[held.name] if lower else value > ys[held.name]):
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


def members(figure: md.Figure, cases: list[mr.Case], ys: dict[str, float]) -> list[mr.Case]:
    """The cases a figure draws: those of its variants that have its x axis and a y."""
    return [
        c
        for c in cases
        if (figure.x == "variant" or figure.x in c.params)
        and (not figure.variants or c.variant in figure.variants)
        and c.name in ys
    ]


def note(doc: dict, figure: md.Figure, case: mr.Case) -> str:
    """The counters a figure writes on a point, each in its unit ('32 ways, 16 blocks')."""
    values = [(case.median(k), mr.meaning(doc, k).unit) for k in figure.notes]
    one = lambda v, unit: unit[:-1] if v == 1 and unit.endswith("s") else unit  # noqa: E731  (1 way, 2 ways)
    return ", ".join(f"{v:g} {one(v, unit)}".strip() for v, unit in values if v is not None)


def draw_series(ax, k: int, count: int, xs: list, ys: list, errs: list, name: str, widths: list | None) -> str:
    """One series: bars of these widths (placed by the caller), or a line with its markers; its error bars; its
    colour."""
    tone = colour(k, count)
    if widths is not None:
        ax.bar(xs, ys, [w * 0.95 for w in widths], yerr=errs if any(errs) else None, color=tone, label=name, capsize=2)
    else:
        ax.plot(xs, ys, color=tone, ls=LINESTYLES[(k // 20) % 4], marker=MARKERS[k % 8], ms=4, label=name)
        if any(errs):
            ax.errorbar(xs, ys, yerr=errs, fmt="none", ecolor=tone, capsize=2)
    return tone


def slots(groups: dict[tuple, list[mr.Case]], place: dict, x: str) -> dict:
    """Per place along x, the series that have a bar there: they share its slot, so a series absent there leaves
    no gap (column's pads side by side, row alone in its slot)."""
    out: dict = defaultdict(list)
    for k, row in enumerate(groups.values()):
        for c in row:
            if k not in out[place[x_of(c, x)]]:
                out[place[x_of(c, x)]].append(k)
    return out


@dataclass
class Layout:
    """Where a panel's cases sit: each case's y (by name), the cases drawn, the divisor of y and the unit it
    leaves, the series, each x value's place and the names along x, each series axis's unit, whether its cases
    sit at one x, whether it draws bars, and whether x is a category."""

    ys: dict[str, float]
    chosen: list[mr.Case]
    divisor: float
    shown: str
    groups: dict[tuple, list[mr.Case]]
    place: dict
    names: list[str]
    units: dict[str, str]
    one_x: bool
    bars: bool
    categorical: bool


def layout(doc: dict, family: md.Family, figure: md.Figure, cases: list[mr.Case]) -> Layout:
    ys = y_values(doc, figure, cases)
    chosen = best(doc, figure, members(figure, cases, ys), ys)
    unit = "x" if figure.slowdown_vs is not None else mr.meaning(doc, figure.y).unit
    divisor, shown = scale(unit, [ys[c.name] for c in chosen])
    groups = series(chosen, figure.x, figure.best_of)
    one_x = len({x_of(c, figure.x) for c in chosen}) == 1
    place, names = positions(family, chosen, figure.x, figure.bars)
    if one_x and not figure.bars:  # one value along x: a bar per series, named under it
        place, names = {x_of(chosen[0], figure.x): 0}, []
    units = {k: axis_unit(doc, family, k) for key in groups for k, _ in key}
    categorical = figure.bars or figure.x == "variant" or bool(family.axis_names(figure.x))
    return Layout(ys, chosen, divisor, shown, groups, place, names, units, one_x, figure.bars or one_x, categorical)


def series_name(key: tuple, row: list[mr.Case], units: dict[str, str]) -> str:
    """A series' label; one with none of the varying axes is named by its variants (row, swizzle: no pad)."""
    return label(key, ", ".join(dict.fromkeys(c.variant for c in row)), units)


def draw_groups(ax, doc: dict, figure: md.Figure, cases: list[mr.Case], lay: Layout) -> bool:
    """Every series: its points or bars with their spread, the counters noted on them, and the model beside them
    (on a bar, a black mark across it; beside a line, a dashed line in its colour); whether a model was drawn."""
    shared = slots(lay.groups, lay.place, figure.x)
    modelled = False
    for k, (key, row) in enumerate(lay.groups.items()):
        row.sort(key=lambda c: lay.place[x_of(c, figure.x)])
        xs = [lay.place[x_of(c, figure.x)] for c in row]
        widths = [0.8 / len(shared[x]) for x in xs] if lay.bars else None
        if widths is not None:
            xs = [x - 0.4 + w * (shared[x].index(k) + 0.5) for x, w in zip(xs, widths)]
        heights = [lay.ys[c.name] / lay.divisor for c in row]
        # The repetitions' spread, relative: a slowdown spreads as its case's y does.
        errs = [spread(c, figure.y) / (c.median(figure.y) or math.inf) * lay.ys[c.name] / lay.divisor for c in row]
        name = series_name(key, row, lay.units)
        # One x: each bar is named under it, and the legend keeps to what is drawn across.
        hidden = lay.one_x and not figure.bars
        tone = draw_series(ax, k, len(lay.groups), xs, heights, errs, "_" + name if hidden else name, widths)
        for x, height, c in zip(xs, heights, row) if figure.notes else ():
            ax.annotate(note(doc, figure, c), (x, height), xytext=(0, 4), textcoords="offset points", ha="center",
                        va="bottom", fontsize=6, rotation=90 if len(figure.notes) > 1 else 0)  # fmt: skip
        models = [(x, model_value(figure, c, cases)) for x, c in zip(xs, row)]
        models = [(x, m / lay.divisor) for x, m in models if m is not None]
        if models:
            style = dict(marker="_", ls="none", ms=18 if lay.one_x else 10, mew=2) if lay.bars else dict(ls="--")
            ax.plot([m[0] for m in models], [m[1] for m in models], color="black" if lay.bars else tone, alpha=0.7,
                    **style)  # fmt: skip
            modelled = True
    return modelled


def reference_lines(ax, doc: dict, figure: md.Figure, lay: Layout, modelled: bool) -> None:
    """Context keys across (in y's unit) and upright (in x's, on a numeric x), and the model's sample in the
    legend where a model was drawn."""
    for key in figure.lines:
        value = mr.context_number(doc, key)
        if value:
            ax.axhline(value / lay.divisor, color="red", ls="--", alpha=0.6, label=key.replace("_", " "))
    for key in figure.vlines if not lay.categorical else ():
        value = mr.context_number(doc, key)
        if value:
            ax.axvline(
                value, color="grey", ls=":", alpha=0.8, label=f"{key.replace('_', ' ')} ({levels.size(int(value))})"
            )
    if modelled:
        what = figure.model_from.label if figure.model_from else figure.model
        ax.plot([], [], "k_" if lay.bars else "k--", alpha=0.7, label=f"{'mark' if lay.bars else 'dashed'}: {what}")


def format_axes(ax, doc: dict, family: md.Family, figure: md.Figure, lay: Layout) -> None:
    """x as its values, names or sizes (one x: the series named under their bars); y from zero or on a log scale;
    the labels, the title, the grid and the legend of what is not named under a bar."""
    x_unit = axis_unit(doc, family, figure.x)
    if lay.one_x and not figure.bars:
        count = len(lay.groups)
        ax.set_xticks(
            [0.4 - 0.8 / count * (count - k - 0.5) for k in range(count)],
            [series_name(key, m, lay.units) for key, m in lay.groups.items()],
            rotation=15,
            ha="right",
            fontsize=7,
        )
        only = x_of(lay.chosen[0], figure.x)
        shown_x = (levels.size(only) if x_unit == "bytes" else f"{only:,}") if isinstance(only, int) else str(only)
        ax.set_xlabel(f"{figure.x} = {shown_x}")
    else:
        names = lay.names
        if names and x_unit == "bytes" and all(n.isdigit() for n in names):
            names = [levels.size(int(n)) for n in names]
        format_x(ax, x_unit, list(lay.place.values()), figure.x_log and not lay.categorical, names)
        ax.set_xlabel(figure.x + (f" ({x_unit})" if x_unit not in ("", "name", figure.x) else ""))
    if figure.y_log:
        # Labelled at 1, 2 and 5 of every decade, in plain numbers: a decade or two of latency is more than one tick.
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
    else:
        # From zero, with room above the highest point (and its notes): autoscaling pads by the data's range,
        # which for flat lines is nothing, so they would run along the frame.
        ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], ax.dataLim.y1 * (1.25 if figure.notes else 1.05)))
    what = f"slowdown against {figure.slowdown_vs.text()}" if figure.slowdown_vs else figure.y
    ax.set_ylabel(f"{what} ({lay.shown})" if lay.shown else what)
    ax.set_title(figure.heading or f"{family.name}: {figure.y} by {figure.x}")
    ax.grid(True, alpha=0.3)
    shown_labels = [t for t in ax.get_legend_handles_labels()[1] if not t.startswith("_")]
    if shown_labels:
        ax.legend(fontsize=6 if len(shown_labels) > 8 else 7, ncol=2 if len(shown_labels) > 8 else 1)


def panel(doc: dict, family: md.Family, figure: md.Figure, cases: list[mr.Case], ax) -> None:
    """One declared figure in `ax`: where its cases sit, its series, its reference lines, its axes."""
    if figure.roofline:  # under the file's roofs
        ys = y_values(doc, figure, cases)
        return roofline.draw(ax, doc, figure, best(doc, figure, members(figure, cases, ys), ys), ys)
    lay = layout(doc, family, figure, cases)
    modelled = draw_groups(ax, doc, figure, cases, lay)
    reference_lines(ax, doc, figure, lay, modelled)
    format_axes(ax, doc, family, figure, lay)


def drawable(doc: dict, family: md.Family, cases: list[mr.Case]) -> list[md.Figure]:
    """The declared figures that have a case to draw."""
    return [f for f in family.figures if members(f, cases, y_values(doc, f, cases))]


def draw(doc: dict, family: md.Family, cases: list[mr.Case], fig) -> None:
    """The family's declared figures side by side in `fig`."""
    chosen = drawable(doc, family, cases)
    for ax, figure in zip(fig.subplots(1, len(chosen), squeeze=False)[0], chosen):
        panel(doc, family, figure, cases, ax)
    fig.suptitle(title(doc, family.title))
