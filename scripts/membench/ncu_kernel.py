"""What one profiled kernel did, read from a row of an Nsight Compute report (`ncu --csv --page raw`): its time
and SM clock, the bytes it moved at each level, its floating-point operations by pipe, and the counters that say
what its accesses look like (sectors a request against the ideal, shared-memory wavefronts against the ideal,
hit rates, stalls), each read from the metric ncu's own sections use. Nothing here knows membench's cases.

The bytes at each level are the traffic each level serves:
  DRAM    dram__bytes_read + dram__bytes_write
  L2      the sectors L1 sends to L2 (lts__t_sectors_srcunit_tex, reads and writes), 32 bytes each
  L1      the global sectors L1 looks up for loads and stores (l1tex__t_sectors_pipe_lsu_mem_global), 32 bytes each
  shared  the shared-memory loads' and stores' wavefronts (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld,
          _op_st, _op_atom), 128 bytes each: a
          wavefront is one pass of the 32 banks, so a 32-way conflict costs 32 of them for 128 useful bytes
The operations are those ncu's roofline counts: an FMA two, an add or a multiply one, a half2 FMA four.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from membench.case import InputError

SECTOR = 32  # bytes
WAVEFRONT = 128  # bytes the 32 banks deliver in one pass

# The metrics explain reads, by the ncu section that collects them (`ncu --set full` collects all of them).
SECTIONS = {
    "SpeedOfLight": [
        "gpu__time_duration.sum",
        "sm__cycles_elapsed.avg.per_second",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    ],
    "MemoryWorkloadAnalysis_Tables": [
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum",
        "lts__t_sectors_srcunit_tex_op_write.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
        "lts__t_sector_op_read_hit_rate.pct",
    ],
    "SourceCounters": [
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
        "memory_l1_wavefronts_shared_ideal",
    ],
    "SpeedOfLight_RooflineChart": [
        "smsp__cycles_elapsed.avg.per_second",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed",
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
    ],
}
REQUIRED = [m for metrics in SECTIONS.values() for m in metrics]
# Read where the report has them: half-precision FMAs, the shared loads' own wavefronts, the stalls, ncu's units.
HALF = {"hfma": 4.0, "hadd": 2.0, "hmul": 2.0}  # operations a half2 instruction's thread does
SOL_UNITS = {  # ncu's Speed of Light breakdown: the busiest unit of each of explain's levels
    "DRAM": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "L2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "L1": "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "compute": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
}
STALL_PREFIX, STALL_SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
TENSOR_PIPES = "sm__inst_executed_pipe_tensor_op_"


def sections_flags(missing: list[str]) -> str:
    """The `ncu --section` flags that collect these metrics."""
    wanted = [s for s, metrics in SECTIONS.items() if any(m in metrics for m in missing)]
    return " ".join(f"--section {s}" for s in wanted)


@dataclass
class Kernel:
    """One launch as ncu measured it; bytes in bytes, time in nanoseconds, clocks in hertz."""

    name: str
    launch: str  # ncu's ID of the launch, its grid and block
    gpu: str
    duration_ns: float
    sm_clock_hz: float
    dram_read: float
    dram_write: float
    l2_read: float  # bytes L1 sends L2 to read, and to write
    l2_write: float
    l1_load: float  # global bytes L1 looks up
    l1_store: float
    load_requests: float
    store_requests: float
    load_used: float  # the fraction of each global load sector's bytes the kernel uses (ncu: bytes a sector / 32)
    store_used: float
    shared_wavefronts: float
    shared_ideal: float  # the wavefronts the same shared accesses take without conflicts
    shared_load_degree: float | None  # wavefronts a shared load instruction takes, where ncu has both counts
    l1_hit_pct: float
    l2_read_hit_pct: float
    flops: dict[str, float] = field(default_factory=dict)  # by pipe: fp32, fp64, fp16
    sol_pct: dict[str, float] = field(default_factory=dict)  # ncu's Speed of Light by explain's names
    stalls: dict[str, float] = field(default_factory=dict)  # warp stall reasons, cycles an issued instruction
    tensor_busy_pct: float = 0.0

    def level_bytes(self) -> dict[str, float]:
        return {
            "DRAM": self.dram_read + self.dram_write,
            "L2": self.l2_read + self.l2_write,
            "L1": self.l1_load + self.l1_store,
            "shared": self.shared_wavefronts * WAVEFRONT,
        }


# More than any one launch counts (bytes, sectors, cycles a second): a cell beyond it is not what ncu writes.
MAX_COUNT = 1e20


def _value(row: dict, metric: str, where: str) -> float:
    value = row.get(metric)
    if value is None:
        raise InputError(f"{where}: '{metric}' has no value")
    if value < 0:
        raise InputError(f"{where}: '{metric}' is negative ({value:g})")
    if value > MAX_COUNT:
        raise InputError(f"{where}: '{metric}' is {value:g}, more than one launch counts")
    return float(value)


def _optional(row: dict, metric: str) -> float | None:
    value = row.get(metric)
    return None if value is None or not 0 <= value <= MAX_COUNT else float(value)


def kernel(row: dict, index: int) -> Kernel:
    """A row as a Kernel; InputError naming the section flags where the report lacks what explain reads."""
    missing = [m for m in REQUIRED if m not in row]
    if missing:
        raise InputError(
            f"the report lacks {len(missing)} metric(s) explain reads ({missing[0]}, ...): profile with "
            f"`ncu --set full` or add {sections_flags(missing)}"
        )
    name = str(row.get("kernel") or f"kernel {index}")
    where = f"{name} (launch {index})"
    v = lambda m: _value(row, m, where)  # noqa: E731
    duration = v("gpu__time_duration.sum")
    clock = v("sm__cycles_elapsed.avg.per_second")
    if duration <= 0 or clock <= 0:
        raise InputError(f"{where}: a duration and an SM clock above zero are needed")
    per_cycle = (
        lambda op: _optional(row, f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum.per_cycle_elapsed") or 0.0
    )  # noqa: E731
    cycles = v("smsp__cycles_elapsed.avg.per_second") * duration * 1e-9
    flops = {
        "fp32": (2 * per_cycle("ffma") + per_cycle("fadd") + per_cycle("fmul")) * cycles,
        "fp64": (2 * per_cycle("dfma") + per_cycle("dadd") + per_cycle("dmul")) * cycles,
        "fp16": sum(k * per_cycle(op) for op, k in HALF.items()) * cycles,
    }
    shared_ld = v("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
    shared_ld_inst = _optional(row, "smsp__sass_inst_executed_op_shared_ld.sum") or _optional(
        row, "smsp__inst_executed_op_shared_ld.sum"
    )
    text = row.get("text", {})
    used = lambda op: min(1.0, v(f"smsp__sass_average_data_bytes_per_sector_mem_global_op_{op}.ratio") / SECTOR)  # noqa: E731
    wavefronts = (
        shared_ld
        + v("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
        + (_optional(row, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum") or 0.0)
    )
    stalls = {
        k[len(STALL_PREFIX) : -len(STALL_SUFFIX)]: float(x)
        for k, x in row.items()
        if isinstance(k, str) and k.startswith(STALL_PREFIX) and k.endswith(STALL_SUFFIX) and isinstance(x, float)
    }
    tensor = [
        x
        for k, x in row.items()
        if isinstance(k, str)
        and k.startswith(TENSOR_PIPES)
        and k.endswith(".avg.pct_of_peak_sustained_elapsed")
        and isinstance(x, float)
    ]
    return Kernel(
        name=name,
        launch=str(text.get("ID", index)),
        gpu=text.get("device__attribute_display_name", ""),
        duration_ns=duration,
        sm_clock_hz=clock,
        dram_read=v("dram__bytes_read.sum"),
        dram_write=v("dram__bytes_write.sum"),
        l2_read=v("lts__t_sectors_srcunit_tex_op_read.sum") * SECTOR,
        l2_write=v("lts__t_sectors_srcunit_tex_op_write.sum") * SECTOR,
        l1_load=v("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") * SECTOR,
        l1_store=v("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum") * SECTOR,
        load_requests=v("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
        store_requests=v("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
        load_used=used("ld") if v("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum") else 1.0,
        store_used=used("st") if v("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum") else 1.0,
        shared_wavefronts=wavefronts,
        shared_ideal=min(wavefronts, v("memory_l1_wavefronts_shared_ideal")),
        shared_load_degree=shared_ld / shared_ld_inst if shared_ld and shared_ld_inst else None,
        l1_hit_pct=v("l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"),
        l2_read_hit_pct=v("lts__t_sector_op_read_hit_rate.pct"),
        flops=flops,
        sol_pct={k: x for k, m in SOL_UNITS.items() if (x := _optional(row, m)) is not None},
        stalls=stalls,
        tensor_busy_pct=max(tensor, default=0.0),
    )
