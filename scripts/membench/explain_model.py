"""Where a profiled kernel stands on this GPU's measured roofline, what its accesses look like in the study's
words, and what fixing each costly access is worth.

Where it stands. Each level's bytes (and each pipe's operations) over its measured ceiling, at the SM clock the
kernel ran at, is the least time that level allows; the largest is the binding roof, and the kernel's time
against it its share of what is attainable. A kernel's busiest unit can be busier than its bytes over the
ceilings say (a partial-sector store holds the L2's input as a whole sector would), so its efficiency is the
larger of the two: that share, or ncu's busiest unit in its Speed of Light.

What a fix is worth. A fix changes the bytes at each level as ncu's own counts of the ideal say (the sectors a
request would touch if each sector's 32 bytes were used; the wavefronts without conflicts). The prediction is
made at the SM clock the ceilings were measured at, the GPU's own under load (ncu locks it to base): the
kernel's time there is the profiled one, scaled by the clocks where its binding roof is on the SM's side. The
fixed kernel's time is its binding level's bytes over that level's ceiling, divided by how near a kernel with
the fixed access comes to that roof: the matched membench case's fixed twin's measured rate over the ceiling
(a kernel of one load a thread reaches the DRAM roof no nearer than the twin does: its loads in flight, not its
bytes, bound it), or, where the results do not hold the twin or the fixed kernel is bound elsewhere, this
kernel's own efficiency. Never under the roofs, never slower than now. What the model leaves out: a launch and
its ramp (a kernel of a few microseconds spends a share of its time filling the GPU), and a fix that changes the
kernel's occupancy or instruction mix.

Each anomaly is matched to the membench case with the same signature, by its family, variant and axes in the
result file's catalog: the case's measured rate and its fixed twin's are what this GPU does with that access.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from membench import results as mr
from membench.ceilings import CLOCKLESS, Ceilings
from membench.ncu_kernel import SECTOR, Kernel

USED_BELOW = 0.8  # a global access using under this fraction of its sectors' bytes is an anomaly
CONFLICT_ABOVE = 1.1  # shared wavefronts over this multiple of the ideal are a conflict
REGULAR_WITHIN = 0.05  # a used share within this of 1/2^n is a regular stride; else an irregular (indirect) access
LATENCY_BELOW = 0.6  # efficiency under which a kernel stalled on memory is latency-bound
LONG_SCOREBOARD_SHARE = 0.5  # the share of its stalls that are waits on global memory


@dataclass
class Match:
    """A membench case with the same access, and its fixed twin, as the results measured them."""

    case: str
    rate: float | None
    twin: str
    twin_rate: float | None
    unit: str
    level: str  # the level the case's bytes come from (its working set's home)
    note: str = ""

    @property
    def family_variant(self) -> str:
        """The case's family and variant: what a verdict names (its axes' values are the results' sweep)."""
        return "/".join(self.case.split("/")[:2])


@dataclass
class Anomaly:
    kind: str  # uncoalesced-loads, uncoalesced-stores, bank-conflicts, latency-bound
    said: str  # in the study's words
    fix: str  # what the fix changes, said plainly
    fixed: Kernel  # the kernel as the fix leaves it
    matches: list[Match] = field(default_factory=list)
    predicted_ns: float | None = None  # at the run's clock


@dataclass
class Placement:
    kernel: Kernel
    times_ns: dict[str, float]  # each level's and pipe's least time at its ceiling
    amounts: dict[str, float]  # bytes or operations
    ceilings: dict[str, float]  # at the kernel's clock
    bound: str
    efficiency: float
    anomalies: list[Anomaly]
    all_fixed_ns: float | None  # predictions: at run_clock_hz
    notes: list[str]
    run_clock_hz: float  # the SM clock the ceilings were measured at, where the predictions are made
    now_ns: float  # the kernel's time at that clock
    fixed: Kernel | None = None  # the kernel with every anomaly fixed

    @property
    def fixed_intensity(self) -> float | None:
        dram = self.fixed.level_bytes()["DRAM"] if self.fixed else 0.0
        return self.flops / dram if dram > 0 else None

    def speedup(self, predicted_ns: float | None) -> float | None:
        return self.now_ns / predicted_ns if predicted_ns else None

    @property
    def attainable_ns(self) -> float:
        return self.times_ns[self.bound]

    @property
    def pct_of_attainable(self) -> float:
        return 100.0 * self.attainable_ns / self.kernel.duration_ns

    @property
    def flops(self) -> float:
        return sum(self.kernel.flops.values())

    @property
    def intensity(self) -> float | None:
        """FLOPs a DRAM byte; None where the kernel moved no DRAM bytes."""
        dram = self.amounts.get("DRAM", 0.0)
        return self.flops / dram if dram > 0 else None

    def ncu_busiest(self) -> tuple[str, float] | None:
        sol = self.kernel.sol_pct
        return max(sol.items(), key=lambda kv: kv[1]) if sol else None

    def verdict(self) -> dict:
        """What --measure and --results must agree on: the roof and the anomalies with their matched cases."""
        return {
            "bound": self.bound,
            "anomalies": [{"kind": a.kind, "cases": [m.family_variant for m in a.matches]} for a in self.anomalies],
        }


def amounts(k: Kernel) -> dict[str, float]:
    return {**k.level_bytes(), **k.flops}


def times(k: Kernel, at: dict[str, float]) -> dict[str, float]:
    """Each level's least time (ns): what it moved over its ceiling; a level with no ceiling is left out."""
    return {level: 1e9 * amount / at[level] for level, amount in amounts(k).items() if level in at and amount > 0}


def binding(t: dict[str, float]) -> str:
    return max(t, key=t.get) if t else "DRAM"


def fix_loads(k: Kernel) -> Kernel:
    """Loads that use every byte of their sectors: L1 looks up, and L2 serves, only the used share of the
    sectors; DRAM reads no more than those sectors (a kernel that already reads less, from reuse in L2,
    keeps its count)."""
    u = k.load_used
    return replace(
        k, l1_load=k.l1_load * u, l2_read=k.l2_read * u, dram_read=min(k.dram_read, k.l1_load * u), load_used=1.0
    )


def fix_stores(k: Kernel) -> Kernel:
    u = k.store_used
    return replace(
        k,
        l1_store=k.l1_store * u,
        l2_write=k.l2_write * u,
        dram_write=min(k.dram_write, k.l1_store * u),
        # a partial sector written to DRAM is read first: the reads beyond the loads' own go with the fix
        dram_read=min(k.dram_read, k.l1_load * k.load_used) if k.l1_load else k.dram_read,
        store_used=1.0,
    )


def fix_conflicts(k: Kernel) -> Kernel:
    return replace(k, shared_wavefronts=k.shared_ideal, shared_load_degree=1.0 if k.shared_load_degree else None)


def pow2(x: float, most: int = 32) -> int:
    return int(min(most, max(1, 2 ** round(math.log2(max(x, 1.0))))))


class Catalog:
    """The membench cases the results hold, found by their family, variant and axes, never by their names."""

    def __init__(self, cases: list[dict]):
        self.cases = [c for c in cases if isinstance(c, dict) and isinstance(c.get("axes"), dict)]

    def find(self, family: str, variant: str, **axes) -> dict | None:
        return next(
            (
                c
                for c in self.cases
                if c.get("family") == family
                and c.get("variant") == variant
                and all(c["axes"].get(a) == v for a, v in axes.items())
            ),
            None,
        )

    def values(self, family: str, variant: str, axis: str) -> list:
        return sorted(
            {
                c["axes"][axis]
                for c in self.cases
                if c.get("family") == family and c.get("variant") == variant and axis in c["axes"]
            }
        )

    def match(self, case: tuple, twin: tuple, level: str, note: str = "") -> Match:
        """A match as a person reads it, with the rates where the results hold the cases."""
        found, paired = self.find(case[0], case[1], **case[2]), self.find(twin[0], twin[1], **twin[2])
        rate = lambda c: mr.number(c.get("value"), "a matched case's value") if c else None  # noqa: E731
        unit = str((found or paired or {}).get("unit", ""))
        show = lambda c: "/".join([c[0], c[1], *(f"{a}:{v}" for a, v in c[2].items() if v is not None)])  # noqa: E731
        return Match(show(case), rate(found), show(twin), rate(paired), unit, level, note)


def global_matches(k: Kernel, used: float, catalog: Catalog) -> list[Match]:
    """The membench cases with this access: a regular stride (the sectors' used share is 1/stride), and for a
    quarter, one field of a 4-float struct; an irregular share is an indirect access, placed by its hit rates."""
    ratio = 1.0 / used
    if abs(ratio - pow2(ratio)) / ratio < REGULAR_WITHIN:
        stride = pow2(ratio)
        note = ""
        if stride * 4 >= SECTOR:  # a float to a sector: the stride could be 8 or more; DRAM's granule says which
            if k.l2_read and k.dram_read / max(k.l2_read, 1.0) > 1.5:
                stride, note = (
                    max(catalog.values("global", "strided", "stride") or [32]),
                    "each float in a sector of its own, DRAM reading 64 bytes for each",
                )
            else:
                note = "each float in a sector of its own"
        out = [
            catalog.match(("global", "strided", {"stride": stride}), ("global", "strided", {"stride": 1}), "DRAM", note)
        ]
        if stride == 4:
            out.append(
                catalog.match(
                    ("layout", "aos", {"fields": 1}),
                    ("layout", "soa", {"fields": 1}),
                    "DRAM",
                    "one field of a 4-float struct",
                )
            )
        return out
    if k.l1_hit_pct >= 50:
        tables, where = catalog.values("indirect", "lookup", "table"), "in L1"
        table = tables[0] if tables else None
    elif k.l2_read_hit_pct >= 50:
        tables, where = catalog.values("indirect", "lookup", "table"), "in L2"
        table = tables[len(tables) // 2] if tables else None
    else:
        windows = catalog.values("indirect", "gather", "window")
        return [
            catalog.match(
                ("indirect", "gather", {"window": windows[-1] if windows else 0}),
                ("indirect", "gather", {"window": 1}),
                "DRAM",
                "random over DRAM",
            )
        ]
    return [
        catalog.match(
            ("indirect", "lookup", {"table": table}),
            ("indirect", "gather", {"window": 1}),
            "DRAM",
            f"a table held {where}",
        )
    ]


def anomalies(k: Kernel, catalog: Catalog) -> list[Anomaly]:
    found = []
    for op, used, requests, size in (
        ("loads", k.load_used, k.load_requests, k.l1_load),
        ("stores", k.store_used, k.store_requests, k.l1_store),
    ):
        if requests <= 0 or used >= USED_BELOW:
            continue
        spr = size / SECTOR / requests
        fixed = fix_loads(k) if op == "loads" else fix_stores(k)
        level = "L2 traffic" if op == "stores" else "DRAM traffic"
        before, after = (
            (k.l2_read + k.l2_write, fixed.l2_read + fixed.l2_write)
            if op == "stores"
            else (k.dram_read, fixed.dram_read)
        )
        found.append(
            Anomaly(
                f"uncoalesced-{op}",
                f"global {op} at {spr:.3g} sectors per request where {spr * used:.3g} would do "
                f"({used * SECTOR:.3g} of each sector's 32 bytes used)",
                f"{level} {before / 1e6:.4g} -> {after / 1e6:.4g} MB",
                fixed,
                global_matches(k, used, catalog),
            )
        )
    if k.shared_ideal > 0 and k.shared_wavefronts > CONFLICT_ABOVE * k.shared_ideal:
        degree = k.shared_load_degree or k.shared_wavefronts / k.shared_ideal
        found.append(
            Anomaly(
                "bank-conflicts",
                f"shared memory at {k.shared_wavefronts / k.shared_ideal:.3g}x the ideal wavefronts "
                f"(loads {degree:.3g} wavefronts an instruction: a {pow2(degree)}-way conflict)",
                f"shared wavefronts {k.shared_wavefronts / 1e6:.4g} -> {k.shared_ideal / 1e6:.4g} M",
                fix_conflicts(k),
                [
                    catalog.match(
                        ("shared", "conflict_degree", {"shared_stride": pow2(degree), "width": 4}),
                        ("shared", "conflict_degree", {"shared_stride": 1, "width": 4}),
                        "shared",
                    )
                ],
            )
        )
    return found


def latency(k: Kernel, efficiency: float, catalog: Catalog) -> Anomaly | None:
    """A kernel far from every roof whose warps mostly wait on global memory: too few loads in flight, as
    async's synchronous copy against its pipelined one."""
    total = sum(k.stalls.values())
    waits = k.stalls.get("long_scoreboard", 0.0)
    if efficiency >= LATENCY_BELOW or total <= 0 or waits / total < LONG_SCOREBOARD_SHARE:
        return None
    return Anomaly(
        "latency-bound",
        f"{100 * efficiency:.0f}% of its roof, its warps waiting on global memory {100 * waits / total:.0f}% of "
        "their stalled cycles: too few loads in flight",
        "more loads in flight (unrolled, vectorized, or staged through shared memory asynchronously)",
        k,
        [
            catalog.match(
                ("async", "sync", {"flops": 0}),
                (
                    "async",
                    "pipeline",
                    {"flops": 0, "stages": max(catalog.values("async", "pipeline", "stages") or [None])},
                ),
                "DRAM",
            )
        ],
    )


def run_clock(ceilings: Ceilings) -> float | None:
    """The SM clock the ceilings were measured at (the GPU's own clock under load): the clock a prediction is
    made at. The median of the SM-side ceilings' clocks; None where the source gives none."""
    clocks = sorted(c.clock_hz for c in ceilings.by_level.values() if c.clock_hz and c.level not in CLOCKLESS)
    return clocks[len(clocks) // 2] if clocks else None


def twin_efficiency(a: Anomaly, level: str, ceiling: float) -> float | None:
    """What the matched case's fixed twin reached on this GPU, against the ceiling of the level it runs on: how
    near a kernel with the fixed access comes to that roof. None where the twin is not measured, or runs on
    another level than the fixed kernel's binding one."""
    for m in a.matches:
        if m.level == level and m.twin_rate and m.unit == "B/s" and ceiling > 0:
            return min(1.0, m.twin_rate / ceiling)
    return None


def place(k: Kernel, ceilings: Ceilings) -> Placement:
    at = {level: c.at(k.sm_clock_hz) for level, c in ceilings.by_level.items()}
    t = times(k, at)
    notes = [
        f"no ceiling for {level} in {ceilings.source}" for level, a in amounts(k).items() if a > 0 and level not in at
    ]
    bound = binding(t)
    share = t.get(bound, 0.0) / k.duration_ns
    busiest = max(k.sol_pct.values(), default=0.0) / 100.0
    efficiency = min(1.0, max(share, busiest)) or 1.0
    catalog = Catalog(ceilings.cases)
    found = anomalies(k, catalog)
    # The prediction is made at the clock the ceilings ran at: the kernel's time there is the profiled one, its
    # SM-side share scaled by the clocks (ncu locks the SM clock to base unless told --clock-control none).
    clock = run_clock(ceilings) or k.sm_clock_hz
    at_run = {level: c.at(clock) for level, c in ceilings.by_level.items()}
    now_ns = k.duration_ns * (k.sm_clock_hz / clock if bound not in CLOCKLESS else 1.0)

    def predicted(a: Anomaly | None, fixed: Kernel) -> float:
        after = times(fixed, at_run)
        if not after:
            return now_ns
        level = binding(after)
        reach = twin_efficiency(a, level, at_run[level]) if a else None
        return min(now_ns, after[level] / (reach or efficiency))

    for a in found:
        a.predicted_ns = predicted(a, a.fixed)
    all_fixed, fixed = None, None
    if found:
        fixed = k
        for a in found:
            fixed = FIXES[a.kind](fixed)
        all_fixed = predicted(found[0] if len(found) == 1 else None, fixed)
    slow = latency(k, efficiency, catalog)
    if slow is not None and not found:
        rate = slow.matches[0].twin_rate
        if rate and "DRAM" in at_run:  # its DRAM bytes at the rate the pipelined copy reaches here
            floor = max(times(k, at_run).values())  # never under the roofs
            slow.predicted_ns = min(now_ns, max(floor, k.level_bytes()["DRAM"] * 1e9 / rate))
        found.append(slow)
    over = [level for level, x in t.items() if x > k.duration_ns * 1.02]
    if over:
        notes.append(
            f"it ran faster than the ceiling of {', '.join(over)} allows: {ceilings.source} did not measure that "
            "level's best (a default run does: the hierarchy and shared families)"
        )
    if k.tensor_busy_pct > 1:
        notes.append(f"its tensor pipes are {k.tensor_busy_pct:.0f}% busy: tensor work is not placed on a roof here")
    return Placement(k, t, amounts(k), at, bound, efficiency, found, all_fixed, notes, clock, now_ns, fixed)


FIXES = {"uncoalesced-loads": fix_loads, "uncoalesced-stores": fix_stores, "bank-conflicts": fix_conflicts}
