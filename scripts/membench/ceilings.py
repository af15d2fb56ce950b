"""This GPU's measured ceilings, for placing a kernel someone else wrote: each memory level's best bytes a
second and each pipe's best operations a second, as membench measured them, with the SM clock each was
measured at. Three sources, in the order explain takes them: a membench result file of the same GPU model
(its "membench.roofs", written by the binary); the reference built in for that model (benchmarks/references/,
its "roofs", which reference.py takes from the runs it rests on); or a run made right then (`--measure`: the
cases the roofs come from, and the cases an anomaly is matched to, in seconds).

A ceiling in the SM's clock domain (L1, shared memory, the pipes) moves with that clock, so it is scaled to the
clock the profiled kernel ran at. DRAM's does not, nor the L2's: its clock is its own (on an H100, a transpose
bound by its L2 took the same time with the SM clock locked to base by ncu as at its own clock under load).
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from membench import cli
from membench import declarations as md
from membench import results as mr
from membench import roofline

ROOT = Path(__file__).resolve().parents[2]
REFERENCES = ROOT / "benchmarks" / "references"

# explain's levels and pipes, and the roof of a result file each is placed under (the binary names its roofs).
ROOF_OF = {
    "DRAM": "DRAM",
    "L2": "L2",
    "L1": "L1",
    "shared": "shared memory",
    "fp32": "fp32 FMA",
    "fp64": "fp64 FMA",
    "fp16": "fp16x2 FMA",
}
MEMORY = ("DRAM", "L2", "L1", "shared")
CLOCKLESS = {"DRAM", "L2"}  # their bandwidth is their own clock's, not the SM's


@dataclass(frozen=True)
class Ceiling:
    level: str  # explain's name: DRAM, L2, L1, shared, fp32, ...
    unit: str  # B/s or op/s
    value: float  # as measured
    clock_hz: float | None  # the SM clock it was measured at; None where the source does not say
    measured_by: str  # the case (or the reference's runs) it comes from

    def at(self, clock_hz: float) -> float:
        """The ceiling at another SM clock."""
        if self.level in CLOCKLESS or not self.clock_hz:
            return self.value
        return self.value * clock_hz / self.clock_hz


@dataclass
class Ceilings:
    gpu: str
    source: str  # what a person reads: the file, the reference, or the run made now
    by_level: dict[str, Ceiling]
    cases: list[dict]  # the cases an anomaly is matched to, each its family, variant, axes and measure's value
    doubts: list[str] = field(default_factory=list)  # why a ceiling's own case is no evidence (contended, ...)


def _case_clock(cases: dict[str, mr.Case], case_name: str) -> float | None:
    case = cases.get(case_name) or cases.get(f"{case_name}/manual_time")
    mhz = case.median("sm_clock_mhz") if case else None
    return mhz * 1e6 if mhz else None


def from_results(doc: dict, path: str) -> Ceilings:
    """The ceilings a result file's roofs give; InputError where it has none of the memory levels."""
    cases = mr.cases(doc)
    found: dict[str, Ceiling] = {}
    doubts: list[str] = []
    wanted = {roof: level for level, roof in ROOF_OF.items()}
    for r in roofline.roofs(doc):
        if r.gpu or r.name not in wanted:
            continue
        entry = next(e for e in doc["membench"]["roofs"] if e.get("name") == r.name and not e.get("gpu"))
        case = str(entry.get("case", ""))
        level = wanted[r.name]
        found[level] = Ceiling(level, r.unit, r.value, _case_clock(cases, case), case)
        measured = cases.get(case) or cases.get(f"{case}/manual_time")
        # The one trust rule: a ceiling measured beside another process or under a clock event is no ceiling.
        if measured is not None and (why := measured.doubts(mr.NOISE_THRESHOLD)):
            doubts.append(f"the {level} ceiling ({case}): {'; '.join(why)}")
    if not any(level in found for level in MEMORY):
        raise mr.InputError(
            f"{path}: no measured memory ceiling (membench.roofs): run membench with the roofline, stream, "
            "hierarchy or shared families, or use --measure"
        )
    return Ceilings(mr.gpu_name(doc), f"{path}", found, measured_cases([doc]), doubts)


def reference_for(gpu: str, root: Path = REFERENCES) -> Ceilings | None:
    """The built-in reference's ceilings for this GPU model; None where none names it or it has no roofs."""
    if not root.is_dir():
        return None
    for path in sorted(root.glob("*.json")):
        try:
            ref = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(ref, dict) or ref.get("gpu_name") != gpu or not isinstance(ref.get("roofs"), list):
            continue
        found = {}
        wanted = {roof: level for level, roof in ROOF_OF.items()}
        for k, r in enumerate(ref["roofs"]):
            where = f"{path.name}: roofs[{k}]"
            if not isinstance(r, dict) or r.get("name") not in wanted:
                continue
            value = mr.number(r.get("value"), f"{where}.value")
            if value <= 0 or r.get("unit") not in ("B/s", "op/s"):
                raise mr.InputError(f"{where}: a ceiling is a positive rate in B/s or op/s")
            mhz = r.get("sm_clock_mhz")
            clock = mr.number(mhz, f"{where}.sm_clock_mhz") * 1e6 if mhz is not None else None
            level = wanted[r["name"]]
            found[level] = Ceiling(level, r["unit"], value, clock, f"the reference's {r.get('runs', '?')} run(s)")
        if found:
            cases = ref.get("explain_cases")
            return Ceilings(
                gpu, f"the built-in reference ({path.name})", found, cases if isinstance(cases, list) else []
            )
    return None


# What --measure runs: the cases the roofs come from (the best of each pipe and level), and the cases an
# anomaly is matched to, each as (family, variant, the axes it fixes; a list allows any of its values).
MEASURED = [
    ("compute", "fp32", {"chains": [8, 16], "occupancy": [8]}),
    ("compute", "fp64", {"chains": [8, 16], "occupancy": [8]}),
    ("compute", "fp16x2", {"chains": [8, 16], "occupancy": [8]}),
    ("roofline", None, {"fmas": [0]}),
    ("hierarchy", "bandwidth", {"working_set": [65536, 16777216]}),
    ("stream", "read", {}),
    ("shared", "conflict_degree", {"width": [4, 16], "shared_stride": [1, 2, 4, 8, 16, 32]}),
    ("global", "strided", {}),
    ("layout", None, {"fields": [1]}),
    ("indirect", "gather", {}),
    ("indirect", "lookup", {}),
    ("async", "sync", {"flops": [0]}),
    ("async", "pipeline", {"flops": [0]}),
]


def _wanted(entry: dict, which: list = MEASURED) -> bool:
    """A case of the binary's listing (axes a list) or of measured_cases (axes a dict) that `which` names."""
    listed = entry.get("axes", [])
    axes = (
        listed if isinstance(listed, dict) else {a.get("name"): a.get("value") for a in listed if isinstance(a, dict)}
    )
    for family, variant, fixed in which:
        if entry.get("family") != family or (variant and entry.get("variant") != variant):
            continue
        if all(axes.get(k) in allowed for k, allowed in fixed.items()):
            return True
    return False


def measure(exe: str | None, device: int | None = None, keep: str | None = None) -> Ceilings:
    """Runs membench on the cases explain needs and reads the ceilings from the file it writes (kept at `keep`)."""
    exe = cli.membench_binary(exe, ROOT)
    base = [exe] + ([f"--device={device}"] if device is not None else [])
    try:
        listed = subprocess.run([*base, "--list_cases=json"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise mr.InputError(f"--membench {exe}: cannot run it ({e}); build it or name it") from e
    if listed.returncode != 0:
        raise mr.InputError(f"--membench {exe}: --list_cases=json exited {listed.returncode}")
    try:
        names = [c["name"] for c in json.loads(listed.stdout) if _wanted(c)]
    except (ValueError, KeyError, TypeError) as e:
        raise mr.InputError(f"--membench {exe}: its listing is not what explain reads ({e})") from e
    if not names:
        raise mr.InputError(f"--membench {exe}: it lists none of the ceiling cases")
    pattern = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    with tempfile.TemporaryDirectory(prefix="membench-explain-") as tmp:
        out = Path(tmp) / "ceilings.json"
        done = subprocess.run(
            [*base, f"--benchmark_filter={pattern}", f"--benchmark_out={out}", "--benchmark_out_format=json"],
            capture_output=True,
            text=True,
        )
        if not out.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise mr.InputError(f"--measure: membench exited {done.returncode}: {tail[0]}")
        doc = mr.load(out)
        if keep:
            shutil.copyfile(out, keep)
    found = from_results(doc, "the run --measure made")
    found.source = f"measured now ({len(names)} cases on {found.gpu})"
    return found


MATCHED = [m for m in MEASURED if m[0] not in ("compute", "roofline", "hierarchy", "stream")]


def measured_cases(docs: list[dict]) -> list[dict]:
    """The cases an anomaly is matched to, as data: family, variant, axes, the measure a gate judges the case by
    (as the file's catalog says), its unit and its value: the median over the files' trusted repetitions."""
    values: dict[tuple, list[float]] = {}
    meaning: dict[tuple, tuple[str, str]] = {}
    for doc in docs:
        for c in mr.cases(doc).values():
            if not c.runs or c.doubts(float("inf")):
                continue
            entry = {"family": c.family, "variant": c.variant, "axes": dict(c.params)}
            if not _wanted(entry, MATCHED):
                continue
            measure = md.measure_of(doc, c)
            value = c.median(measure) if measure else None
            if value is None:
                continue
            key = (c.family, c.variant, tuple(sorted(c.params.items())))
            values.setdefault(key, []).append(value)
            meaning.setdefault(key, (measure, mr.meaning(doc, measure).unit))
    return [
        {
            "family": f,
            "variant": v,
            "axes": dict(axes),
            "metric": meaning[(f, v, axes)][0],
            "unit": meaning[(f, v, axes)][1],
            "value": statistics.median(seen),
        }
        for (f, v, axes), seen in values.items()
    ]


def reference_roofs(docs: dict[str, dict]) -> list[dict]:
    """For reference.py: each measured roof explain places kernels under, the best over the runs that hold it
    (a run measures a level's ceiling only where it ran the cases that reach it: a ceilings-only run's L1 is
    the roofline sweep's, a default run's the hierarchy's), with the SM clock that best ran at."""
    values: dict[str, list[tuple[float, float | None, str]]] = {}
    for doc in docs.values():
        try:
            found = from_results(doc, "")
        except mr.InputError:
            continue
        for c in found.by_level.values():
            values.setdefault(c.level, []).append((c.value, c.clock_hz, c.unit))
    out = []
    for level, roof in ROOF_OF.items():
        seen = values.get(level)
        if not seen:
            continue
        value, clock, unit = max(seen, key=lambda s: s[0])
        entry = {"name": roof, "unit": unit, "value": value, "runs": len(seen)}
        if clock:
            entry["sm_clock_mhz"] = round(clock / 1e6, 1)
        out.append(entry)
    return out
