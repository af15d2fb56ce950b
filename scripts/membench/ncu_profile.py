"""The four passes ncu_check.py runs (a cold timing run, then under Nsight Compute: the l1tex and shared
counters, the DRAM bytes in steady state, the cold duration), and the metrics each pass collects."""

from __future__ import annotations

import csv
import math
import io
import os
import shutil
import subprocess
from pathlib import Path

from membench import declarations as md
from membench import results as mr

COUNTER_METRICS = [
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
    "lts__t_requests_srcunit_tex_op_atom.sum",
    "lts__t_requests_srcunit_tex_op_red.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
]
L1_HIT_RATE = "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"
DRAM_METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum"]
TIME_METRIC = "gpu__time_duration.sum"
METRICS = [TIME_METRIC, *COUNTER_METRICS, *DRAM_METRICS]  # the columns of every pass, before the declared ones


def pass_metrics(doc: dict, name: str, base: list[str]) -> list[str]:
    """A pass's metrics: its own, and every metric a model counter the run reports declares for that pass."""
    declared = [
        m for measure in md.ncu_measures(doc).values() if measure.pass_ == name for m in measure.metrics + measure.per
    ]
    return list(dict.fromkeys([*base, *declared]))


DEFAULT_MEMBENCH_ARGS = [
    "--benchmark_filter=^(global/(coalesced|strided|strided_full_grid|vectorized|broadcast)|layout/|shared/)",
    "--stride=1:32",
    "--shared_stride=0,1,2,4,8,16,32,33",
]
# Under ncu only the profiled launches matter: measure as little as the suite allows.
PROFILED_RUN_ARGS = ["--min_batches=1", "--max_time=0"]


def quiet(command: list[str], env: dict | None = None) -> str:
    """Runs a command and returns its standard output; its last line of error when it fails."""
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise mr.InputError(f"{Path(command[0]).name} exited with {done.returncode}: {tail[0]}")
    return done.stdout


def export_csv(ncu: str, report: Path, table: Path) -> None:
    done = subprocess.run(
        [ncu, "--import", f"{report}.ncu-rep", "--csv", "--page", "raw", "--print-units", "base"],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise mr.InputError(f"ncu --import {report}.ncu-rep exited with {done.returncode}")
    table.write_text(done.stdout)


def run_profile(args) -> dict[str, Path]:
    """Runs the four passes; returns their files."""
    ncu = shutil.which(args.ncu)
    if ncu is None:
        raise FileNotFoundError(f"Nsight Compute not found ('{args.ncu}'); install it or pass --ncu")
    if not args.membench or not Path(args.membench).exists():
        raise mr.InputError(f"membench binary not found: {args.membench}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    membench_args = args.membench_args or DEFAULT_MEMBENCH_ARGS
    files = {"timing": out / "timing.json", "cases": out / "cases.json"}
    files["cases"].write_text(quiet([args.membench, *membench_args, "--list_cases=json"]))
    quiet(
        [
            args.membench,
            *membench_args,
            "--l2=cold",
            f"--benchmark_out={files['timing']}",
            "--benchmark_out_format=json",
        ]
    )

    def profile(name: str, cache: str, metrics: list[str], launches: int) -> Path:
        report = out / name
        command = [
            ncu,
            "--profile-from-start",
            "off",
            "--clock-control",
            "none",
            "--cache-control",
            cache,
            "--metrics",
            ",".join(metrics),
            "--export",
            str(report),
            "--force-overwrite",
            args.membench,
            *membench_args,
            *PROFILED_RUN_ARGS,
            f"--benchmark_out={out / (name + '.json')}",
            "--benchmark_out_format=json",
        ]
        quiet(command, env=dict(os.environ, MEMBENCH_PROFILE=str(launches)))
        export_csv(ncu, report, out / f"{name}.csv")
        return out / f"{name}.csv"

    timing = mr.load(files["timing"])
    files["csv"] = profile("profile", "none", pass_metrics(timing, "counters", COUNTER_METRICS), 1)
    files["json"] = out / "profile.json"
    files["dram_csv"] = profile("dram", "none", pass_metrics(timing, "dram", DRAM_METRICS), args.dram_launches)
    files["time_csv"] = profile("time", "all", [TIME_METRIC], args.launches)
    return files


# The prefixes ncu puts before a unit's base (byte, hz), and the time units, in their base: a duration in
# nanoseconds, a rate a second. ncu prints "Mbyte", "Ghz", "us", "Tbyte/s", "sector/ns" unless told
# --print-units base; either reads the same.
PREFIX_SCALE = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
TIME_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}


def unit_scale(unit: str) -> float:
    """The factor that turns a cell in `unit` into the base: a time into nanoseconds, a "per" time into per
    second, a prefixed byte or hertz into bytes or hertz; 1 for anything else (%, sector, inst/cycle)."""
    top, _, per = unit.strip().partition("/")

    def part(u: str) -> float:
        if u in TIME_NS:
            return TIME_NS[u]
        if len(u) > 1 and u[0] in PREFIX_SCALE and u[1:].lower() in ("byte", "hz"):
            return PREFIX_SCALE[u[0]]
        return 1.0

    scale = part(top)
    if per in TIME_NS:  # a rate: per second
        scale *= 1e9 / TIME_NS[per]
    elif per:
        scale /= part(per)
    return scale


# The columns before the metrics: which launch a row is, not what it measured.
IDENTITY = {"ID", "CC", "Device", "Context", "Stream"}


def _number(text: str) -> float | None:
    """A cell's number (thousands separators allowed); None for "", "n/a", "inf", "nan" or anything else."""
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_csv(text: str) -> list[dict]:
    """Rows of `ncu --csv --page raw`: kernel name and metrics in base units; a metric whose cell is text (a
    device's name) under "text", by its metric name."""
    try:
        reader = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:  # a field over the csv module's limit: not what ncu writes
        raise mr.InputError(f"not an ncu raw CSV ({e})") from e
    start = next((i for i, row in enumerate(reader) if "Kernel Name" in row), None)
    if start is None:
        raise mr.InputError("not an ncu raw CSV (no 'Kernel Name' column)")
    header = reader[start]
    units = [""] * len(header)
    body = reader[start + 1 :]
    if body and body[0] and "ID" in header and body[0][header.index("ID")] == "":
        units, body = body[0], body[1:]
    rows = []
    for raw in body:
        if len(raw) != len(header):
            continue
        row: dict = {"kernel": raw[header.index("Kernel Name")], "text": {}}
        if "ID" in header:
            row["text"]["ID"] = raw[header.index("ID")]
        for name, unit, cell in zip(header, units, raw):
            if name not in IDENTITY and " " not in name:  # a metric (unit__counter.rollup, or a derived name)
                value = _number(cell)
                row[name] = None if value is None else value * unit_scale(unit)
                if value is None and cell.strip():
                    row["text"][name] = cell.strip()
        rows.append(row)
    return rows
