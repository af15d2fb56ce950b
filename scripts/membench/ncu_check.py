"""Model vs hardware counters: every model membench reports, checked with Nsight Compute.

    python scripts/ncu_check.py --membench build/release/membench [--out DIR] [-- MEMBENCH ARGS...]
    python scripts/ncu_check.py --json run.json --csv profile.csv --cases cases.json [--dram-csv dram.csv]
                                [--timing-json timing.json --time-csv time.csv]   (check recorded files)

Four runs of the same cases:

  timing    membench --l2=cold: each launch timed alone with CUDA events,
            after the L2 has been emptied (timing.json)
  counters  under `ncu --profile-from-start off --clock-control none
            --cache-control none` with the l1tex and shared-memory metrics;
            MEMBENCH_PROFILE=1 makes the suite profile one warm launch per case,
            so the k-th profiled kernel belongs to the k-th case that ran
            (checked by kernel name: `membench --list_cases=json` names
            each case's kernels, cases.json) (run.json, profile.csv)
  dram      the DRAM byte counters alone (one pass: ncu replays nothing, so the
            profiled launch sees the L2 exactly as the launch before it left
            it, the steady state of back-to-back launches), 3 launches per case,
            median (dram.csv)
  time      `--cache-control all` (ncu empties the caches before each launch)
            and only gpu__time_duration, 5 launches per case, median (time.csv)

For each case it prints the model next to the counter it predicts; which counter checks which model,
and when a check is judged or shown for information only: docs/tracking.md, "What ncu_check.py checks".

Exit status: 1 when a model and its counter differ by more than the tolerance,
0 when all agree, 2 when ncu is missing or the input cannot be read.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from membench import levels
from membench import declarations as md
from membench import cli
from membench import results as mr
from membench.ncu_profile import (  # noqa: F401  (the passes and their metrics, under the names the tests know)
    COUNTER_METRICS,
    DEFAULT_MEMBENCH_ARGS,
    DRAM_METRICS,
    L1_HIT_RATE,
    METRICS,
    PROFILED_RUN_ARGS,
    TIME_METRIC,
    export_csv,
    parse_csv,
    quiet,
    run_profile,
)

MIB64 = 64 * 2**20
DRAM_MIN_N = 2**24
SMALL_SHARE = 0.01


@dataclass
class Check:
    case: str
    quantity: str
    model: float
    measured: float
    tolerance_pct: float | None  # None: information only
    slack: float = 0.0  # absolute agreement that always passes (same unit as the values)
    at_most: bool = False  # the model is a bound: only a counter above it by more than the tolerance fails

    @property
    def diff_pct(self) -> float:
        if not self.model:
            return 0.0 if self.measured == self.model else float("inf")
        return (self.measured - self.model) / self.model * 100.0

    @property
    def ok(self) -> bool | None:
        if self.tolerance_pct is None:
            return None
        if self.at_most and self.measured <= self.model:
            return True
        return abs(self.diff_pct) <= self.tolerance_pct or abs(self.measured - self.model) <= self.slack


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="ncu_check.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--membench", help="the membench binary to profile")
    p.add_argument("--ncu", default="ncu", help="Nsight Compute command line (default: ncu on PATH)")
    p.add_argument(
        "--out", default="ncu_check", help="directory for the runs' JSON, reports and CSV (default ncu_check)"
    )
    p.add_argument("--json", help="check a recorded membench JSON (with --csv) instead of running")
    p.add_argument("--csv", help="the recorded counters pass (`ncu --import R --csv --page raw --print-units base`)")
    p.add_argument("--cases", help="with --json: the run's `membench --list_cases=json` (each case's kernels)")
    p.add_argument("--dram-csv", help="with --json: the recorded DRAM pass")
    p.add_argument("--timing-json", help="with --json: the --l2=cold run for the time check")
    p.add_argument("--time-csv", help="with --json: the recorded time pass")
    p.add_argument("--launches", type=int, default=5, help="launches per case in the time pass (default 5)")
    p.add_argument("--dram-launches", type=int, default=3, help="launches per case in the DRAM pass (default 3)")
    p.add_argument("--tolerance", type=float, default=5.0, help="percent for the models (default 5)")
    p.add_argument("--time-tolerance", type=float, default=2.0, help="percent for the time check (default 2)")
    p.add_argument(
        "--time-slack-us",
        type=float,
        default=2.5,
        help="microseconds within which the time check always agrees (default 2.5)",
    )
    p.add_argument("membench_args", nargs="*", help="arguments for membench (after --)")
    return p


def case_kernels(listing: object, origin: str) -> dict[str, list[str]]:
    """The kernels of each case, from `membench --list_cases=json`."""
    if not isinstance(listing, list) or not all(
        isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("kernels"), list) for c in listing
    ):
        raise mr.InputError(f"{origin}: not membench --list_cases=json output")
    return {c["name"]: [str(k) for k in c["kernels"]] for c in listing}


def launched(doc: dict, kernels: dict[str, list[str]] | None) -> list[mr.Case]:
    """The cases that ran one of our kernels, in the order they ran (without a
    case list: every case that ran)."""
    ran = [c for c in mr.cases(doc).values() if c.error is None and c.skipped is None]
    if kernels is None:
        return ran
    missing = [c.name for c in ran if c.name not in kernels]
    if missing:
        raise mr.InputError(f"case {missing[0]} is not in the case list; list the cases with the run's own arguments")
    return [c for c in ran if kernels[c.name]]


def pair(doc: dict, rows: list[dict], kernels: dict[str, list[str]] | None = None) -> list[tuple[mr.Case, list[dict]]]:
    """Matches the profiled kernels with the cases that launched them: the
    rows come in equal groups, one group per case in the order they ran,
    each row's kernel one the case lists."""
    ran = launched(doc, kernels)
    if not ran or not rows or len(rows) % len(ran):
        raise mr.InputError(
            f"{len(ran)} cases ran but {len(rows)} kernels were profiled; run and profile are out of step"
        )
    k = len(rows) // len(ran)
    groups = [rows[i * k : (i + 1) * k] for i in range(len(ran))]
    for case, group in zip(ran, groups):
        expected = kernels[case.name] if kernels is not None else []
        for row in group:
            if expected and not any(name in row["kernel"] for name in expected):
                raise mr.InputError(
                    f"case {case.name} paired with kernel '{row['kernel']}' (expected {', '.join(expected)})"
                )
    return list(zip(ran, groups))


def median_of(group: list[dict], metric: str) -> float | None:
    values = [r[metric] for r in group if r.get(metric) is not None]
    return statistics.median(values) if values else None


ELEMENT_UNITS = ("floats", "structs", "elements")  # axes that count an array's elements


def _array_elements(doc: dict, case: mr.Case) -> int | None:
    """The largest of the case's axes whose declared unit counts elements (an older file's n, structs,
    elements)."""
    family = md.families(doc).get(case.family)
    declared = [a.get("name") for a in family.axes if a.get("unit") in ELEMENT_UNITS] if family else []
    names = declared or ["n", "structs", "elements"]
    values = [case.params[k] for k in names if isinstance(case.params.get(k), int)]
    return max(values) if values else None


def judgement(doc: dict, case: mr.Case, measure: md.NcuMeasure, model: float) -> tuple[bool, float] | None:
    """Whether a declared check is judged, and its slack (an absolute agreement that always passes); None: the
    check is not made. A working set from half to four times a cache level is information only (the cache
    holds part of it)."""
    ws = case.params.get("working_set")
    if measure.judged == "never" or (isinstance(ws, int) and near_a_level(doc, ws)):
        return False, 0.0
    if measure.judged == "beyond_l1" and case.median("model_level") == 1:
        return False, 0.0  # held in L1 the model is each SM's first read, a bound
    if measure.judged != "large":
        return True, 0.0
    if isinstance(ws, int):
        # A working set held in a cache (model 0) agrees while under 1% of the bytes read come from DRAM.
        return True, 0.0 if model else SMALL_SHARE * (case.median("bytes") or 0.0)
    if not model:
        return None
    # A side under 1% of the case's modelled traffic (a reduction's few partial sums) is shown, not judged:
    # a few kilobytes of stray traffic would decide its percentage.
    total = (case.median("dram_read_bytes") or 0) + (case.median("dram_write_bytes") or 0)
    n = _array_elements(doc, case)
    return n is not None and n >= DRAM_MIN_N and model >= SMALL_SHARE * total, 0.0


def declared_checks(
    doc: dict,
    case: mr.Case,
    row: dict,
    dram_group: list[dict],
    measures: dict[str, md.NcuMeasure],
    tolerance: float,
    timed: mr.Case | None = None,
) -> list[Check]:
    """Each model counter the case reports against the ncu counter its declaration names (the counters pass's
    row, or the median over the DRAM pass's launches). The model is the timing run's where it has one: a model
    counter that rests on a measured rate (a pipe's busy share) is taken from the run measured to its stopping
    rule, not from the profiled run's few batches; a count (sectors, bytes) is the same in both."""
    out = []
    for name in sorted(measures):
        measure = measures[name]
        model = (timed.median(name) if timed is not None else None) or case.median(name)
        if model is None:
            continue
        if measure.pass_ == "counters":
            measured = measure.value(row)
        else:
            values = [v for v in (measure.value(r) for r in dram_group) if v is not None]
            measured = statistics.median(values) if values else None
        verdict = judgement(doc, case, measure, model)
        if measured is None or verdict is None:
            continue
        judged, slack = verdict
        bound = measure.judged == "at_most"
        out.append(Check(case.name, name, model, measured, tolerance if judged else None, slack, bound))
    hit, level = row.get(L1_HIT_RATE), case.median("model_level")
    if hit is not None and level and case.median("latency_ns") is None:
        # The level model of a bandwidth case says where its reads hit: all in L1 (held there), none (past it).
        ws = case.params.get("working_set")
        judged = level == 1 and not (isinstance(ws, int) and near_a_level(doc, ws))
        out.append(Check(case.name, "l1_hit_pct", 100.0 if level == 1 else 0.0, hit, tolerance if judged else None))
    return out


def near_a_level(doc: dict, working_set: int) -> bool:
    """Whether a working set is from half to four times a reported level size (a cache holds part of it)."""
    return any(size / 2 <= working_set <= 4 * size for _, size in levels.device_sizes(doc))


def time_check(
    case: mr.Case, timed: mr.Case | None, duration: float | None, tolerance: float, slack_ns: float
) -> list[Check]:
    """The cold-L2 event time per launch against ncu's median duration, for cases of 64 MiB or more
    whose data comes from DRAM (a hierarchy case held in a cache is left out: ncu's cache control
    empties more than the L2 the timing run flushes)."""
    bytes_ = case.median("bytes")
    event = timed.median("real_time") if timed else None
    level = case.median("model_level")
    if bytes_ is None or bytes_ < MIB64 or not duration or not event or (level is not None and level < 3):
        return []
    if case.median("pct_of_peak") is None:
        # No bandwidth ceiling: the SMs' issue rate paces the case, and the timing run's clock is not ncu's.
        return [Check(case.name, "time_ns", event, duration, None)]
    if case.median("set_aside_bytes") is not None:
        return []  # persisting lines outlive the timing run's flush, and ncu's cache control empties them
    return [Check(case.name, "time_ns", event, duration, tolerance, slack_ns)]


def evaluate(
    doc: dict,
    rows: list[dict],
    tolerance: float,
    time_tolerance: float,
    timing: dict | None = None,
    time_rows: list[dict] | None = None,
    dram_rows: list[dict] | None = None,
    time_slack_us: float = 2.5,
    kernels: dict[str, list[str]] | None = None,
) -> list[Check]:
    """Checks of every profiled case (kernels: each case's kernels, from --list_cases=json)."""
    # The timing run's cases are cold (.../l2:cold/...); they time the same launch.
    timed_cases = {c.name_without("l2"): c for c in mr.cases(timing).values()} if timing else {}
    durations = {c.name: median_of(g, TIME_METRIC) for c, g in pair(doc, time_rows, kernels)} if time_rows else {}
    dram = {c.name: g for c, g in pair(doc, dram_rows, kernels)} if dram_rows else {}
    measures = md.ncu_measures(doc)
    out = []
    for case, group in pair(doc, rows, kernels):
        timed = timed_cases.get(case.name)
        out.extend(declared_checks(doc, case, group[0], dram.get(case.name, []), measures, tolerance, timed))
        # Without a timing run or a time pass: the counters run's own time and duration.
        out.extend(
            time_check(
                case,
                timed_cases.get(case.name, case),
                durations.get(case.name) or group[0].get(TIME_METRIC),
                time_tolerance,
                time_slack_us * 1e3,
            )
        )
    return out


def render(checks: list[Check]) -> str:
    lines = ["| case | quantity | model | ncu | diff % | verdict |", "| --- | --- | ---: | ---: | ---: | --- |"]
    for c in checks:
        verdict = {None: "info", True: "ok", False: "MISMATCH"}[c.ok]
        lines.append(f"| {c.case} | {c.quantity} | {c.model:.4g} | {c.measured:.4g} | {c.diff_pct:+.2f} | {verdict} |")
    return "\n".join(lines)


def read_text(path: Path) -> str:
    return mr.read_input(path)


def check_flags(args) -> None:
    """The tolerances are percentages a check can meet, the launches counts of one or more; an InputError."""
    for flag in ("tolerance", "time_tolerance", "time_slack_us"):
        value = getattr(args, flag)
        if not (0 <= value < math.inf):
            raise mr.InputError(f"--{flag.replace('_', '-')}={value}: must be zero or more and finite")
    for flag in ("launches", "dram_launches"):
        if getattr(args, flag) < 1:
            raise mr.InputError(f"--{flag.replace('_', '-')}={getattr(args, flag)}: must be at least 1")


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        check_flags(args)
        if args.json or args.csv or args.cases:
            if not (args.json and args.csv and args.cases):
                raise mr.InputError("--json, --csv and --cases go together")
            files = {"json": Path(args.json), "csv": Path(args.csv), "cases": Path(args.cases)}
            for key in ("timing_json", "time_csv", "dram_csv"):
                if getattr(args, key):
                    files[key.replace("_json", "")] = Path(getattr(args, key))
        else:
            files = run_profile(args)
        doc = mr.load(files["json"])
        try:
            kernels = case_kernels(json.loads(read_text(files["cases"])), str(files["cases"]))
        except json.JSONDecodeError as e:
            raise mr.InputError(f"{files['cases']}: not JSON ({e.msg})") from e
        except (RecursionError, ValueError) as e:  # nested too deep, an integer of thousands of digits
            raise mr.InputError(f"{files['cases']}: not a case list ({type(e).__name__})") from e
        timing = mr.load(files["timing"]) if "timing" in files else None
        rows = parse_csv(read_text(files["csv"]))
        time_rows = parse_csv(read_text(files["time_csv"])) if "time_csv" in files else None
        dram_rows = parse_csv(read_text(files["dram_csv"])) if "dram_csv" in files else None
        results = evaluate(
            doc, rows, args.tolerance, args.time_tolerance, timing, time_rows, dram_rows, args.time_slack_us, kernels
        )
    except FileNotFoundError as e:
        print(f"ncu_check.py: {e}", file=sys.stderr)
        return 2
    except (mr.InputError, subprocess.CalledProcessError) as e:
        print(f"ncu_check.py: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:  # counters missing or malformed
        print(f"ncu_check.py: cannot check these files ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    print(render(results))
    bad = [c for c in results if c.ok is False]
    print(f"\n{len(results) - len(bad)} of {len(results)} checks agree" + (f"; {len(bad)} differ" if bad else ""))
    return 1 if bad else 0
