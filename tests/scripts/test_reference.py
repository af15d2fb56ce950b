"""reference.py: the bands of one GPU model from its runs, for membench --check; the committed H200 reference
is what the script makes from the runs it names."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import entry

from membench import history_store, reference

ROOT = Path(__file__).resolve().parents[2]
READ = "stream/read/type:float/elements:134217728/block:256/manual_time"
CHASE = "hierarchy/latency/working_set:16384/chase_stride:128/manual_time"


@pytest.fixture
def exe() -> str:
    path = os.environ.get("MEMBENCH_EXE") or str(ROOT / "build" / "release" / "membench")
    if not Path(path).is_file():
        pytest.skip(f"no membench binary at {path} (ctest sets MEMBENCH_EXE)")
    return path


def a_run(uuid: str, read: float, chase: float, gpu: str = "NVIDIA H200", **read_counters) -> dict:
    return {
        "context": {
            "date": "2026-12-02T00:00:00+00:00",
            "host_name": "n1",
            "gpu_uuid": uuid,
            "gpu_name": gpu,
            "membench_version": "0.1.0",
        },
        "benchmarks": [entry(READ, bytes_per_second=read, **read_counters), entry(CHASE, latency_ns=chase)],
    }


def at_level(ref: dict, level: str) -> dict:
    """The reference's case for a level of the check: found by what it tests, never by its name."""
    return next(c for c in ref["cases"] if c["level"] == level)


def no_check_case() -> dict:
    doc = a_run("GPU-1", 4.4e12, 16.0)
    for case in doc["benchmarks"]:
        case["name"] = case["run_name"] = case["name"].replace("elements:134217728", "elements:1024")
        case["name"] = case["run_name"] = case["name"].replace("working_set:16384", "working_set:32768")
    return doc


def made(tmp_path, write_json, exe, docs, *flags) -> tuple[int, dict]:
    out = tmp_path / "ref.json"
    code = reference.main([*map(write_json, docs), "--membench", exe, "--out", str(out), "--partial", *flags])
    return code, json.loads(out.read_text()) if out.exists() else {}


def test_a_band_runs_from_the_lowest_less_the_margin_to_the_highest_plus_it(tmp_path, write_json, exe, capsys):
    docs = [a_run("GPU-1", 4.40e12, 16.0), a_run("GPU-1", 4.50e12, 16.4), a_run("GPU-2", 4.30e12, 17.0)]
    code, ref = made(tmp_path, write_json, exe, docs, "--margin", "4")
    assert code == 0
    assert ref["gpu_name"] == "NVIDIA H200" and ref["gpus"] == 2 and len(ref["runs"]) == 3
    read = at_level(ref, "DRAM read")
    chase = at_level(ref, "L1 latency")
    assert read["median"] == 4.40e12 and read["seen"] == [4.30e12, 4.50e12]
    assert read["low"] == pytest.approx(4.30e12 * 0.96) and read["high"] == pytest.approx(4.50e12 * 1.04)
    assert (read["better"], read["unit"], read["level"]) == ("higher", "B/s", "DRAM read")
    assert (chase["better"], chase["unit"], chase["level"]) == ("lower", "ns", "L1 latency")
    assert chase["high"] == pytest.approx(17.0 * 1.04)
    assert (read["runs"], read["gpus"]) == (3, 2)
    assert len(ref["cases"]) == 2  # only the check cases the runs hold
    assert ref["made_by"] == "scripts/reference.py --margin 4"
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "NVIDIA H200: 3 runs on 2 GPUs, margin 4%"
    # Each band in the unit of its median: a rate with its prefix, a time with a space before its unit.
    assert f"| DRAM read | {reference.band_name(read)} | 4.4 TB/s | 4.128 TB/s to 4.68 TB/s | - | 3 | 2 |" in out
    assert f"| L1 latency | {reference.band_name(chase)} | 16.4 ns | 15.36 ns to 17.68 ns | - | 3 | 2 |" in out
    # A band names its case by its parts, as the families declare theirs.
    assert (read["family"], read["variant"]) == ("stream", "read")
    assert read["axes"] == {"type": "float", "elements": 134217728, "block": 256}
    assert "case" not in read


def test_contended_or_clock_event_values_stay_out_of_the_band(tmp_path, write_json, exe):
    docs = [a_run("GPU-1", 4.4e12, 16.0), a_run("GPU-2", 2.0e12, 16.0, contended=1, other_processes=1)]
    code, ref = made(tmp_path, write_json, exe, docs)
    assert code == 0
    read = at_level(ref, "DRAM read")
    assert read["seen"] == [4.4e12, 4.4e12] and read["gpus"] == 1


def test_one_gpu_is_marked_in_the_table(tmp_path, write_json, exe, capsys):
    assert made(tmp_path, write_json, exe, [a_run("GPU-1", 4.4e12, 16.0)])[0] == 0
    assert "| 1 | 1 (one GPU) |" in capsys.readouterr().out


@pytest.mark.parametrize(
    "docs, expected",
    [
        ([a_run("GPU-1", 4.4e12, 16), a_run("GPU-2", 3e12, 20, gpu="NVIDIA H100")], "several GPU models"),
        ([{**a_run("GPU-1", 1, 1), "benchmarks": a_run("GPU-1", 1, 1)["benchmarks"][:0]}], "no cases"),
        ([no_check_case()], "no run holds"),
    ],
)
def test_bad_runs_are_one_line_and_status_two(tmp_path, write_json, exe, capsys, docs, expected):
    code, _ = made(tmp_path, write_json, exe, docs)
    err = capsys.readouterr().err
    assert code == 2 and expected in err and err.count("\n") == 1


@pytest.mark.parametrize("margin", ["-1", "100"])
def test_a_margin_outside_0_to_under_100_is_refused(tmp_path, write_json, exe, capsys, margin):
    code, ref = made(tmp_path, write_json, exe, [a_run("GPU-1", 4.4e12, 16.0)], "--margin", margin)
    assert code == 2 and ref == {} and "--margin must be at least 0 and under 100" in capsys.readouterr().err


def test_the_default_reference_lies_in_this_checkout():
    assert reference.ROOT == ROOT


def test_a_binary_that_cannot_list_the_check_is_status_two(tmp_path, write_json, capsys):
    assert reference.main([write_json(a_run("GPU-1", 4.4e12, 16)), "--membench", "/no/membench"]) == 2
    assert "cannot run it" in capsys.readouterr().err


def test_membench_reads_the_file_the_script_writes(tmp_path, write_json, exe):
    code, _ = made(tmp_path, write_json, exe, [a_run("GPU-1", 4.4e12, 16.0)])
    assert code == 0
    checked = subprocess.run([exe, f"--check={tmp_path / 'ref.json'}"], capture_output=True, text=True)
    # Read and accepted (a bad file is status 2 before any GPU is looked for); then 1 where no GPU is visible.
    assert checked.returncode != 2, checked.stderr


@pytest.mark.parametrize("model", ["nvidia-h200", "nvidia-h100-80gb-hbm3"])
def test_each_committed_reference_is_what_its_runs_make(tmp_path, exe, model):
    # Every run a reference names is in the store (a raw run it rests on cannot be removed), and makes it again.
    path = ROOT / "benchmarks" / "references" / f"{model}.json"
    if not path.exists():
        pytest.skip("no committed reference beside these tests (a copy of scripts/ and tests/ alone)")
    committed = json.loads(path.read_text())
    runs = [str(ROOT / r["file"]) for r in committed["runs"]]
    out = tmp_path / "again.json"
    margin = f"{committed['margin_pct']:g}"
    # The H200's was made before the check had its compute cases: its runs have none.
    partial = ["--partial"] if len(committed["cases"]) < len(reference.check_sweep(exe)) else []
    assert reference.main([*runs, "--membench", exe, "--margin", margin, "--out", str(out), *partial]) == 0
    again = json.loads(out.read_text())
    assert again["gpus"] == committed["gpus"]
    # Each case as the binary names it today; a committed name from before an axis was added names the same case.
    listing = reference.listing_catalog(reference.check_sweep(exe))
    for case in committed["cases"]:
        if "case" in case:  # a reference written before bands named their parts
            case["case"] = history_store.today(case["case"] + "/manual_time", listing).removesuffix("/manual_time")
    assert [reference.band_name(c) for c in again["cases"]] == [reference.band_name(c) for c in committed["cases"]]
    strip = [{k: v for k, v in c.items() if k not in ("case", "family", "variant", "axes")} for c in again["cases"]]
    kept = [{k: v for k, v in c.items() if k not in ("case", "family", "variant", "axes")} for c in committed["cases"]]
    assert strip == kept
    # The ceilings membench-explain places kernels under, and the cases it matches anomalies to.
    assert again.get("roofs") == committed.get("roofs")
    assert again.get("explain_cases") == committed.get("explain_cases")


def test_the_binary_comes_from_the_environment_then_the_release_build(tmp_path, write_json, exe, monkeypatch, capsys):
    run = write_json(a_run("GPU-1", 4.4e12, 16.0))
    monkeypatch.setenv("MEMBENCH_EXE", exe)
    assert reference.main([run, "--out", str(tmp_path / "r.json"), "--partial"]) == 0
    ref = json.loads((tmp_path / "r.json").read_text())
    assert ref["margin_pct"] == 5 and ref["cases"][0]["low"] == pytest.approx(ref["cases"][0]["seen"][0] * 0.95)
    monkeypatch.delenv("MEMBENCH_EXE")
    monkeypatch.setattr(reference, "ROOT", tmp_path)  # a checkout without a build
    assert reference.main([run, "--out", str(tmp_path / "r2.json"), "--partial"]) == 2
    assert f"--membench {tmp_path}/build/release/membench: cannot run it" in capsys.readouterr().err


def test_a_model_s_file_is_named_by_its_slug():
    assert reference.slug("NVIDIA H200") == "nvidia-h200"
    assert reference.slug(" NVIDIA H200 NVL (141 GB) ") == "nvidia-h200-nvl-141-gb"


def test_each_run_that_gave_a_value_is_listed_once_with_its_date_and_a_file_that_gave_none_is_not(
    tmp_path, write_json, exe
):
    later = a_run("GPU-2", 4.5e12, 16.5)
    later["context"]["date"] = "2026-12-03T00:00:00+00:00"
    code, ref = made(tmp_path, write_json, exe, [a_run("GPU-1", 4.4e12, 16.0), no_check_case(), later])
    assert code == 0
    assert [(r["gpu_uuid"], r["date"]) for r in ref["runs"]] == [
        ("GPU-1", "2026-12-02T00:00:00+00:00"),
        ("GPU-2", "2026-12-03T00:00:00+00:00"),
    ]


def test_a_check_case_whose_metric_has_no_direction_is_refused(tmp_path, write_json, exe, capsys):
    doc = a_run("GPU-1", 4.4e12, 16.0)
    doc["membench"] = {
        "schema_version": 1,
        "complete": True,
        "counters": {
            "bytes_per_second": {"unit": "B/s", "better": "neither", "kind": "measured"},
            "latency_ns": {"unit": "ns", "better": "lower", "kind": "measured"},
            "real_time": {"unit": "us", "better": "lower", "kind": "measured"},
        },
    }
    code, _ = made(tmp_path, write_json, exe, [doc])
    assert code == 2 and "the runs' catalog gives bytes_per_second no better direction" in capsys.readouterr().err


def test_a_run_lacking_check_cases_makes_no_reference_unless_partial_is_asked(tmp_path, write_json, exe, capsys):
    # A reference of 2 of the check's cases would report a GPU healthy on 2 of 2, the others never judged.
    out = tmp_path / "ref.json"
    run = write_json(a_run("GPU-1", 4.4e12, 16.0))
    assert reference.main([run, "--membench", exe, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reference.py: 15 of the check's 17 cases have no trusted value in these runs (first: ")
    assert err.endswith("or --partial\n") and not out.exists()
    assert reference.main([run, "--membench", exe, "--out", str(out), "--partial"]) == 0
    assert len(json.loads(out.read_text())["cases"]) == 2
    assert capsys.readouterr().err.count("left out (--partial)") == 15


def test_a_margin_of_zero_is_the_values_seen_and_each_run_names_its_build_and_driver(tmp_path, write_json, exe):
    run = a_run("GPU-1", 4.4e12, 16.0)
    run["context"].update(driver_version="580.159.04", membench_build="00ff00ff")
    code, ref = made(tmp_path, write_json, exe, [run, a_run("GPU-2", 4.2e12, 16.5)], "--margin", "0")
    assert code == 0
    read = at_level(ref, "DRAM read")
    assert (read["low"], read["high"]) == (4.2e12, 4.4e12)
    assert {(r["gpu_uuid"], r["driver"], r["membench_build"]) for r in ref["runs"]} == {
        ("GPU-1", "580.159.04", "00ff00ff"),
        ("GPU-2", "", ""),
    }


def test_without_out_the_reference_goes_beside_the_others_named_by_its_model(tmp_path, write_json, exe, monkeypatch):
    monkeypatch.setattr(reference, "ROOT", tmp_path)
    (tmp_path / "benchmarks" / "references").mkdir(parents=True)
    files = [write_json(a_run("GPU-1", 4.4e12, 16.0))]
    assert reference.main([*files, "--membench", exe, "--partial"]) == 0
    written = json.loads((tmp_path / "benchmarks" / "references" / "nvidia-h200.json").read_text())
    assert written["gpu_name"] == "NVIDIA H200"


def history_of(new_db, write_json, runs: list[tuple[str, str, float, float]]) -> str:
    """A history of runs (GPU, day, read rate, chase latency) of the H200 check cases, added as history.py adds."""
    from membench import history

    db = new_db()
    docs = []
    for uuid, day, read, chase in runs:
        doc = a_run(uuid, read, chase)
        doc["context"].update(date=f"2026-12-{day}T00:00:00+00:00", driver_version="580.159.04")
        docs.append(write_json(doc))
    assert history.main(["--db", db, "add", *docs]) == 0
    return db


FLEET = [("GPU-1", "01", 4.40e12, 16.0), ("GPU-2", "02", 4.30e12, 16.4), ("GPU-1", "03", 4.50e12, 17.0)]


def test_a_reference_from_a_fleet_s_history_is_the_one_its_files_make(new_db, tmp_path, write_json, exe, capsys):
    db = history_of(new_db, write_json, FLEET)
    out = tmp_path / "from_history.json"
    args = ["--history", db, "--model", "NVIDIA H200", "--membench", exe, "--out", str(out), "--partial"]
    assert reference.main(args) == 0
    ref = json.loads(out.read_text())
    _, from_files = made(tmp_path, write_json, exe, [a_run(u, r, c) for u, _, r, c in FLEET])
    assert ref["cases"] == from_files["cases"]
    assert (ref["gpu_name"], ref["gpus"], len(ref["runs"])) == ("NVIDIA H200", 2, 3)
    assert [r["date"][:10] for r in ref["runs"]] == ["2026-12-01", "2026-12-02", "2026-12-03"]
    assert ref["made_by"] == "scripts/reference.py --history --margin 5 --min-runs 3 --min-gpus 2"
    assert "NVIDIA H200: 3 runs on 2 GPUs, margin 5%" in capsys.readouterr().out


def test_a_history_reference_leaves_out_untrusted_values_and_other_models(new_db, tmp_path, write_json, exe):
    db = history_of(new_db, write_json, FLEET)
    from membench import history

    slow = a_run("GPU-3", 1.0e12, 30.0, contended=1, other_processes=1)  # untrusted: never in a band
    slow["context"]["date"] = "2026-12-04T00:00:00+00:00"
    other = a_run("GPU-9", 9e12, 9.0, gpu="NVIDIA B200")
    assert history.main(["--db", db, "add", write_json(slow), write_json(other)]) == 0
    out = tmp_path / "ref.json"
    assert (
        reference.main(["--history", db, "--model", "NVIDIA H200", "--membench", exe, "--out", str(out), "--partial"])
        == 0
    )
    read = at_level(json.loads(out.read_text()), "DRAM read")
    assert read["seen"] == [4.30e12, 4.50e12] and read["gpus"] == 2


@pytest.mark.parametrize(
    "flags, expected",
    [
        (["--min-runs", "4"], "3 runs of 2 GPUs of NVIDIA H200 in the history; a reference rests on at least 4 runs"),
        (["--min-gpus", "3"], "at least 3 runs of 3 GPUs"),
        (["--model", "NVIDIA A100"], "no trusted value of a check case on a NVIDIA A100"),
        (["--min-runs", "0"], "--min-runs and --min-gpus must be at least 1"),
    ],
)
def test_a_history_too_thin_for_a_band_is_refused(new_db, tmp_path, write_json, exe, capsys, flags, expected):
    db = history_of(new_db, write_json, FLEET)
    out = tmp_path / "ref.json"
    args = ["--history", db, "--model", "NVIDIA H200", "--membench", exe, "--out", str(out), "--partial"]
    if "--model" in flags:
        args[3] = flags[1]
        flags = []
    assert reference.main([*args, *flags]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1 and not out.exists()


def test_files_and_a_history_are_one_or_the_other(tmp_path, write_json, capsys):
    assert reference.main([write_json(a_run("GPU-1", 4.4e12, 16.0)), "--history", "h.sqlite", "--model", "x"]) == 2
    assert reference.main(["--history", str(tmp_path / "h.sqlite")]) == 2
    assert reference.main([]) == 2
    assert capsys.readouterr().err.count("give run files, or --history with --model") == 3


def test_the_check_judges_a_run_by_the_reference_a_history_made(new_db, tmp_path, write_json, exe):
    """membench --check=FILE --judge=RUN: healthy inside the fleet's bands, unhealthy 20% below them."""
    db = history_of(new_db, write_json, FLEET)
    out = tmp_path / "ref.json"
    assert (
        reference.main(["--history", db, "--model", "NVIDIA H200", "--membench", exe, "--out", str(out), "--partial"])
        == 0
    )

    def judged(read: float, chase: float) -> subprocess.CompletedProcess:
        run = write_json(a_run("GPU-5", read, chase))
        return subprocess.run([exe, f"--check={out}", f"--judge={run}"], capture_output=True, text=True)

    healthy = judged(4.4e12, 16.4)
    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    slow = judged(4.4e12 * 0.8, 16.4 / 0.8)
    assert slow.returncode == 1, slow.stdout + slow.stderr


def test_a_history_of_one_run_makes_a_reference_where_one_is_all_it_asks(new_db, tmp_path, write_json, exe):
    db = history_of(new_db, write_json, FLEET[:1])
    out = tmp_path / "ref.json"
    args = ["--history", db, "--model", "NVIDIA H200", "--membench", exe, "--out", str(out), "--partial"]
    assert reference.main([*args, "--min-runs", "1", "--min-gpus", "1"]) == 0
    assert json.loads(out.read_text())["gpus"] == 1
    assert reference.main([*args, "--min-runs", "1"]) == 2  # two GPUs by default


def test_a_case_s_percent_of_peak_makes_its_efficiency_band_from_files_and_from_a_history(
    new_db, tmp_path, write_json, exe, capsys
):
    """What a provisional check of another model judges by: the runs' pct_of_peak, made a band as the value's is."""
    runs = [("GPU-1", "01", 4.40e12, 93.0), ("GPU-2", "02", 4.30e12, 91.0), ("GPU-1", "03", 4.50e12, 95.0)]
    docs = []
    for uuid, day, read, pct in runs:
        doc = a_run(uuid, read, 16.0, pct_of_peak=pct)
        doc["context"].update(date=f"2026-12-{day}T00:00:00+00:00", driver_version="580.159.04")
        docs.append(doc)
    code, ref = made(tmp_path, write_json, exe, docs, "--margin", "4")
    assert code == 0
    read = at_level(ref, "DRAM read")
    chase = at_level(ref, "L1 latency")
    assert read["efficiency"] == {
        "median": 93.0,
        "low": pytest.approx(91.0 * 0.96),
        "high": pytest.approx(95.0 * 1.04),
        "seen": [91.0, 95.0],
    }
    assert "efficiency" not in chase  # a latency has no peak
    from membench import history

    assert any("| 93.0 (87.4 to 98.8) | 3 | 2 |" in line for line in capsys.readouterr().out.splitlines())
    db = new_db()
    assert history.main(["--db", db, "add", *map(write_json, docs)]) == 0
    out = tmp_path / "from_history.json"
    args = ["--history", db, "--model", "NVIDIA H200", "--membench", exe, "--out", str(out), "--partial"]
    assert reference.main([*args, "--margin", "4"]) == 0
    assert json.loads(out.read_text())["cases"] == ref["cases"]


def test_an_out_that_is_a_fifo_is_refused_not_waited_on(tmp_path, write_json, exe, capsys):
    fifo = tmp_path / "ref.fifo"
    os.mkfifo(fifo)
    run = write_json(a_run("GPU-1", 4.4e12, 16.0))
    assert reference.main([run, "--membench", exe, "--partial", "--out", str(fifo)]) == 2
    assert capsys.readouterr().err.endswith(f"reference.py: --out {fifo}: not a regular file\n")
