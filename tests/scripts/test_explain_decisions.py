"""membench-explain's decisions one by one, on rows and kernels made from a real ncu page with the counter in
question set: the parser's arithmetic, each anomaly's threshold and signature, the matched case, the twin's
efficiency, the clock a prediction is made at, and the notes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from membench import ceilings as mc
from membench import explain_model as em
from membench import results as mr
from membench.ncu_kernel import SECTIONS, kernel, sections_flags
from membench.ncu_profile import parse_csv

FIXTURES = Path(__file__).parent / "fixtures" / "explain"
RUN = (
    Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "h100" / "2026-12-06-explain" / "ceilings_run.json"
)
PER_CYCLE = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed"


def row(name: str = "stride2", **metrics) -> dict:
    (r,) = parse_csv((FIXTURES / f"{name}.csv").read_text())
    return {**r, **metrics}


@pytest.fixture(scope="module")
def ceilings() -> mc.Ceilings:
    if not RUN.exists():
        pytest.skip("no committed results beside these tests")
    return mc.from_results(mr.load(RUN), str(RUN))


# --- the parser ---


def test_each_pipes_operations_are_its_instructions_a_cycle_weighted_times_the_cycles():
    r = row(
        **{PER_CYCLE.format(op): float(n) for n, op in enumerate(["ffma", "fadd", "fmul", "dfma", "dadd", "dmul"], 1)},
        **{PER_CYCLE.format(op): 1.0 for op in ("hfma", "hadd", "hmul")},
    )
    k = kernel(r, 0)
    cycles = r["smsp__cycles_elapsed.avg.per_second"] * r["gpu__time_duration.sum"] * 1e-9
    assert k.flops["fp32"] == pytest.approx((2 * 1 + 2 + 3) * cycles)  # an FMA two operations, an add or a mul one
    assert k.flops["fp64"] == pytest.approx((2 * 4 + 5 + 6) * cycles)
    assert k.flops["fp16"] == pytest.approx((4 + 2 + 2) * cycles)  # a half2 FMA four, its add and mul two


def test_shared_wavefronts_are_the_loads_stores_and_atomics_and_the_ideal_never_exceeds_them():
    k = kernel(
        row(
            **{
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 10.0,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 20.0,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": 30.0,
                "memory_l1_wavefronts_shared_ideal": 100.0,
                "smsp__sass_inst_executed_op_shared_ld.sum": 5.0,
            }
        ),
        0,
    )
    assert k.shared_wavefronts == 60 and k.shared_ideal == 60 and k.shared_load_degree == 2
    assert k.level_bytes()["shared"] == 60 * 128 and k.level_bytes()["L1"] == k.l1_load + k.l1_store
    none = kernel(row(**{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 0.0}), 0)
    assert none.shared_load_degree is None


def test_the_used_share_of_a_sector_is_at_most_all_of_it_and_an_access_never_made_uses_all():
    full = kernel(row(**{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio": 40.0}), 0)
    assert full.load_used == 1.0
    unused = row(**{"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 0.0})
    unused["smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"] = 4.0
    assert kernel(unused, 0).store_used == 1.0


def test_stalls_tensor_pipes_and_a_name_are_read_as_ncu_names_them():
    r = row(
        **{
            "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": 7.0,
            "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_elapsed": 40.0,
            "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_elapsed": 10.0,
        },
        kernel="",
    )
    k = kernel(r, 3)
    assert k.stalls["long_scoreboard"] == 7.0 and k.tensor_busy_pct == 40.0 and k.name == "kernel 3"
    assert kernel(row(), 0).tensor_busy_pct == 0.0


@pytest.mark.parametrize(
    "metric, value",
    [("gpu__time_duration.sum", 0.0), ("sm__cycles_elapsed.avg.per_second", 0.0), ("dram__bytes_read.sum", -1.0)],
)
def test_a_launch_with_no_time_no_clock_or_a_negative_count_is_refused(metric, value):
    with pytest.raises(mr.InputError, match=metric.split(".")[0] if value < 0 else "above zero"):
        kernel(row(**{metric: value}), 0)


def test_the_flags_named_are_those_of_the_sections_missing_metrics_alone():
    assert sections_flags([SECTIONS["SourceCounters"][0]]) == "--section SourceCounters"
    both = sections_flags([SECTIONS["SpeedOfLight"][0], SECTIONS["SourceCounters"][1]])
    assert both == "--section SpeedOfLight --section SourceCounters"


# --- the anomalies and their signatures ---


def test_pow2_is_the_nearest_power_of_two_from_1_to_32():
    assert [em.pow2(x) for x in (0.2, 1, 1.4, 1.5, 3, 5.9, 40)] == [1, 1, 1, 2, 4, 8, 32]


def test_a_used_share_near_a_power_of_two_is_a_stride_and_off_it_an_indirect_access(ceilings):
    catalog = em.Catalog(ceilings.cases)
    k = kernel(row(), 0)
    regular = em.global_matches(k, 1 / (4 * 1.04), catalog)  # 4.16 floats a used one: within 5% of 4
    assert regular[0].case == "global/strided/stride:4" and regular[1].case == "layout/aos/fields:1"
    assert em.global_matches(k, 1 / (4 * 1.06), catalog)[0].case.startswith("indirect/")
    assert [m.case for m in em.global_matches(k, 0.5, catalog)] == ["global/strided/stride:2"]


def test_a_float_a_sector_is_stride_8_unless_dram_reads_64_bytes_for_each(ceilings):
    catalog = em.Catalog(ceilings.cases)
    k = kernel(row("stride32"), 0)
    (wide,) = em.global_matches(k, 0.125, catalog)
    assert wide.case == "global/strided/stride:32" and "64 bytes" in wide.note
    (narrow,) = em.global_matches(replace(k, dram_read=k.l2_read), 0.125, catalog)
    assert narrow.case == "global/strided/stride:8" and "64 bytes" not in narrow.note and narrow.note


def test_an_indirect_access_is_placed_by_its_hit_rates(ceilings):
    catalog = em.Catalog(ceilings.cases)
    tables = catalog.values("indirect", "lookup", "table")
    k = kernel(row("gather_random"), 0)
    in_l1 = em.global_matches(replace(k, l1_hit_pct=50.0), 0.22, catalog)[0]
    in_l2 = em.global_matches(replace(k, l1_hit_pct=49.0, l2_read_hit_pct=50.0), 0.22, catalog)[0]
    dram = em.global_matches(replace(k, l1_hit_pct=0.0, l2_read_hit_pct=49.0), 0.22, catalog)[0]
    assert in_l1.case == f"indirect/lookup/table:{tables[0]}" and "in L1" in in_l1.note
    assert in_l2.case == f"indirect/lookup/table:{tables[len(tables) // 2]}" and "in L2" in in_l2.note
    windows = catalog.values("indirect", "gather", "window")
    assert dram.case == f"indirect/gather/window:{windows[-1]}" and dram.twin == "indirect/gather/window:1"


def test_each_anomaly_needs_its_access_and_passes_its_threshold(ceilings):
    catalog = em.Catalog(ceilings.cases)
    k = kernel(row(), 0)
    assert [a.kind for a in em.anomalies(replace(k, load_used=0.79), catalog)] == ["uncoalesced-loads"]
    assert em.anomalies(replace(k, load_used=0.8), catalog) == []
    assert em.anomalies(replace(k, load_used=0.5, load_requests=0.0), catalog) == []
    conflicted = replace(k, load_used=1.0, shared_wavefronts=111.0, shared_ideal=100.0, shared_load_degree=None)
    (a,) = em.anomalies(conflicted, catalog)
    assert a.kind == "bank-conflicts" and a.matches[0].case == "shared/conflict_degree/shared_stride:1/width:4"
    assert em.anomalies(replace(conflicted, shared_wavefronts=110.0), catalog) == []
    assert em.anomalies(replace(conflicted, shared_ideal=0.0), catalog) == []


def test_a_store_fix_writes_whole_sectors_and_drops_the_reads_partial_ones_cost():
    k = kernel(row("transpose_naive"), 0)
    fixed = em.fix_stores(k)
    u = k.store_used
    assert (fixed.l1_store, fixed.l2_write, fixed.store_used) == (k.l1_store * u, k.l2_write * u, 1.0)
    assert fixed.dram_write == min(k.dram_write, k.l1_store * u)
    assert fixed.dram_read == min(k.dram_read, k.l1_load * k.load_used) < k.dram_read
    loads = em.fix_loads(kernel(row("stride32"), 0))
    assert loads.load_used == 1.0 and loads.l1_load == kernel(row("stride32"), 0).l1_load / 8
    assert em.fix_conflicts(kernel(row("transpose_conflicts"), 0)).shared_load_degree == 1.0


# --- the prediction ---


def test_the_run_clock_is_the_median_of_the_sm_side_ceilings_clocks(ceilings):
    by = {
        "DRAM": mc.Ceiling("DRAM", "B/s", 1.0, 9e9, "x"),
        "L2": mc.Ceiling("L2", "B/s", 1.0, 8e9, "x"),
        "L1": mc.Ceiling("L1", "B/s", 1.0, 1e9, "x"),
        "shared": mc.Ceiling("shared", "B/s", 1.0, 2e9, "x"),
        "fp32": mc.Ceiling("fp32", "op/s", 1.0, 3e9, "x"),
    }
    assert em.run_clock(mc.Ceilings("g", "s", by, [])) == 2e9
    assert em.run_clock(mc.Ceilings("g", "s", {"DRAM": by["DRAM"]}, [])) is None


def test_the_twins_efficiency_is_its_rate_over_the_ceiling_of_its_own_level_at_most_one():
    a = em.Anomaly("x", "", "", None, [em.Match("c", 1.0, "t", 2.0, "B/s", "DRAM")])
    assert em.twin_efficiency(a, "DRAM", 4.0) == 0.5
    assert em.twin_efficiency(a, "DRAM", 1.0) == 1.0
    assert em.twin_efficiency(a, "shared", 4.0) is None
    assert em.twin_efficiency(replace(a, matches=[replace(a.matches[0], unit="updates/s")]), "DRAM", 4.0) is None


def test_two_anomalies_fixed_together_keep_the_kernels_own_efficiency_and_beat_each_alone(ceilings):
    k = kernel(row("stride2"), 0)
    both = replace(k, store_used=0.25, l1_store=k.l1_store * 4, l2_write=k.l2_write * 4, dram_write=k.dram_write * 2)
    p = em.place(both, ceilings)
    assert [a.kind for a in p.anomalies] == ["uncoalesced-loads", "uncoalesced-stores"]
    assert p.all_fixed_ns <= min(a.predicted_ns for a in p.anomalies)
    fixed = em.fix_stores(em.fix_loads(both))
    at = {level: c.at(p.run_clock_hz) for level, c in ceilings.by_level.items()}
    assert p.all_fixed_ns == pytest.approx(max(em.times(fixed, at).values()) / p.efficiency)


def test_the_kernels_place_its_share_and_intensity(ceilings):
    p = em.place(kernel(row("fma_bound"), 0), ceilings)
    assert p.pct_of_attainable == pytest.approx(100 * p.attainable_ns / p.kernel.duration_ns)
    assert p.intensity == pytest.approx(p.flops / p.amounts["DRAM"]) and p.flops == sum(p.kernel.flops.values())
    assert em.place(replace(p.kernel, dram_read=0.0, dram_write=0.0), ceilings).intensity is None
    assert "shared" not in em.place(kernel(row(), 0), ceilings).times_ns  # a level it never used has no time


def test_a_level_with_no_ceiling_a_level_beaten_and_busy_tensor_pipes_are_noted(ceilings):
    k = kernel(row(), 0)
    no_l2 = mc.Ceilings(ceilings.gpu, "src", {lv: c for lv, c in ceilings.by_level.items() if lv != "L2"}, [])
    assert "no ceiling for L2 in src" in em.place(k, no_l2).notes
    slow_dram = {**ceilings.by_level, "DRAM": replace(ceilings.by_level["DRAM"], value=1e9)}
    assert any("faster than the ceiling of DRAM" in n for n in em.place(k, replace(ceilings, by_level=slow_dram)).notes)
    assert not any("tensor" in n for n in em.place(replace(k, tensor_busy_pct=1.0), ceilings).notes)
    assert any("tensor" in n for n in em.place(replace(k, tensor_busy_pct=1.5), ceilings).notes)


def test_the_latency_rule_has_its_thresholds(ceilings):
    k = kernel(row("contiguous"), 0)
    slow = replace(k, duration_ns=3 * k.duration_ns, sol_pct={u: v / 3 for u, v in k.sol_pct.items()})
    half = replace(slow, stalls={"long_scoreboard": 1.0, "wait": 1.0})
    assert [a.kind for a in em.place(half, ceilings).anomalies] == ["latency-bound"]  # half the stalls: enough
    assert em.place(replace(slow, stalls={"long_scoreboard": 1.0, "wait": 1.01}), ceilings).anomalies == []
    assert em.place(replace(slow, stalls={}), ceilings).anomalies == []
    (a,) = em.place(half, ceilings).anomalies
    m = a.matches[0]
    stages = max(em.Catalog(ceilings.cases).values("async", "pipeline", "stages"))
    assert m.case == "async/sync/flops:0" and m.twin == f"async/pipeline/flops:0/stages:{stages}"
    assert m.family_variant == "async/sync" and a.predicted_ns < em.place(half, ceilings).now_ns


def test_each_fix_is_said_with_the_bytes_it_moves(ceilings):
    naive = em.place(kernel(row("transpose_naive"), 0), ceilings).anomalies[0]
    k = naive.fixed
    before = kernel(row("transpose_naive"), 0)
    assert naive.fix == (
        f"L2 traffic {(before.l2_read + before.l2_write) / 1e6:.4g} -> {(k.l2_read + k.l2_write) / 1e6:.4g} MB"
    )
    assert "(4 of each sector's 32 bytes used)" in naive.said
    wide = em.place(kernel(row("stride32"), 0), ceilings).anomalies[0]
    s32 = kernel(row("stride32"), 0)
    assert wide.fix == f"DRAM traffic {s32.dram_read / 1e6:.4g} -> {wide.fixed.dram_read / 1e6:.4g} MB"
    tile = kernel(row("transpose_conflicts"), 0)
    conflict = em.place(tile, ceilings).anomalies[0]
    assert conflict.fix == f"shared wavefronts {tile.shared_wavefronts / 1e6:.4g} -> {tile.shared_ideal / 1e6:.4g} M"
    assert conflict.said.startswith(f"shared memory at {tile.shared_wavefronts / tile.shared_ideal:.3g}x the ideal")


def test_the_efficiency_is_at_most_one_and_without_ncus_units_the_bytes_share(ceilings):
    k = kernel(row(), 0)
    slow_dram = {**ceilings.by_level, "DRAM": replace(ceilings.by_level["DRAM"], value=1e9)}
    assert em.place(k, replace(ceilings, by_level=slow_dram)).efficiency == 1.0
    p = em.place(replace(k, sol_pct={}), ceilings)
    assert p.efficiency == pytest.approx(p.attainable_ns / k.duration_ns)


def test_a_level_is_noted_beaten_only_past_two_percent(ceilings):
    k = kernel(row(), 0)
    dram = ceilings.by_level["DRAM"]
    at = lambda factor: {
        **ceilings.by_level,
        "DRAM": replace(dram, value=k.level_bytes()["DRAM"] * 1e9 / (k.duration_ns * factor)),
    }  # noqa: E731
    noted = lambda factor: any("faster than" in n for n in em.place(k, replace(ceilings, by_level=at(factor))).notes)  # noqa: E731
    assert not noted(1.01) and noted(1.03)


def test_the_run_clock_is_the_median_of_four(ceilings):
    by = {
        lv: mc.Ceiling(lv, "B/s", 1.0, c, "x") for lv, c in (("L1", 1e9), ("shared", 2e9), ("fp32", 3e9), ("fp64", 4e9))
    }
    assert em.run_clock(mc.Ceilings("g", "s", by, [])) == 3e9


def test_the_fixed_point_of_the_figure_sits_at_its_fixed_intensity(ceilings):
    p = em.place(kernel(row("stride32"), 0), ceilings)
    assert p.fixed_intensity == pytest.approx(p.flops / p.fixed.level_bytes()["DRAM"])
    assert p.fixed_intensity > p.intensity
    assert em.place(kernel(row("fma_bound"), 0), ceilings).fixed_intensity is None  # nothing to fix


def test_the_latency_rule_wants_the_kernel_under_60_percent(ceilings):
    k = kernel(row("contiguous"), 0)
    waiting = {"long_scoreboard": 3.0, "wait": 1.0}
    at = lambda share: replace(
        k,
        sol_pct={"DRAM": 100 * share},
        stalls=waiting,
        duration_ns=max(em.times(k, {lv: c.at(k.sm_clock_hz) for lv, c in ceilings.by_level.items()}).values()) / share,
    )  # noqa: E731
    assert [a.kind for a in em.place(at(0.59), ceilings).anomalies] == ["latency-bound"]
    assert em.place(at(0.61), ceilings).anomalies == []
