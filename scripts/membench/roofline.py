"""The run's measured roofline, drawn from what the result file holds: the
roofs the binary wrote ("membench.roofs": each pipe's best operations a
second and each level's best bytes a second, measured on this GPU), the
ridge points they give, and the cases of a figure declared on the roofline,
each at its flops_per_byte and its FLOP rate. No roof, family or counter is
named here: a new pipe or level is a new roof in the file.

On log-log axes a compute roof is a horizontal line and a memory roof the
line bytes/s x FLOP/B, which meet at the level's ridge point. The ridges
marked are those of the compute roof the figure declares its points run on
(else the lowest roof at or above the fastest point): where the points' own
pipe turns them from bytes to FLOPs. A datasheet ridge (another GPU's, as the study gave it) is
drawn upright, dotted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from membench import cli
from membench import declarations as md
from membench import results as mr

# A rate's unit in operations a second: the catalog's units of the counters a figure on the roofline draws.
OPS_PER_UNIT = {"op/s": 1.0, "FLOP/s": 1.0, "GFLOP/s": 1e9}


@dataclass(frozen=True)
class Roof:
    name: str
    unit: str  # op/s (a pipe) or B/s (a level)
    gpu: str  # "": measured on this GPU
    value: float


def roofs(doc: dict) -> list[Roof]:
    """The file's roofs; InputError for one that is not what the binary writes."""
    entries = doc.get("membench", {}).get("roofs", []) if isinstance(doc.get("membench"), dict) else []
    if not isinstance(entries, list):
        raise mr.InputError("membench.roofs: not a list")
    out = []
    for k, e in enumerate(entries):
        where = f"membench.roofs[{k}]"
        if not isinstance(e, dict) or not all(isinstance(e.get(f), str) for f in ("name", "unit", "gpu")):
            raise mr.InputError(f"{where}: a roof needs a name, a unit and a gpu (text)")
        value = mr.number(e.get("value"), f"{where}.value")
        if e["unit"] not in ("op/s", "B/s") or not (value > 0 and math.isfinite(value)):
            raise mr.InputError(f"{where}: a roof is a positive rate in op/s or B/s")
        out.append(Roof(e["name"], e["unit"], e["gpu"], value))
    return out


def ridges(found: list[Roof]) -> list[tuple[Roof, Roof, float]]:
    """Each compute roof over each memory roof of the same GPU: (compute, memory, operations a byte)."""
    return [
        (c, m, c.value / m.value)
        for c in found
        if c.unit == "op/s"
        for m in found
        if m.unit == "B/s" and m.gpu == c.gpu
    ]


def points(doc: dict, figure: md.Figure, cases: list[mr.Case], ys: dict[str, float]) -> dict[str, list]:
    """The figure's cases as (FLOPs a byte, operations a second), a series per variant; a case with no
    arithmetic (flops_per_byte 0) has no place on log axes and is left out."""
    per_op = OPS_PER_UNIT.get(mr.meaning(doc, figure.y).unit)
    if per_op is None:
        raise mr.InputError(f"a figure on the roofline draws '{figure.y}', which is no rate of operations")
    out: dict[str, list] = defaultdict(list)
    for c in cases:
        x = c.median("flops_per_byte")
        if x is not None and x > 0 and c.name in ys:
            out[c.variant].append((x, ys[c.name] * per_op))
    return {k: sorted(v) for k, v in out.items()}


def rate(value: float) -> str:
    """A rate as a person reads it, before its unit: 1.758e13 -> "17.58 T"."""
    factor, prefix = cli.prefix(value)
    return f"{value / factor:.4g} {prefix}"


def reached(measured: list[Roof], top: float, declared: str = "") -> Roof | None:
    """The compute roof the points run on: the one the figure declares (its `pipe`), where the file has it; else
    the lowest at or above the fastest point, else the highest."""
    compute = sorted((r for r in measured if r.unit == "op/s"), key=lambda r: r.value)
    named = [r for r in compute if r.name == declared]
    if named:
        return named[0]
    above = [r for r in compute if r.value >= top]
    return above[0] if above else (compute[-1] if compute else None)


def merged(found: list[Roof]) -> list[tuple[float, str]]:
    """The compute roofs as (value, label), roofs within 2% of each other under one label."""
    out: list[tuple[float, str]] = []
    for r in sorted((r for r in found if r.unit == "op/s"), key=lambda r: r.value):
        if out and r.value <= out[-1][0] * 1.02:
            out[-1] = (out[-1][0], f"{out[-1][1]}, {r.name}")
        else:
            out.append((r.value, r.name))
    return out


def draw(ax, doc: dict, figure: md.Figure, cases: list[mr.Case], ys: dict[str, float]) -> None:
    """The figure's points under the file's roofs, log-log: each pipe a line, each level a diagonal up to the
    pipe the points run on, its ridges marked and listed, a datasheet ridge upright."""
    found = roofs(doc)
    measured = [r for r in found if not r.gpu]
    series = points(doc, figure, cases, ys)
    xs = [x for pts in series.values() for x, _ in pts]
    top_point = max((y for pts in series.values() for _, y in pts), default=0.0)
    pipe = reached(measured, top_point, figure.pipe)
    marked = [(c, m, i) for c, m, i in ridges(measured) if pipe is not None and c == pipe]
    lo = min(xs + [i for _, _, i in marked], default=0.1) / 4
    hi = max(xs + [i for _, _, i in marked], default=100.0) * 4
    ceiling = max((r.value for r in measured if r.unit == "op/s"), default=top_point or 1.0)
    factor, prefix = cli.prefix(ceiling)
    for variant, pts in sorted(series.items()):
        ax.plot([x for x, _ in pts], [y / factor for _, y in pts], marker="o", markersize=3, label=variant, zorder=3)
    for value, label in merged(measured):
        ax.plot([lo, hi], [value / factor] * 2, color="0.35", linewidth=0.8, zorder=1)
        ax.annotate(label, (hi, value / factor), fontsize=5.5, ha="right", va="bottom", color="0.25")
    top = pipe.value if pipe is not None else ceiling
    for r in (r for r in measured if r.unit == "B/s"):
        end = min(hi, top / r.value)
        ax.plot(
            [lo, end],
            [r.value * lo / factor, r.value * end / factor],
            color="0.35",
            linestyle="--",
            linewidth=0.8,
            zorder=1,
        )
    for c, _, intensity in marked:
        ax.plot([intensity], [c.value / factor], marker="D", color="black", markersize=4, zorder=4)
    if marked:
        listed = "\n".join(f"{m.name} ({rate(m.value)}B/s): {i:.3g}" for _, m, i in marked)
        ax.text(
            0.02,
            0.98,
            f"ridges on {pipe.name}, FLOP/B:\n{listed}",
            transform=ax.transAxes,
            fontsize=6,
            va="top",
            bbox={"facecolor": "white", "edgecolor": "0.7", "linewidth": 0.5},
        )
    for c, _, intensity in ridges([r for r in found if r.gpu]):
        ax.axvline(intensity, color="0.5", linestyle=":", linewidth=0.8)
        ax.annotate(
            f"{c.gpu}: ridge {intensity:.3g}",
            (intensity, ceiling / factor / 30),
            fontsize=5.5,
            rotation=90,
            ha="right",
            color="0.4",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("FLOP per byte (flops_per_byte)")
    ax.set_ylabel(f"{prefix}op/s" if prefix else "op/s")
    ax.set_title(figure.heading, fontsize=9)
    ax.grid(True, which="major", linewidth=0.3)
    if series:
        ax.legend(fontsize=7, loc="lower right")
