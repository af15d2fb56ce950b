"""What the families declare downstream of them, as the result file carries it (membench.families): each
family's title, axes, figures and rows in the study's tables (a file written before they travelled has them
from its upgrade at load). plot.py, figures.py and report.py read them here; none names a family.
"""

from __future__ import annotations

from dataclasses import dataclass

from membench import results as mr


@dataclass(frozen=True)
class Pattern:
    """Other cases a figure reads beside each case it draws: a variant and the axes it fixes; every other axis and
    tag is the drawn case's (figures.counterpart)."""

    variant: str
    axes: tuple[tuple[str, int | str], ...]

    def text(self) -> str:
        return ", ".join([self.variant, *(f"{k} {v}" for k, v in self.axes)])


@dataclass(frozen=True)
class ModelFrom:
    """A model line computed from another case: its y, times the drawn case's `times` counters, over the sum of its
    `over` counters (memcpy's rate x useful / modelled DRAM bytes)."""

    label: str
    of: Pattern
    times: tuple[str, ...]
    over: tuple[str, ...]


@dataclass(frozen=True)
class Figure:
    """A figure a family declares: the axis along x ("variant": the variants) and whether on a log scale, the
    counter up y, a model counter drawn beside it, the variants drawn (empty: every one with x), context keys
    drawn across (in y's unit) and upright (in x's), the axes over which only the best y is drawn, and bars; a
    model computed from another case, y as a slowdown against another case, and counters noted on each point."""

    heading: str
    x: str
    y: str
    x_log: bool
    y_log: bool
    model: str
    variants: tuple[str, ...]
    lines: tuple[str, ...]
    vlines: tuple[str, ...]
    best_of: tuple[str, ...]
    bars: bool
    notes: tuple[str, ...] = ()
    model_from: ModelFrom | None = None
    slowdown_vs: Pattern | None = None
    roofline: bool = False
    pipe: str = ""


@dataclass(frozen=True)
class StudyRow:
    """A row of one of the study's tables: its table (number and title), the case that measures what the article
    measured, the article's GB/s on an RTX 4090, and the counters that say why."""

    table: int
    table_title: str
    label: str
    case: str
    article_gb_per_second: float  # 0: a claim the article makes without a number
    counters: tuple[str, ...]
    baseline: str  # the case this row is set beside ("": the table's first row)


@dataclass(frozen=True)
class Family:
    """What a family declares downstream of it: its title, its place in the study, its axes (name, unit, help,
    names of a named axis) and its figures."""

    name: str
    title: str
    study: str
    axes: tuple[dict, ...]
    figures: tuple[Figure, ...]
    study_rows: tuple[StudyRow, ...]

    def axis_names(self, axis: str) -> list[str]:
        """A named axis's names in their declared order (empty for a numeric axis)."""
        return next((list(a.get("names", [])) for a in self.axes if a.get("name") == axis), [])

    def peer_axes(self) -> tuple[str, ...]:
        """The axes that pick the GPU a case reaches: cases that differ in them alone are one case's cells of a
        GPU-by-GPU matrix."""
        return tuple(a["name"] for a in self.axes if a.get("picks_peer") is True and isinstance(a.get("name"), str))


def _names(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(i, str) for i in value)


def _pattern(entry: object, where: str) -> Pattern:
    axes = entry.get("axes", {}) if isinstance(entry, dict) else None
    if (
        not isinstance(entry, dict)
        or not isinstance(entry.get("variant"), str)
        or not entry["variant"]
        or not isinstance(axes, dict)
        or not all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in axes.values())
    ):
        raise mr.InputError(f"{where}: names other cases by a variant and the axes it fixes (names or integers)")
    return Pattern(entry["variant"], tuple(axes.items()))


def _model_from(entry: object, where: str) -> ModelFrom:
    of = _pattern(entry, where)
    if not isinstance(entry.get("label", ""), str) or not _names(entry.get("times")) or not _names(entry.get("over")):
        raise mr.InputError(f"{where}: a model from another case needs a label and lists times and over")
    return ModelFrom(entry.get("label", ""), of, tuple(entry["times"]), tuple(entry["over"]))


def _figure(entry: object, where: str) -> Figure:
    if not isinstance(entry, dict):
        raise mr.InputError(f"{where}: not a figure (an object)")
    text = {k: entry.get(k, "") for k in ("heading", "x", "y", "model", "pipe")}
    flags = {k: entry.get(k, False) for k in ("x_log", "y_log", "bars", "roofline")}
    lists = {k: entry.get(k, []) for k in ("variants", "lines", "vlines", "best_of", "notes")}
    if (
        not all(isinstance(v, str) for v in text.values())
        or not text["x"]
        or not text["y"]
        or not all(isinstance(v, bool) for v in flags.values())
        or not all(_names(v) for v in lists.values())
    ):
        raise mr.InputError(
            f"{where}: a figure needs x and y (names), flags x_log/y_log/bars/roofline and lists of names"
        )
    model_from, slowdown = entry.get("model_from"), entry.get("slowdown_vs")
    return Figure(
        text["heading"],
        text["x"],
        text["y"],
        flags["x_log"],
        flags["y_log"],
        text["model"],
        tuple(lists["variants"]),
        tuple(lists["lines"]),
        tuple(lists["vlines"]),
        tuple(lists["best_of"]),
        flags["bars"],
        tuple(lists["notes"]),
        None if model_from is None else _model_from(model_from, f"{where}.model_from"),
        None if slowdown is None else _pattern(slowdown, f"{where}.slowdown_vs"),
        flags["roofline"],
        text["pipe"],
    )


def _study_row(entry: object, where: str) -> StudyRow:
    ok = isinstance(entry, dict)
    fields = (
        (
            entry.get("table"),
            entry.get("table_title"),
            entry.get("label"),
            entry.get("case"),
            entry.get("article_gb_per_second"),
            entry.get("counters", []),
            entry.get("baseline", ""),
        )
        if ok
        else ()
    )
    if (
        not ok
        or not isinstance(fields[0], int)
        or not all(isinstance(f, str) for f in fields[1:4])
        or isinstance(fields[4], bool)
        or not isinstance(fields[4], (int, float))
        or not isinstance(fields[5], list)
        or not all(isinstance(c, str) for c in fields[5])
        or not isinstance(fields[6], str)
    ):
        raise mr.InputError(
            f"{where}: a study row needs table, table_title, label, case, article_gb_per_second, counters, baseline"
        )
    return StudyRow(fields[0], fields[1], fields[2], fields[3], float(fields[4]), tuple(fields[5]), fields[6])


def study_rows(doc: dict) -> list[StudyRow]:
    """Every family's rows in the study's tables, by table (then family, then as declared)."""
    rows = [(r.table, name, k, r) for name, f in families(doc).items() for k, r in enumerate(f.study_rows)]
    return [r for *_, r in sorted(rows, key=lambda t: t[:3])]


def families(doc: dict) -> dict[str, Family]:
    """What each family in the file declares, by name."""
    doc = mr.current(doc)
    membench = doc.get("membench")
    declared = membench.get("families", {}) if isinstance(membench, dict) else {}
    if not isinstance(declared, dict):
        raise mr.InputError("the file's membench.families is not an object")
    out = {}
    for name, entry in declared.items():
        where = f"membench.families.{str(name)[:40]}"
        if not isinstance(entry, dict) or not isinstance(entry.get("title", ""), str):
            raise mr.InputError(f"{where}: not a family's declaration")
        axes, figures = entry.get("axes", []), entry.get("figures", [])
        if not isinstance(axes, list) or not all(isinstance(a, dict) for a in axes) or not isinstance(figures, list):
            raise mr.InputError(f"{where}: axes and figures must be lists")
        rows = entry.get("study_rows", [])
        if not isinstance(rows, list):
            raise mr.InputError(f"{where}: study_rows must be a list")
        out[name] = Family(
            name,
            entry.get("title") or name,
            str(entry.get("study", "")),
            tuple(axes),
            tuple(_figure(f, f"{where}.figures[{i}]") for i, f in enumerate(figures)),
            tuple(_study_row(r, f"{where}.study_rows[{i}]") for i, r in enumerate(rows)),
        )
    return out


@dataclass(frozen=True)
class NcuMeasure:
    """The Nsight Compute counter a model counter predicts, as the binary declares it: the sum of `metrics` in a
    pass ("counters" or "dram"), over the sum of `per` (none: 1), times `scale`; `judged` says when a difference
    fails the check (always, large, beyond_l1, at_most, never)."""

    counter: str
    pass_: str
    metrics: tuple[str, ...]
    per: tuple[str, ...]
    scale: float
    judged: str

    def value(self, row: dict) -> float | None:
        """The measure from one pass's row: the metrics it has, summed (None when it has none of them, or `per`
        is missing or 0); an InputError when a metric's cell held no number."""
        blank = next((m for m in (*self.metrics, *self.per) if m in row and row[m] is None), None)
        if blank is not None:
            raise mr.InputError(f"{self.counter}: ncu printed no number for {blank}")
        top = [row[m] for m in self.metrics if row.get(m) is not None]
        bottom = [row[m] for m in self.per if row.get(m) is not None]
        if not top or (self.per and not sum(bottom)):
            return None
        return sum(top) / (sum(bottom) if self.per else 1.0) * self.scale


PASSES = ("counters", "dram")
JUDGED = ("always", "large", "beyond_l1", "at_most", "never")


def _measure(counter: str, entry: object) -> NcuMeasure:
    where = f"membench.counters.{counter[:40]}.ncu"
    ok = isinstance(entry, dict)
    metrics, per = (entry.get("metrics"), entry.get("per", [])) if ok else (None, None)
    scale = entry.get("scale", 1) if ok else None
    if (
        not ok
        or entry.get("pass") not in PASSES
        or entry.get("judged", "always") not in JUDGED
        or not isinstance(metrics, list)
        or not metrics
        or not isinstance(per, list)
        or not all(isinstance(m, str) for m in metrics + per)
        or isinstance(scale, bool)
        or not isinstance(scale, (int, float))
    ):
        raise mr.InputError(f"{where}: needs a pass ({', '.join(PASSES)}), metrics, per, scale and judged")
    return NcuMeasure(counter, entry["pass"], tuple(metrics), tuple(per), float(scale), entry.get("judged", "always"))


def ncu_measures(doc: dict) -> dict[str, NcuMeasure]:
    """The ncu measure of every model counter that declares one, by counter."""
    doc = mr.current(doc)
    membench = doc.get("membench")
    counters = membench.get("counters") if isinstance(membench, dict) else None
    declared = (
        {k: v["ncu"] for k, v in counters.items() if isinstance(v, dict) and "ncu" in v}
        if isinstance(counters, dict)
        else {}
    )
    return {k: _measure(k, v) for k, v in declared.items()}


def headlines(doc: dict) -> list[tuple[str, str]]:
    """What a case measures, the number a person reads first, with the model counter in its unit ('' for none), in
    the order a case is read by: the first of them it reports is its result. From the catalog's ranks."""
    doc = mr.current(doc)
    membench = doc.get("membench")
    counters = membench.get("counters") if isinstance(membench, dict) else None
    ranked = (
        sorted(
            (v["headline"], k, str(v.get("model", "")))
            for k, v in counters.items()
            if isinstance(v, dict) and isinstance(v.get("headline"), int) and not isinstance(v["headline"], bool)
        )
        if isinstance(counters, dict)
        else []
    )
    return [(counter, model) for _, counter, model in ranked]


def measure_of(doc: dict, *cases: mr.Case | None) -> str | None:
    """A case's measure, the counter a gate judges it by: the first of the catalog's headlines (bandwidth, latency,
    update rate, operation rate) that it reports, in the first of `cases` (one case as each file has it) that
    reports one; None where none does."""
    for case in cases:
        if case is None:
            continue
        for counter, _ in headlines(doc):
            if case.values(counter):
                return counter
    return None
