"""Model vs hardware counters: every model membench reports, checked with Nsight Compute.

    python scripts/ncu_check.py --membench build/test/membench [--out DIR] [-- MEMBENCH ARGS...]
    python scripts/ncu_check.py --json run.json --csv profile.csv [--timing-json timing.json --time-csv time.csv]
                                                             (check recorded files)

Three runs of the same cases:

  timing    membench --l2_flush: each launch timed alone with CUDA events,
            after the L2 has been emptied (timing.json)
  counters  under `ncu --profile-from-start off --clock-control none
            --cache-control none`; with MEMBENCH_PROFILE=1 the suite profiles
            one warm launch per case, so the k-th profiled kernel belongs to the
            k-th case that ran (checked by kernel name) (run.json, profile.csv)
  time      under ncu again with `--cache-control all` (ncu empties the caches
            before each launch) and only gpu__time_duration, one pass, so
            nothing is saved and restored around the launch; MEMBENCH_PROFILE=K
            profiles K launches per case and their median is used (time.csv)

For each case it prints the model next to the counters:

  sectors_per_request     l1tex global-load sectors / requests
  wavefronts_per_request  shared-load wavefronts / instructions, shared/conflict_degree
  conflict_ways           the same for the 32 x 32 tile kernels (information only:
                          they also store to shared memory, and those stores cost
                          the loads extra wavefronts that no per-request model sees)
  time (cases >= 64 MiB)  the timing run's manual time vs gpu__time_duration:
                          a cold L2 on both sides. (The default, warm run is
                          not comparable: each back-to-back launch writes back
                          the dirty lines the one before left in the L2.)
  DRAM bytes              bytes / dram_efficiency vs dram__bytes (information only)

Exit status: 1 when a model and its counter differ by more than the tolerance,
0 when all agree, 2 when ncu is missing or the input cannot be read.
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import membench_results as mr

METRICS = [
    "gpu__time_duration.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
]

# The kernel each (family, variant) launches; memcpy launches none of ours.
KERNEL_OF = {
    ("global", "coalesced"): "coalesced_scale",
    ("global", "strided"): "strided_scale",
    ("global", "vectorized"): "vectorized_scale",
    ("layout", "aos"): "aos_scale",
    ("layout", "soa"): "soa_scale",
    ("shared", "row"): "shared_row",
    ("shared", "column"): "shared_column",
    ("shared", "swizzle"): "shared_swizzle",
    ("shared", "conflict_degree"): "conflict_degree",
    ("async", "sync"): "async_sync",
    ("async", "memcpy_async"): "async_memcpy_async",
    ("async", "pipeline"): "async_pipeline",
    ("async", "bulk"): "async_bulk",
}

DEFAULT_MEMBENCH_ARGS = [
    "--benchmark_filter=^(global/(coalesced|strided|vectorized)|layout/|shared/)",
    "--stride=1:32",
    "--shared_stride=1,2,4,8,16,32,33",
    "--benchmark_min_time=0.05",  # plain seconds: Google Benchmark 1.7 and 1.8 both take it
]

UNIT_SCALE = {
    "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9,
    "nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9,
    "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
}
MIB64 = 64 * 2**20


@dataclass
class Check:
    case: str
    quantity: str
    model: float
    measured: float
    tolerance_pct: float | None  # None: information only

    @property
    def diff_pct(self) -> float:
        return (self.measured - self.model) / self.model * 100.0 if self.model else float("inf")

    @property
    def ok(self) -> bool | None:
        return None if self.tolerance_pct is None else abs(self.diff_pct) <= self.tolerance_pct


def create_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--membench", help="the membench binary to profile")
    p.add_argument("--ncu", default="ncu", help="Nsight Compute command line (default: ncu on PATH)")
    p.add_argument("--out", default="ncu_check", help="directory for run.json, profile.ncu-rep, profile.csv")
    p.add_argument("--json", help="check a recorded membench JSON (with --csv) instead of running")
    p.add_argument("--timing-json", help="with --json: the --l2_flush run for the time check")
    p.add_argument("--csv", help="the recorded `ncu --import ... --csv --page raw --print-units base`")
    p.add_argument("--time-csv", help="with --json: the recorded time pass (K launches per case)")
    p.add_argument("--launches", type=int, default=5, help="launches per case in the time pass (default 5)")
    p.add_argument("--tolerance", type=float, default=5.0, help="percent for the models (default 5)")
    p.add_argument("--time-tolerance", type=float, default=2.0, help="percent for the time check (default 2)")
    p.add_argument("membench_args", nargs="*", help="arguments for membench (after --)")
    return p


def _number(text: str) -> float | None:
    text = text.strip().replace(",", "")
    if text in ("", "n/a"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def parse_csv(text: str) -> list[dict]:
    """Rows of `ncu --csv --page raw`: kernel name and metrics in base units."""
    reader = list(csv.reader(io.StringIO(text)))
    start = next((i for i, row in enumerate(reader) if "Kernel Name" in row), None)
    if start is None:
        raise mr.InputError("not an ncu raw CSV (no 'Kernel Name' column)")
    header = reader[start]
    units = [""] * len(header)
    body = reader[start + 1 :]
    if body and body[0] and body[0][header.index("ID")] == "":
        units, body = body[0], body[1:]
    rows = []
    for raw in body:
        if len(raw) != len(header):
            continue
        row = {"kernel": raw[header.index("Kernel Name")]}
        for name, unit, cell in zip(header, units, raw):
            if name in METRICS:
                value = _number(cell)
                row[name] = None if value is None else value * UNIT_SCALE.get(unit, 1.0)
        rows.append(row)
    return rows


def launched(doc: dict) -> list[mr.Case]:
    """The cases that ran one of our kernels, in the order they ran."""
    return [c for c in mr.cases(doc).values() if c.error is None and (c.family, c.variant) in KERNEL_OF]


def pair(doc: dict, rows: list[dict]) -> list[tuple[mr.Case, list[dict]]]:
    """Matches the profiled kernels with the cases that launched them: the
    rows come in equal groups, one group per case in the order they ran."""
    ran = launched(doc)
    if not ran or not rows or len(rows) % len(ran):
        raise mr.InputError(f"{len(ran)} cases ran but {len(rows)} kernels were profiled; run and profile are out of step")
    k = len(rows) // len(ran)
    groups = [rows[i * k:(i + 1) * k] for i in range(len(ran))]
    for case, group in zip(ran, groups):
        expected = KERNEL_OF[(case.family, case.variant)]
        for row in group:
            if expected not in row["kernel"]:
                raise mr.InputError(f"case {case.name} paired with kernel '{row['kernel']}' (expected {expected})")
    return list(zip(ran, groups))


def median_time(group: list[dict]) -> float | None:
    times = sorted(r["gpu__time_duration.sum"] for r in group if r.get("gpu__time_duration.sum"))
    if not times:
        return None
    mid = len(times) // 2
    return times[mid] if len(times) % 2 else (times[mid - 1] + times[mid]) / 2


def checks_for(case: mr.Case, row: dict, tolerance: float, time_tolerance: float,
               timed: mr.Case | None = None, duration: float | None = None) -> list[Check]:
    """The checks of one case: `row` holds its counters; `timed` is the case in
    the timing run and `duration` its ncu time (both default to the counters
    run's own)."""
    out = []
    model_sectors = case.median("sectors_per_request")
    requests = row.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
    if model_sectors is not None and requests:
        measured = row["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / requests
        out.append(Check(case.name, "sectors_per_request", model_sectors, measured, tolerance))
    instructions = row.get("smsp__inst_executed_op_shared_ld.sum")
    wavefronts = row.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
    if instructions and wavefronts is not None:
        per_request = wavefronts / instructions
        if case.median("wavefronts_per_request") is not None:
            out.append(Check(case.name, "wavefronts_per_request", case.median("wavefronts_per_request"), per_request, tolerance))
        elif case.median("conflict_ways") is not None:
            out.append(Check(case.name, "conflict_ways", case.median("conflict_ways"), per_request, None))
    launches = case.median("launches_per_iteration") or 1.0
    bytes_ = case.median("bytes") / launches if case.median("bytes") is not None else None
    duration = duration if duration is not None else row.get("gpu__time_duration.sum")
    timed = timed or case
    if bytes_ is not None and bytes_ >= MIB64 and duration and timed.median("real_time"):
        out.append(Check(case.name, "time_ns", timed.median("real_time"), duration, time_tolerance))
    efficiency = case.median("dram_efficiency")
    dram = (row.get("dram__bytes_read.sum") or 0) + (row.get("dram__bytes_write.sum") or 0)
    if efficiency and bytes_ and dram:
        out.append(Check(case.name, "dram_bytes", bytes_ / efficiency, dram, None))
    return out


def evaluate(doc: dict, rows: list[dict], tolerance: float, time_tolerance: float,
             timing: dict | None = None, time_rows: list[dict] | None = None) -> list[Check]:
    """Checks of every profiled case; times from `timing` (the timing run) and
    `time_rows` (the time pass) when given."""
    timed_cases = mr.cases(timing) if timing else {}
    durations = {c.name: median_time(g) for c, g in pair(doc, time_rows)} if time_rows else {}
    out = []
    for case, group in pair(doc, rows):
        out.extend(checks_for(case, group[0], tolerance, time_tolerance, timed_cases.get(case.name),
                              durations.get(case.name)))
    return out


def render(checks: list[Check]) -> str:
    lines = ["| case | quantity | model | ncu | diff % | verdict |", "| --- | --- | ---: | ---: | ---: | --- |"]
    for c in checks:
        verdict = {None: "info", True: "ok", False: "MISMATCH"}[c.ok]
        lines.append(f"| {c.case} | {c.quantity} | {c.model:.4g} | {c.measured:.4g} | {c.diff_pct:+.2f} | {verdict} |")
    return "\n".join(lines)


def quiet(command: list[str], env: dict | None = None) -> None:
    """Runs a command, keeping its output unless it fails (Google Benchmark
    1.8 warns on stderr about plain-seconds --benchmark_min_time)."""
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise mr.InputError(f"{Path(command[0]).name} exited with {done.returncode}: {tail[0]}")


def export_csv(ncu: str, report: Path, table: Path) -> None:
    text = subprocess.run(
        [ncu, "--import", f"{report}.ncu-rep", "--csv", "--page", "raw", "--print-units", "base"],
        check=True, capture_output=True, text=True,
    ).stdout
    table.write_text(text)


def run_profile(args: argparse.Namespace) -> tuple[Path, Path, Path, Path]:
    """Runs the timing run, the counters pass and the time pass; returns the
    timing JSON, the counters run's JSON, its CSV and the time pass's CSV."""
    ncu = shutil.which(args.ncu)
    if ncu is None:
        raise FileNotFoundError(f"Nsight Compute not found ('{args.ncu}'); install it or pass --ncu")
    if not args.membench or not Path(args.membench).exists():
        raise mr.InputError(f"membench binary not found: {args.membench}")
    if args.launches < 1:
        raise mr.InputError(f"--launches={args.launches}: must be at least 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    timing_json, run_json = out / "timing.json", out / "run.json"
    membench_args = args.membench_args or DEFAULT_MEMBENCH_ARGS
    quiet([args.membench, *membench_args, "--l2_flush", f"--benchmark_out={timing_json}", "--benchmark_out_format=json"])

    def profile(name: str, cache: str, metrics: list[str], launches: int) -> Path:
        report = out / name
        command = [
            ncu, "--profile-from-start", "off", "--clock-control", "none", "--cache-control", cache,
            "--metrics", ",".join(metrics), "--export", str(report), "--force-overwrite",
            args.membench, *membench_args, f"--benchmark_out={out / (name + '.json')}", "--benchmark_out_format=json",
        ]
        quiet(command, env=dict(os.environ, MEMBENCH_PROFILE=str(launches)))
        export_csv(ncu, report, out / f"{name}.csv")
        return out / f"{name}.csv"

    table = profile("profile", "none", METRICS, 1)
    (out / "profile.json").replace(run_json)
    time_table = profile("time", "all", ["gpu__time_duration.sum"], args.launches)
    return timing_json, run_json, table, time_table


def read_text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as e:
        raise mr.InputError(f"{path}: cannot read ({e.strerror})") from e


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if args.json or args.csv:
            if not (args.json and args.csv):
                raise mr.InputError("--json and --csv go together")
            run_json, table = Path(args.json), Path(args.csv)
            timing = mr.load(args.timing_json) if args.timing_json else None
            time_table = Path(args.time_csv) if args.time_csv else None
        else:
            timing_json, run_json, table, time_table = run_profile(args)
            timing = mr.load(timing_json)
        doc = mr.load(run_json)
        time_rows = parse_csv(read_text(time_table)) if time_table else None
        results = evaluate(doc, parse_csv(read_text(table)), args.tolerance, args.time_tolerance, timing, time_rows)
    except FileNotFoundError as e:
        print(f"ncu_check.py: {e}", file=sys.stderr)
        return 2
    except (mr.InputError, subprocess.CalledProcessError) as e:
        print(f"ncu_check.py: {e}", file=sys.stderr)
        return 2
    print(render(results))
    bad = [c for c in results if c.ok is False]
    print(f"\n{len(results) - len(bad)} of {len(results)} checks agree" + (f"; {len(bad)} differ" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
