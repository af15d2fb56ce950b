"""How explain's answer is shown: a terminal table, Markdown for a pull request, JSON for a CI job, and a
roofline figure with the kernels as points."""

from __future__ import annotations

import json

from membench import cli
from membench.ceilings import MEMORY, Ceilings
from membench.explain_model import Placement
from membench.case import InputError
from membench.ncu_kernel import SECTOR

JSON_SCHEMA = "membench.explain/1"


def si(value: float, unit: str) -> str:
    factor, prefix = cli.prefix(value)
    return f"{value / factor:.4g} {prefix}{unit}"


def us(ns: float) -> str:
    return f"{ns / 1e3:.4g} us"


def short(name: str, width: int = 60) -> str:
    return name if len(name) <= width else name[: width - 3] + "..."


def to_json(placements: list[Placement], ceilings: Ceilings) -> dict:
    """The whole answer as data: each kernel's levels, roof, anomalies with their matched cases and predicted
    fixes, and the verdict --measure and --results are compared by."""
    return {
        "schema": JSON_SCHEMA,
        "gpu": ceilings.gpu,
        "ceilings": {
            "source": ceilings.source,
            "doubts": ceilings.doubts,
            "levels": [
                {
                    "level": c.level,
                    "unit": c.unit,
                    "value": c.value,
                    "sm_clock_hz": c.clock_hz,
                    "measured_by": c.measured_by,
                }
                for c in ceilings.by_level.values()
            ],
        },
        "kernels": [
            {
                "kernel": p.kernel.name,
                "launch": p.kernel.launch,
                "duration_ns": p.kernel.duration_ns,
                "sm_clock_hz": p.kernel.sm_clock_hz,
                "levels": [
                    {
                        "level": level,
                        "amount": p.amounts[level],
                        "unit": "B" if level in MEMORY else "op",
                        "ceiling_at_clock": p.ceilings.get(level),
                        "time_ns": t,
                    }
                    for level, t in p.times_ns.items()
                ],
                "flops": p.flops,
                "intensity_flop_per_dram_byte": p.intensity,
                "bound": p.bound,
                "attainable_ns": p.attainable_ns,
                "pct_of_attainable": p.pct_of_attainable,
                "efficiency": p.efficiency,
                "accesses": accesses(p),
                "ncu_speed_of_light_pct": p.kernel.sol_pct,
                "ncu_busiest": (p.ncu_busiest() or (None,))[0],
                "anomalies": [
                    {
                        "kind": a.kind,
                        "said": a.said,
                        "fix": a.fix,
                        "matches": [m.__dict__ for m in a.matches],
                        "predicted_ns": a.predicted_ns,
                        "predicted_speedup": p.speedup(a.predicted_ns),
                    }
                    for a in p.anomalies
                ],
                "prediction_sm_clock_hz": p.run_clock_hz,
                "now_at_that_clock_ns": p.now_ns,
                "all_fixed_ns": p.all_fixed_ns,
                "all_fixed_speedup": p.speedup(p.all_fixed_ns),
                "verdict": p.verdict(),
                "notes": p.notes,
            }
            for p in placements
        ],
    }


def _match_text(m) -> str:
    if m.rate is None and m.twin_rate is None:
        return f"as {m.case} (not in these results; fixed twin {m.twin})"
    rate = si(m.rate, m.unit) if m.rate is not None else "not measured"
    twin = si(m.twin_rate, m.unit) if m.twin_rate is not None else "not measured"
    note = f", {m.note}" if m.note else ""
    return f"as {m.case}{note}: {rate} on this GPU; fixed, {m.twin}: {twin}"


def accesses(p: Placement) -> dict:
    """What its accesses look like, in the study's words: sectors a request against the ideal for their width,
    the shared wavefronts against the conflict-free ones, the hit rates, DRAM's bytes against those it needs
    (every used byte of the global loads and stores once)."""
    k = p.kernel
    spr = lambda size, requests: size / SECTOR / requests if requests else None  # noqa: E731
    needed = k.l1_load * k.load_used + k.l1_store * k.store_used
    return {
        "load_sectors_per_request": spr(k.l1_load, k.load_requests),
        "load_ideal_sectors_per_request": spr(k.l1_load * k.load_used, k.load_requests),
        "store_sectors_per_request": spr(k.l1_store, k.store_requests),
        "store_ideal_sectors_per_request": spr(k.l1_store * k.store_used, k.store_requests),
        "shared_wavefronts": k.shared_wavefronts,
        "shared_wavefronts_ideal": k.shared_ideal,
        "l1_hit_pct": k.l1_hit_pct,
        "l2_read_hit_pct": k.l2_read_hit_pct,
        "dram_bytes": k.dram_read + k.dram_write,
        "needed_bytes": needed,
    }


def accesses_line(p: Placement) -> str:
    a = accesses(p)
    parts = []
    for op in ("load", "store"):
        now, ideal = a[f"{op}_sectors_per_request"], a[f"{op}_ideal_sectors_per_request"]
        if now is not None:
            parts.append(f"{op}s {now:.3g} sectors a request (ideal {ideal:.3g})")
    if a["shared_wavefronts"]:
        parts.append(f"shared {a['shared_wavefronts']:.4g} wavefronts (ideal {a['shared_wavefronts_ideal']:.4g})")
    parts.append(f"L1 hit {a['l1_hit_pct']:.0f}%, L2 read hit {a['l2_read_hit_pct']:.0f}%")
    parts.append(f"DRAM {si(a['dram_bytes'], 'B')} for {si(a['needed_bytes'], 'B')} the accesses use")
    return "accesses: " + "; ".join(parts)


def kernel_lines(p: Placement) -> list[str]:
    """One kernel as lines of plain text (shared by the terminal and Markdown)."""
    k = p.kernel
    busiest = p.ncu_busiest()
    agrees = ""
    if busiest:
        ours = "compute" if p.bound not in MEMORY else ("L1" if p.bound == "shared" else p.bound)
        agrees = (
            f"; ncu's busiest unit: {busiest[0]} at {busiest[1]:.0f}% ({'agrees' if busiest[0] == ours else 'differs'})"
        )
    intensity = f"{p.intensity:.3g} FLOP per DRAM byte" if p.intensity is not None else "no DRAM bytes"
    out = [
        f"bound by {p.bound}: the roofs allow {us(p.attainable_ns)}, it took {us(k.duration_ns)} "
        f"({p.pct_of_attainable:.0f}% of attainable){agrees}; {intensity}",
        accesses_line(p),
    ]
    for a in p.anomalies:
        worth = ""
        if a.predicted_ns:
            worth = f"; predicted {a.predicted_ns / p.now_ns:.2f}x the time ({p.speedup(a.predicted_ns):.2f}x faster)"
        out.append(f"- {a.said}")
        for m in a.matches:
            out.append(f"  {_match_text(m)}")
        out.append(f"  fixed: {a.fix}{worth}")
    if p.anomalies and p.anomalies[0].predicted_ns:
        out.append(
            f"at {p.run_clock_hz / 1e9:.3g} GHz, the clock the ceilings ran at: {us(p.now_ns)} now"
            + (
                f", {us(p.all_fixed_ns)} with every anomaly fixed ({p.speedup(p.all_fixed_ns):.2f}x)"
                if p.all_fixed_ns
                else ""
            )
        )
    if not p.anomalies:
        out.append(
            "- no access anomaly: " + ("compute-bound" if p.bound not in MEMORY else f"bound by {p.bound}'s bandwidth")
        )
    out.extend(f"note: {n}" for n in p.notes)
    return out


def level_rows(p: Placement) -> list[tuple[str, str, str, str]]:
    rows = []
    for level, t in sorted(p.times_ns.items(), key=lambda kv: -kv[1]):
        unit = "B" if level in MEMORY else "FLOP"
        rate = "B/s" if level in MEMORY else "FLOP/s"
        rows.append(
            (level + (" *" if level == p.bound else ""), si(p.amounts[level], unit), si(p.ceilings[level], rate), us(t))
        )
    return rows


def text(placements: list[Placement], ceilings: Ceilings) -> str:
    out = [f"membench-explain: {ceilings.gpu}; ceilings from {ceilings.source}"]
    out += [f"doubted: {d}" for d in ceilings.doubts] + [""]
    for p in placements:
        k = p.kernel
        out.append(f"{short(k.name, 90)} (launch {k.launch}): {us(k.duration_ns)} at {k.sm_clock_hz / 1e9:.3g} GHz")
        out.append(f"  {'level':10} {'moved':>12} {'ceiling here':>14} {'least time':>12}")
        for level, moved, ceiling, t in level_rows(p):
            out.append(f"  {level:10} {moved:>12} {ceiling:>14} {t:>12}")
        out.extend(f"  {line}" for line in kernel_lines(p))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def markdown(placements: list[Placement], ceilings: Ceilings) -> str:
    out = [f"## membench-explain: {ceilings.gpu}", "", f"Ceilings from {ceilings.source}.", ""]
    out += [f"**Doubted:** {d}." for d in ceilings.doubts] + ([""] if ceilings.doubts else [])
    for p in placements:
        k = p.kernel
        out += [
            f"### `{short(k.name, 90)}` (launch {k.launch})",
            "",
            f"{us(k.duration_ns)} at {k.sm_clock_hz / 1e9:.3g} GHz.",
            "",
        ]
        out += ["| level | moved | ceiling here | least time |", "| --- | ---: | ---: | ---: |"]
        out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in level_rows(p)]
        out += [""] + kernel_lines(p) + [""]
    return "\n".join(out).rstrip() + "\n"


def render(placements: list[Placement], ceilings: Ceilings, fmt: str) -> str:
    """The answer in a format; an InputError where the report's counts give a number no answer can hold (a
    count that rounds a time to nothing)."""
    try:
        whole = json.dumps(to_json(placements, ceilings), indent=1, allow_nan=False) + "\n"
    except ValueError as e:
        raise InputError(f"the report's counts give an answer that is not a number ({e})") from e
    if fmt == "json":
        return whole
    return markdown(placements, ceilings) if fmt == "md" else text(placements, ceilings)


def figure(placements: list[Placement], ceilings: Ceilings, path: str) -> None:
    """The measured roofline at the clock the ceilings ran at, each launch a point (FLOPs a DRAM byte, FLOP/s) at
    its time scaled to that clock, its predicted fix an open point joined to it (fewer DRAM bytes move it right);
    a launch with no FLOPs has no place on log axes and is listed, not drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clock = placements[0].run_clock_hz if placements else None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = [p for p in placements if p.intensity]
    xs = [p.intensity for p in drawn] + [p.fixed_intensity for p in drawn if p.fixed_intensity]
    lo, hi = min(xs + [0.1]) / 4, max(xs + [100.0]) * 4
    pipes = [c for c in ceilings.by_level.values() if c.unit == "op/s"]
    top = max((c.at(clock) for c in pipes), default=None) if clock else None
    for c in pipes:
        v = c.at(clock) if clock else c.value
        ax.plot([lo, hi], [v, v], color="0.4", linewidth=0.8)
        ax.annotate(c.level, (hi, v), fontsize=6, ha="right", va="bottom")
    for c in ceilings.by_level.values():
        if c.unit == "B/s":
            v = c.at(clock) if clock else c.value
            end = min(hi, (top or v * hi) / v)
            ax.plot([lo, end], [v * lo, v * end], color="0.4", linestyle="--", linewidth=0.8)
            ax.annotate(c.level, (end, v * end), fontsize=6, ha="right", va="top" if c.level == "L1" else "bottom")
    for p in drawn:
        rate = p.flops / (p.now_ns * 1e-9)
        line = ax.plot([p.intensity], [rate], marker="o", linestyle="", label=short(p.kernel.launch, 40))[0]
        if p.all_fixed_ns and p.fixed_intensity:
            fixed = (p.fixed_intensity, p.flops / (p.all_fixed_ns * 1e-9))
            ax.plot([p.intensity, fixed[0]], [rate, fixed[1]], color=line.get_color(), linewidth=0.6)
            ax.plot([fixed[0]], [fixed[1]], marker="o", fillstyle="none", color=line.get_color())
    left_out = [short(p.kernel.launch, 40) for p in placements if not p.intensity]
    if left_out:
        ax.text(0.01, 0.99, "no FLOPs, not drawn: " + "; ".join(left_out), transform=ax.transAxes, fontsize=5, va="top")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("FLOP per DRAM byte")
    ax.set_ylabel("FLOP/s")
    at = f" at {clock / 1e9:.3g} GHz (the ceilings' clock)" if clock else ""
    ax.set_title(f"{ceilings.gpu}: measured roofline{at}; open: predicted, fixed", fontsize=8)
    ax.grid(True, which="major", linewidth=0.3)
    if drawn:
        ax.legend(fontsize=5, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
