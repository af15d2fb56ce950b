"""membench-explain on real Nsight Compute pages: the examples (examples/examples.cu) as ncu --set full profiled
them on an H100, and the ceilings a membench run on that GPU measured in the same device call
(benchmarks/results/h100/2026-12-06-explain/). The parser, the placement on the roofs, each anomaly's signature
and matched case, the predicted worth of each fix, and every refusal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from membench import ceilings as mc
from membench import explain
from membench import explain_model as em
from membench import results as mr
from membench.ncu_kernel import kernel
from membench.ncu_profile import parse_csv

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "explain"
RUN = ROOT / "benchmarks" / "results" / "h100" / "2026-12-06-explain" / "ceilings_run.json"
H200_RUN = ROOT / "benchmarks" / "results" / "h200" / "2026-12-06-every-ceiling" / "default.json"
EXAMPLES = [
    "transpose_naive",
    "transpose_conflicts",
    "transpose_padded",
    "stride2",
    "stride32",
    "contiguous",
    "aos_one_field",
    "soa_one_field",
    "gather_random",
    "gather_sorted",
    "fma_bound",
]
FIXED = ["transpose_padded", "contiguous", "soa_one_field", "gather_sorted"]


def profiled(name: str):
    (row,) = parse_csv((FIXTURES / f"{name}.csv").read_text())
    return kernel(row, 0)


@pytest.fixture(scope="module")
def run_ceilings() -> mc.Ceilings:
    if not RUN.exists():
        pytest.skip("no committed results beside these tests")
    return mc.from_results(mr.load(RUN), str(RUN))


def placed(name: str, ceilings: mc.Ceilings) -> em.Placement:
    return em.place(profiled(name), ceilings)


# --- the report, read ---


def test_a_kernel_reads_its_time_clock_and_the_share_of_each_sector_it_uses():
    k = profiled("stride2")
    assert k.gpu == "NVIDIA H100 80GB HBM3"
    assert 1e9 < k.sm_clock_hz < 2.1e9 and k.duration_ns > 50_000  # ncu's base-clock lock, a 128 MiB read
    assert k.load_used == pytest.approx(0.5) and k.store_used == pytest.approx(1.0)
    assert profiled("stride32").load_used == pytest.approx(0.125)
    assert profiled("aos_one_field").load_used == pytest.approx(0.25)
    assert profiled("transpose_naive").store_used == pytest.approx(0.125)
    # Bytes at L1 and L2 are sectors of 32 bytes: 2^25 floats at stride 2 touch 2^25 / 4 sectors of loads ...
    assert k.l1_load == pytest.approx(2**25 / 4 * 32, rel=1e-6)
    assert k.l1_store == pytest.approx(2**25 * 4, rel=1e-6)


def test_the_shared_degree_and_the_fma_kernels_operations_are_what_the_kernels_do():
    assert profiled("transpose_conflicts").shared_load_degree == pytest.approx(32, rel=0.02)
    assert profiled("transpose_padded").shared_load_degree == pytest.approx(1, rel=0.05)
    # 2048 FMAs (two operations each) on each of 2^25 floats
    assert profiled("fma_bound").flops["fp32"] == pytest.approx(2 * 2048 * 2**25, rel=0.01)


def test_a_report_exported_in_base_units_reads_as_the_default_export():
    (a,) = parse_csv((FIXTURES / "stride2.csv").read_text())
    (b,) = parse_csv((FIXTURES / "stride2_base_units.csv").read_text())
    ka, kb = kernel(a, 0), kernel(b, 0)
    for field in ("duration_ns", "sm_clock_hz", "dram_read", "dram_write", "l2_read", "l1_load", "load_used"):
        assert getattr(kb, field) == pytest.approx(getattr(ka, field), rel=0.005), field


def test_the_sections_the_refusal_names_are_enough_and_ncus_default_set_is_not():
    (row,) = parse_csv((FIXTURES / "sections_contiguous.csv").read_text())
    assert kernel(row, 0).load_used == pytest.approx(1.0)
    (basic,) = parse_csv((FIXTURES / "basic_contiguous.csv").read_text())
    with pytest.raises(mr.InputError, match="--section SourceCounters"):
        kernel(basic, 0)


# --- where it stands ---


def test_a_ceiling_on_the_sms_side_moves_with_the_sm_clock_and_dram_and_l2_do_not():
    sm = mc.Ceiling("L1", "B/s", 30e12, 2.0e9, "x")
    assert sm.at(1.5e9) == pytest.approx(22.5e12)
    assert mc.Ceiling("DRAM", "B/s", 3e12, 2.0e9, "x").at(1.5e9) == 3e12
    assert mc.Ceiling("L2", "B/s", 8e12, 2.0e9, "x").at(1.5e9) == 8e12
    assert mc.Ceiling("fp32", "op/s", 60e12, None, "x").at(1.5e9) == 60e12  # no clock known: as measured


@pytest.mark.parametrize(
    "name, bound",
    [
        ("stride32", "DRAM"),
        ("stride2", "DRAM"),
        ("aos_one_field", "DRAM"),
        ("transpose_padded", "DRAM"),
        ("transpose_conflicts", "shared"),
        ("transpose_naive", "L2"),
        ("fma_bound", "fp32"),
    ],
)
def test_each_example_is_bound_by_the_roof_its_access_implies(run_ceilings, name, bound):
    p = placed(name, run_ceilings)
    assert p.bound == bound
    # The binding roof's least time is the level's bytes over its ceiling at the kernel's clock.
    c = run_ceilings.by_level[bound]
    assert p.attainable_ns == pytest.approx(1e9 * p.amounts[bound] / c.at(p.kernel.sm_clock_hz))


def test_the_fma_kernel_is_compute_bound_near_its_roof_with_no_anomaly(run_ceilings):
    p = placed("fma_bound", run_ceilings)
    assert p.bound == "fp32" and p.pct_of_attainable > 90 and not p.anomalies


@pytest.mark.parametrize("name", FIXED)
def test_a_fixed_twin_has_no_anomaly(run_ceilings, name):
    assert placed(name, run_ceilings).anomalies == []


def test_the_efficiency_is_ncus_busiest_unit_where_the_bytes_understate_it(run_ceilings):
    p = placed("transpose_naive", run_ceilings)
    assert p.pct_of_attainable < 40  # its bytes over the L2's ceiling explain a fifth of its time ...
    assert p.efficiency == pytest.approx(max(p.kernel.sol_pct.values()) / 100)  # ... ncu's busiest unit the rest


# --- what its accesses look like, matched by the catalog ---


@pytest.mark.parametrize(
    "name, kind, case, twin",
    [
        ("stride2", "uncoalesced-loads", "global/strided/stride:2", "global/strided/stride:1"),
        ("stride32", "uncoalesced-loads", "global/strided/stride:32", "global/strided/stride:1"),
        ("aos_one_field", "uncoalesced-loads", "global/strided/stride:4", "global/strided/stride:1"),
        ("gather_random", "uncoalesced-loads", "indirect/gather/window:67108864", "indirect/gather/window:1"),
        ("transpose_naive", "uncoalesced-stores", "global/strided/stride:8", "global/strided/stride:1"),
        (
            "transpose_conflicts",
            "bank-conflicts",
            "shared/conflict_degree/shared_stride:32/width:4",
            "shared/conflict_degree/shared_stride:1/width:4",
        ),
    ],
)
def test_each_anomaly_is_matched_to_the_case_with_its_signature_and_both_rates(run_ceilings, name, kind, case, twin):
    (a,) = placed(name, run_ceilings).anomalies
    assert a.kind == kind
    m = a.matches[0]
    assert (m.case, m.twin) == (case, twin)
    assert m.rate is not None and m.twin_rate is not None and m.twin_rate > m.rate and m.unit == "B/s"


def test_a_quarter_of_each_sector_is_also_one_field_of_a_four_float_struct(run_ceilings):
    (a,) = placed("aos_one_field", run_ceilings).anomalies
    assert [(m.case, m.twin) for m in a.matches][1] == ("layout/aos/fields:1", "layout/soa/fields:1")


def test_a_stride_of_32_is_told_from_8_by_the_64_bytes_dram_reads_for_each_sector(run_ceilings):
    (wide,) = placed("stride32", run_ceilings).anomalies
    assert "64 bytes" in wide.matches[0].note


def test_without_the_cases_in_the_results_the_match_still_names_them(run_ceilings):
    bare = mc.Ceilings(run_ceilings.gpu, "bare", run_ceilings.by_level, [])
    (a,) = em.place(profiled("stride2"), bare).anomalies
    assert a.matches[0].case == "global/strided/stride:2" and a.matches[0].rate is None


# --- what a fix is worth ---


def test_a_fixed_dram_bound_read_runs_at_its_twins_measured_rate(run_ceilings):
    # At the roof, stride 32's fix leaves the loads' used sectors and the stores: the bytes the twin moves at
    # the rate the twin reached on this GPU (the DRAM ceiling cancels).
    k = profiled("stride32")
    p = em.place(k, run_ceilings)
    (a,) = p.anomalies
    fixed_bytes = min(k.dram_read, k.l1_load * k.load_used) + k.dram_write
    assert a.predicted_ns == pytest.approx(1e9 * fixed_bytes / a.matches[0].twin_rate, rel=1e-9)
    assert p.now_ns == k.duration_ns  # DRAM-bound: its time does not move with the SM clock
    assert p.speedup(a.predicted_ns) == pytest.approx(k.duration_ns / a.predicted_ns)


def test_a_fix_on_the_sms_side_is_predicted_at_the_clock_the_ceilings_ran_at(run_ceilings):
    k = profiled("transpose_conflicts")
    p = em.place(k, run_ceilings)
    clock = em.run_clock(run_ceilings)
    assert 1.9e9 < clock < 2.1e9 and k.sm_clock_hz < clock
    assert p.now_ns == pytest.approx(k.duration_ns * k.sm_clock_hz / clock)  # shared-bound: faster at that clock
    # Fixed, it is DRAM-bound; its shared twin says nothing of DRAM, so it keeps its own efficiency.
    (a,) = p.anomalies
    dram = run_ceilings.by_level["DRAM"].value
    assert a.predicted_ns == pytest.approx(1e9 * a.fixed.level_bytes()["DRAM"] / dram / p.efficiency)


def test_without_the_twin_a_fix_keeps_the_kernels_own_efficiency(run_ceilings):
    bare = mc.Ceilings(run_ceilings.gpu, "bare", run_ceilings.by_level, [])
    k = profiled("stride2")
    p = em.place(k, bare)
    (a,) = p.anomalies
    fixed = a.fixed.level_bytes()["DRAM"]
    assert a.predicted_ns == pytest.approx(1e9 * fixed / run_ceilings.by_level["DRAM"].value / p.efficiency)
    # ... which, for a kernel of one load a thread, overstates the fix: the twin's measured rate says less.
    assert em.place(k, run_ceilings).anomalies[0].predicted_ns > a.predicted_ns


def test_a_fix_is_never_slower_than_now_and_the_whole_fix_is_the_one_fix_where_there_is_one(run_ceilings):
    for name in EXAMPLES:
        p = placed(name, run_ceilings)
        for a in p.anomalies:
            assert a.predicted_ns <= p.now_ns
        if len(p.anomalies) == 1:
            assert p.all_fixed_ns == pytest.approx(p.anomalies[0].predicted_ns)


def test_the_built_in_reference_gives_the_runs_verdicts(run_ceilings):
    reference = mc.reference_for("NVIDIA H100 80GB HBM3")
    assert reference is not None and reference.cases
    for name in EXAMPLES:
        assert em.place(profiled(name), reference).verdict() == placed(name, run_ceilings).verdict(), name


def test_a_reference_keeps_each_levels_best_and_the_clock_it_ran_at(run_ceilings):
    without = mr.load(Path(__file__).parent / "fixtures" / "schema4" / "global.json")  # a run with no roofs
    roofs = mc.reference_roofs({"a": mr.load(RUN), "b": without})
    dram = next(r for r in roofs if r["name"] == "DRAM")
    assert dram["value"] == run_ceilings.by_level["DRAM"].value and dram["runs"] == 1
    assert next(r for r in roofs if r["name"] == "L1")["sm_clock_mhz"] > 1000


def test_measure_selects_a_case_of_every_roof_and_every_matched_family(exe):
    listed = json.loads(subprocess.run([exe, "--list_cases=json"], capture_output=True, text=True).stdout)
    chosen = [c for c in listed if mc._wanted(c)]
    families = {(c["family"], c["variant"]) for c in chosen}
    for family, variant, _ in mc.MEASURED:
        assert any(f == family and (variant is None or v == variant) for f, v in families), (family, variant)
    assert len(chosen) < 60  # seconds, not a default run


# --- the command ---


@pytest.fixture
def exe() -> str:
    path = os.environ.get("MEMBENCH_EXE") or str(ROOT / "build" / "release" / "membench")
    if not Path(path).exists():
        pytest.skip(f"no membench binary at {path} (ctest sets MEMBENCH_EXE)")
    return path


def reports(*names: str) -> list[str]:
    return [str(FIXTURES / f"{n}.csv") for n in names]


def test_the_json_answer_carries_each_kernels_roof_fixes_and_verdict(capsys):
    assert explain.main([*reports("stride32", "fma_bound"), "--results", str(RUN), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "membench.explain/1" and doc["gpu"] == "NVIDIA H100 80GB HBM3"
    first, second = doc["kernels"]
    assert first["launch"] == "stride32.csv #0" and first["bound"] == "DRAM"
    assert first["anomalies"][0]["predicted_speedup"] > 3 and first["verdict"]["bound"] == "DRAM"
    assert second["verdict"] == {"bound": "fp32", "anomalies": []} and second["all_fixed_speedup"] is None


def test_text_and_markdown_say_the_fix_and_its_worth(capsys):
    assert explain.main([*reports("stride2"), "--results", str(RUN)]) == 0
    text = capsys.readouterr().out
    assert "global loads at 8 sectors per request where 4 would do" in text and "faster" in text
    assert explain.main([*reports("stride2"), "--results", str(RUN), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "| level | moved | ceiling here | least time |" in md and "DRAM *" in md


def test_the_roofline_figure_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "roofline.png"
    assert explain.main([*reports("fma_bound", "stride2"), "--results", str(RUN), "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def refused(capsys, argv: list[str]) -> str:
    try:
        code = explain.main(argv)
    except SystemExit as e:  # a usage error, from the parser
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_another_gpus_results_are_refused_unless_allowed(capsys):
    if not H200_RUN.exists():
        pytest.skip("no committed H200 run beside these tests")
    err = refused(capsys, [*reports("stride2"), "--results", str(H200_RUN)])
    assert "H100" in err and "H200" in err and "--allow-other-gpu" in err
    assert explain.main([*reports("stride2"), "--results", str(H200_RUN), "--allow-other-gpu"]) == 0


def test_a_report_without_the_sections_names_the_flags(capsys):
    err = refused(capsys, [*reports("basic_contiguous"), "--results", str(RUN)])
    assert "ncu --set full" in err and "--section MemoryWorkloadAnalysis_Tables" in err


@pytest.mark.parametrize(
    "content, says",
    [
        ("not,a,report\n1,2,3\n", "not an ncu raw CSV"),
        ("\x00\x01\x02", "not an ncu raw CSV"),
        ('"ID","Kernel Name","gpu__time_duration.sum"\n"","","ns"\n', "no kernel launch"),
    ],
)
def test_a_csv_it_cannot_read_is_refused(capsys, tmp_path, content, says):
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    assert says in refused(capsys, [str(bad), "--results", str(RUN)])


def test_a_negative_count_is_refused(capsys, tmp_path):
    text = (FIXTURES / "stride2.csv").read_text().splitlines()
    header = next(i for i, line in enumerate(text) if '"Kernel Name"' in line)
    names = text[header].split('","')
    column = next(i for i, n in enumerate(names) if n.strip('"') == "dram__bytes_read.sum")
    cells = text[header + 2].split('","')
    cells[column] = "-5"
    text[header + 2] = '","'.join(cells)
    bad = tmp_path / "negative.csv"
    bad.write_text("\n".join(text) + "\n")
    assert "dram__bytes_read.sum" in refused(capsys, [str(bad), "--results", str(RUN)])


def test_a_report_of_a_model_no_reference_names_asks_for_results(capsys, tmp_path):
    other = tmp_path / "other.csv"
    other.write_text((FIXTURES / "stride2.csv").read_text().replace("NVIDIA H100 80GB HBM3", "NVIDIA B200"))
    assert "--measure" in refused(capsys, [str(other)])


def test_an_ncu_rep_without_ncu_is_refused_with_the_csv_way(capsys, tmp_path):
    rep = tmp_path / "app.ncu-rep"
    rep.write_bytes(b"\x00")
    err = refused(capsys, [str(rep), "--ncu", "no-such-ncu", "--results", str(RUN)])
    assert "--csv --page raw" in err


@pytest.mark.skipif(shutil.which("false") is None, reason="no false(1)")
def test_a_membench_that_fails_under_measure_is_refused(capsys):
    assert "--membench" in refused(capsys, [*reports("stride2"), "--measure", "--membench", shutil.which("false")])


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--membench", "x"], "go with --measure"),
        (["--save-run", "x.json"], "go with --measure"),
        (["--plot", "x.svg"], ".png"),
        (["--results", "/no/such.json"], "/no/such.json"),
        (["--results", "x", "--measure"], "not allowed with"),
    ],
)
def test_bad_flags_are_one_line_and_status_2(capsys, argv, says):
    assert says in refused(capsys, [*reports("stride2"), *argv])


def test_the_report_page_places_your_kernels_under_the_runs_ceilings(tmp_path):
    from membench import report

    out = tmp_path / "page"
    assert report.main([str(RUN), "--out", str(out), "--explain", *reports("stride2", "fma_bound")]) == 0
    page = (out / "report.md").read_text()
    assert "## Your kernels on this GPU: NVIDIA H100 80GB HBM3" in page and "global loads at 8 sectors" in page
    assert 'id="kernels"' in (out / "report.html").read_text()
    if (out / "figures" / "your_kernels.png").exists():  # where matplotlib is installed
        assert (out / "figures" / "your_kernels.png").read_bytes()[:4] == b"\x89PNG"


def test_the_report_page_refuses_a_report_it_cannot_place(capsys, tmp_path):
    from membench import report

    assert report.main([str(RUN), "--out", str(tmp_path / "page"), "--explain", *reports("basic_contiguous")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--section" in err


def test_a_kernel_far_from_its_roofs_waiting_on_memory_is_latency_bound_as_asyncs_sync_copy(run_ceilings):
    from dataclasses import replace

    k = profiled("contiguous")
    # The same bytes in three times the time, ncu's units a third as busy, its warps mostly waiting on loads.
    slow = replace(
        k,
        duration_ns=3 * k.duration_ns,
        sol_pct={u: v / 3 for u, v in k.sol_pct.items()},
        stalls={"long_scoreboard": 30.0, "wait": 2.0, "not_selected": 1.0},
    )
    p = em.place(slow, run_ceilings)
    (a,) = p.anomalies
    assert a.kind == "latency-bound" and p.efficiency < em.LATENCY_BELOW
    m = a.matches[0]
    assert m.case.startswith("async/sync") and m.twin.startswith("async/pipeline") and m.twin_rate
    # Fixed: its DRAM bytes at the rate the pipelined copy reaches on this GPU, never under the roofs.
    assert a.predicted_ns == pytest.approx(
        max(1e9 * slow.level_bytes()["DRAM"] / m.twin_rate, max(p.times_ns.values()))
    )
    # Waiting on something else, or near a roof, it is not.
    assert em.place(replace(slow, stalls={"long_scoreboard": 1.0, "wait": 30.0}), run_ceilings).anomalies == []
    assert em.place(k, run_ceilings).anomalies == []


def test_the_accesses_are_said_in_sectors_a_request_hit_rates_and_the_bytes_dram_moved_for_those_used(run_ceilings):
    from membench import explain_show

    a = explain_show.accesses(placed("stride2", run_ceilings))
    assert (a["load_sectors_per_request"], a["load_ideal_sectors_per_request"]) == pytest.approx((8, 4))
    assert a["needed_bytes"] == pytest.approx(2 * 2**25 * 4)  # 2^25 floats read and 2^25 written, each once
    assert a["dram_bytes"] > 1.4 * a["needed_bytes"]  # half of each loaded sector unused
    line = explain_show.accesses_line(placed("transpose_conflicts", run_ceilings))
    assert "shared 6.996e+07 wavefronts (ideal 4.194e+06)" in line and "L1 hit" in line


@pytest.mark.parametrize(
    "metric, cell, says",
    [
        ("dram__bytes_write.sum", "nan", "has no value"),
        ("dram__bytes_read.sum", "inf", "has no value"),
        ("dram__bytes_read.sum", "1e308", "more than one launch counts"),
        ("sm__cycles_elapsed.avg.per_second", "1e300", "more than one launch counts"),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "1e-320", "not a number"),
    ],
)
def test_a_cell_no_launch_counts_is_refused_and_the_json_never_holds_infinity(capsys, tmp_path, metric, cell, says):
    import csv
    import io

    rows = list(csv.reader(io.StringIO((FIXTURES / "stride2.csv").read_text())))
    rows[2][rows[0].index(metric)] = cell
    text = io.StringIO()
    csv.writer(text, quoting=csv.QUOTE_ALL).writerows(rows)
    bad = tmp_path / "bad.csv"
    bad.write_text(text.getvalue())
    assert says in refused(capsys, [str(bad), "--results", str(RUN), "--format", "json"])


def test_a_ceiling_measured_beside_another_process_is_said_doubted_in_every_format(capsys, tmp_path):
    doc = json.loads(RUN.read_text())
    dram_case = next(r["case"] for r in doc["membench"]["roofs"] if r["name"] == "DRAM" and not r["gpu"])
    for entry in doc["benchmarks"]:
        if entry["name"].removesuffix("/manual_time") == dram_case:
            entry.update(contended=1, other_processes=1)
    loaded = tmp_path / "contended.json"
    loaded.write_text(json.dumps(doc))
    measured = mc.from_results(mr.load(loaded), str(loaded))
    assert measured.doubts == [f"the DRAM ceiling ({dram_case}): contended (1 other process on the GPU)"]
    assert mc.from_results(mr.load(RUN), str(RUN)).doubts == []  # the committed run was alone
    assert explain.main([*reports("stride2"), "--results", str(loaded)]) == 0
    assert "doubted: the DRAM ceiling" in capsys.readouterr().out
    assert explain.main([*reports("stride2"), "--results", str(loaded), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["ceilings"]["doubts"] == measured.doubts
