"""membench/compat.py: a file written before the catalog and the declarations travelled, or in an older schema, is
upgraded at load into one today's schema describes: its counters mean what they mean today, its cases read under
today's names, and what it is given for its families is what the first binary to declare them wrote. Each step
of the upgrade is tested on its own; the consumers read a file today's binary wrote."""

from __future__ import annotations

import json
from pathlib import Path

from membench import compat
from membench import results as mr
import pytest

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks/results"


def test_an_old_file_s_counters_mean_what_today_s_binary_says_they_mean():
    # Files written before the catalog (read through compat) beside a default run of today's binary, which
    # carries it: every counter the old files hold means the same in both, where today's run reports it.
    new = json.loads((RESULTS / "h200/2026-12-03-chase-copies/default_after1.json").read_text())
    catalog = new["membench"]["counters"]
    checked = set()
    for old_path in ("h200/2026-11-30-first-harness/default.json", "h200x2/2026-11-30-links/default.json"):
        old = json.loads((RESULTS / old_path).read_text())
        assert "membench" not in old
        held = {k for b in old["benchmarks"] for k, v in b.items() if isinstance(v, (int, float)) and k in catalog}
        for counter in sorted(held):
            today, then = mr.meaning(new, counter), mr.meaning(old, counter)
            # Which way is better and what kind of number it is decide the gates; the unit is named for the
            # counters the compatibility table lists (the rest of an old file's are shown without one).
            assert (then.better, then.kind) == (today.better, today.kind), counter
            assert then.unit in (today.unit, "") and (then.unit or counter not in compat.OLD_COUNTERS), counter
        checked |= held
    assert len(checked) >= 20 and {"noisy", "noise_pct", "throttled_batches", "bytes"} <= checked


@pytest.mark.parametrize(
    "old",
    [
        "h200/2026-11-30-first-harness/default.json",
        "h200x2/2026-11-30-links/default.json",
        "h200/2026-12-01-where-it-really-runs/families/default.json",
    ],
)
def test_every_case_of_an_old_default_run_reads_under_a_name_today_s_run_has(old):
    today = set(mr.cases(json.loads((RESULTS / "h200/2026-12-03-chase-copies/default_after1.json").read_text())))
    doc = json.loads((RESULTS / old).read_text())
    read = mr.cases(doc)
    written = {b["name"] for b in doc["benchmarks"]}
    assert set(read) <= today, sorted(set(read) - today)[:5]
    assert len(set(read) - written) >= 10  # names the old file wrote otherwise: renamed or added axes
    assert len({(c.family, c.variant) for c in read.values()} & set(compat.ADDED_AXES)) >= 4


def test_the_compatibility_table_means_what_today_s_catalog_says_of_every_counter_both_hold():
    catalog = json.loads((RESULTS / "h200/2026-12-03-chase-copies/default_after1.json").read_text())["membench"]
    counters = catalog["counters"]
    # Not in a one-GPU default run of today: the sum over several GPUs, and a counter no binary writes now.
    elsewhere = {"sum_of_devices_bytes_per_second", "launches_per_iteration"}
    assert {k for k in compat.OLD_COUNTERS if k not in counters} == elsewhere
    for counter, then in compat.OLD_COUNTERS.items():
        if counter in counters:
            today = counters[counter]
            assert then == (today["unit"], today["better"], today["kind"]), counter
    assert all(counters[m]["kind"] == "model" for m in compat.OLD_MODELS)


def test_the_old_families_declare_what_the_first_binary_to_declare_them_did():
    # The first committed runs that carry declarations, beside what an older file is given: each family's title
    # from the first of them, its figures from the first that declares any (some were drawn by hand at first).
    declaring = []
    for path in RESULTS.glob("**/*.json"):
        doc = json.loads(path.read_text())
        families = doc.get("membench", {}).get("families") if isinstance(doc, dict) else None
        if isinstance(families, dict):
            declaring.append((doc["context"]["date"], str(path), families))
    declaring.sort()
    assert {name: f["title"] for name, f in declaring[0][2].items()} == compat.OLD_TITLES
    defaults = {"heading": "", "x_log": False, "y_log": False, "model": "", "variants": [], "lines": [], "vlines": []}
    defaults |= {"best_of": [], "bars": False, "notes": []}
    docs = {str(p): json.loads(p.read_text()) for p in RESULTS.glob("**/*.json")}
    versions = {  # result files only (a record may keep a case list beside them)
        p: d.get("membench", {}).get("schema_version", 1) for p, d in docs.items() if isinstance(d, dict)
    }
    for name, figures in compat.OLD_FIGURES.items():
        found = next(((path, f[name]["figures"]) for _, path, f in declaring if f.get(name, {}).get("figures")), None)
        if found is None:
            # Drawn by hand before schema 3: until a run of a binary that declares them is committed, none is, and
            # no committed run is of schema 3.
            assert name in compat._DRAWN_BY_HAND and max(versions.values()) < 3, name
            continue
        assert [defaults | f for f in figures] == [defaults | f for f in found[1]], (name, found[0])
    # Those three are given to a file of schema 1 or 2 whose family declared none, and to no later file.
    for name, figures in compat._DRAWN_BY_HAND.items():
        assert compat.old_figures(name, 2) == figures and compat.old_figures(name, 3) == []


def declaring(key: str) -> list[tuple[str, str, dict]]:
    """The committed runs whose catalog carries `key` ("families" or "counters"), oldest first."""
    found = []
    for path in RESULTS.glob("**/*.json"):
        doc = json.loads(path.read_text())
        held = doc.get("membench", {}).get(key) if isinstance(doc, dict) else None
        if isinstance(held, dict):
            found.append((doc["context"]["date"], str(path), held))
    return sorted(found)


def test_the_old_ncu_measures_and_axes_are_what_the_first_binary_to_declare_them_did():
    from membench import declarations

    with_ncu = [d for d in declaring("counters") if any(isinstance(v, dict) and "ncu" in v for v in d[2].values())]
    _, path, counters = with_ncu[0]
    for counter, old in compat.OLD_NCU.items():
        assert declarations._measure(counter, old) == declarations._measure(counter, counters[counter]["ncu"]), (
            counter,
            path,
        )
    # An older file's axes are among those the first declaring binary named (later ones added axes), as named.
    _, path, families = declaring("families")[0]
    for family, axes in compat.OLD_NAMED_AXES.items():
        named = [{k: a[k] for k in ("name", "unit", "names")} for a in families[family]["axes"] if a["unit"] == "name"]
        assert axes and all(a in named for a in axes), (family, path)
    for family, axes in compat.OLD_BYTE_AXES.items():
        assert set(axes) <= {a["name"] for a in families[family]["axes"] if a.get("unit") == "bytes"}, family


def test_the_old_host_paced_cases_are_the_link_s_and_the_faults_not_a_resident_read_or_an_all_to_all():
    assert compat.old_host_paced("transfer", "host_to_device_memcpy_ce")
    assert compat.old_host_paced("managed", "fault") and not compat.old_host_paced("managed", "resident")
    assert compat.old_host_paced("node", "all_to_host_memcpy_ce")
    assert not compat.old_host_paced("node", "all_to_all_ce") and not compat.old_host_paced("node", "all_to_all_sm")
    assert not compat.old_host_paced("stream", "read")


def test_an_old_file_s_sum_over_devices_is_a_rate_and_an_old_family_declares_its_axes():
    assert compat.old_meaning("sum_of_devices_bytes_per_second") == ("B/s", "higher", "measured")
    assert compat.old_meaning("device3_bytes_per_second") == ("B/s", "higher", "measured")
    declared = compat.old_family("hierarchy")
    assert {a["name"] for a in declared["axes"]} >= {"working_set"}
    assert set(declared) == {"title", "axes", "figures", "study_rows"}


# --- the upgrade at load: each step, once, into a file today's schema describes ---

TODAY = RESULTS / "h100/2026-12-06-explain/ceilings_run.json"  # written by today's binary on an H100


@pytest.mark.parametrize(
    "old_path", ["h200/2026-11-30-first-harness/default.json", "h200x2/2026-11-30-links/default.json"]
)
def test_a_file_before_the_catalog_is_upgraded_at_load_into_one_the_schema_describes(old_path):
    from membench import schema

    loaded = mr.load(RESULTS / old_path)
    membench = loaded["membench"]
    assert membench["schema_version"] == mr.SCHEMA_VERSION and membench["upgraded_from"] == 0
    assert list(schema.validator().iter_errors(loaded)) == []
    # Its catalog names every case it ran, as data, and every counter it holds; its families declare.
    ran = {b.get("run_name", b["name"]) for b in loaded["benchmarks"] if b.get("run_type", "iteration") == "iteration"}
    assert {c["name"] for c in membench["cases"]} == ran
    held = {k for b in loaded["benchmarks"] for k, v in b.items() if isinstance(v, (int, float))}
    assert held <= set(membench["counters"]) and set(membench["families"]) == {c["family"] for c in membench["cases"]}
    # Every run carries the host_paced mark, as today's binary writes it.
    assert all("host_paced" in b for b in loaded["benchmarks"] if b.get("run_type", "iteration") == "iteration")


def test_the_upgrade_is_once_and_a_file_of_today_is_left_as_it_is():
    today = json.loads(TODAY.read_text())
    assert compat.upgrade(json.loads(TODAY.read_text()), mr.SCHEMA_VERSION) == today
    old = json.loads((RESULTS / "h200/2026-11-30-first-harness/default.json").read_text())
    once = compat.upgrade(old, mr.SCHEMA_VERSION)
    assert compat.upgrade(json.loads(json.dumps(once)), mr.SCHEMA_VERSION) == once
    # A document made in memory is upgraded into a copy; the caller's stays as it was.
    made = json.loads((RESULTS / "h200/2026-11-30-first-harness/default.json").read_text())
    assert "membench" in mr.current(made) and "membench" not in made


def test_schema_2_gets_the_figures_drawn_by_hand_and_the_peer_axes_schema_3_declares():
    doc = {
        "benchmarks": [{"name": "peer/device_to_device_memcpy_read_ce/bytes:64/manual_time", "real_time": 1.0}],
        "membench": {
            "schema_version": 2,
            "counters": {},
            "cases": [],
            "families": {"peer": {"title": "peer", "axes": [], "figures": []}, "global": {"axes": [], "figures": []}},
        },
    }
    compat.upgrade(doc, mr.SCHEMA_VERSION)
    families = doc["membench"]["families"]
    assert {"name": "peer_step", "picks_peer": True} in families["peer"]["axes"]
    assert families["global"]["figures"] == compat.old_figures("global", 2) != []
    # ... where a file of schema 3 is left with the figures and axes it declares.
    three = {**doc, "membench": {**doc["membench"], "schema_version": 3, "families": {"global": {"figures": []}}}}
    compat.upgrade(three, mr.SCHEMA_VERSION)
    assert three["membench"]["families"]["global"]["figures"] == []


def test_schema_3_marks_are_schema_4_s_and_a_catalog_without_ranks_or_measures_gets_the_frozen_ones():
    doc = {
        "benchmarks": [
            {"name": "a/b/manual_time", "real_time": 1.0, "clock_event": 1, "clock_event_reasons": 0x4},
            {"name": "a/c/manual_time", "real_time": 1.0, "clock_event": 1, "clock_event_reasons": 0x40},
        ],
        "membench": {"schema_version": 3, "counters": {"bytes_per_second": {"unit": "B/s"}}},
    }
    compat.upgrade(doc, mr.SCHEMA_VERSION)
    capped, hot = doc["benchmarks"]
    assert (capped["clock_event"], capped["power_capped"]) == (0, 1)  # the board's cap: its own mark
    assert (hot["clock_event"], hot["power_capped"]) == (1, 0)  # a thermal slowdown stays a clock event
    counters = doc["membench"]["counters"]
    # The new mark is declared as schema 4 declares it, not left undeclared.
    assert counters["power_capped"] == {"unit": "flag", "better": "neither", "kind": "health"}
    assert counters["bytes_per_second"]["headline"] == 1 and counters["latency_ns"]["headline"] == 2
    assert counters["sectors_per_request"]["ncu"] == compat.OLD_NCU["sectors_per_request"]


def test_no_reader_after_the_loader_knows_an_old_schema():
    # Only the loader calls the upgrade; results keeps today's names for names given outside a file (a history's
    # rows, a reference's, a flag's), and reference.py the units of a history's rows.
    scripts = Path(__file__).resolve().parents[2] / "scripts" / "membench"
    knowing = sorted(
        p.stem
        for p in scripts.glob("*.py")
        if p.stem not in ("compat", "compat_declarations")
        and ("import compat" in p.read_text() or "from membench.compat" in p.read_text())
    )
    assert knowing == ["loading", "reference", "results"]


def test_the_consumers_read_a_file_today_s_binary_wrote(capsys, tmp_path):
    from membench import compare, export, fleet, report

    assert compare.main([str(TODAY), str(TODAY)]) == 0
    out = capsys.readouterr().out
    assert "global/strided/n:16777216/stride:2" in out and "REGRESSION" not in out
    assert fleet.main([str(TODAY)]) == 0
    assert export.main([str(TODAY), "--format", "prometheus"]) == 0
    assert "membench_" in capsys.readouterr().out
    assert report.main([str(TODAY), "--out", str(tmp_path / "page")]) == 0
    assert "strided/n:16777216/stride:2" in (tmp_path / "page" / "report.md").read_text()


# --- the scripts' old fixtures: files an H200 wrote before the catalog, beside today's of the same cases ---

FIXTURES = Path(__file__).parent / "fixtures"
SAME_CASES = {  # an old fixture, and the file today's binary wrote of its cases (fixtures/schema4/record.sh)
    "h200_global_2p28.json": "global.json",
    "h200_global_layout.json": "global_layout.json",
    "h200_async.json": "async.json",  # today's also runs tma
    "h200_shared.json": "shared.json",
    "h200_hierarchy.json": "hierarchy.json",
    "h200_families.json": "families.json",
    "h200_ncu_run.json": "ncu/profile.json",
}


@pytest.mark.parametrize("old_name", sorted(SAME_CASES))
def test_an_old_fixture_reads_as_the_cases_today_s_binary_runs(old_name):
    from membench import schema

    old, today = mr.load(FIXTURES / "pre_catalog" / old_name), mr.load(FIXTURES / "schema4" / SAME_CASES[old_name])
    assert old["membench"]["upgraded_from"] == 0 and list(schema.validator().iter_errors(old)) == []
    # Read beside today's file, every case the old one ran is a case today's ran, by family, variant and axes
    # (an axis added since takes the value the old cases had); and what the old one says of each counter it
    # holds is what today's says.
    ran, runs = mr.cases(old, today), mr.cases(today, old)
    assert set(ran) <= set(runs)
    if old_name != "h200_async.json":
        assert set(ran) == set(runs)
    for name, case in ran.items():
        assert (case.family, case.variant, case.params) == (runs[name].family, runs[name].variant, runs[name].params)
    counters = today["membench"]["counters"]
    held = {k for b in old["benchmarks"] for k, v in b.items() if isinstance(v, (int, float)) and k in counters}
    for counter in held:  # the unit is named for the counters the compatibility table lists
        then, now = mr.meaning(old, counter), mr.meaning(today, counter)
        assert (then.better, then.kind) == (now.better, now.kind) and then.unit in (now.unit, ""), counter


def test_the_tests_read_old_fixtures_only_here_and_today_s_are_today_s():
    # The recorded files the scripts' tests read are the schema the scripts read today (none upgraded at load);
    # the pre-catalog ones are read by this file alone. A schema bump records new ones (fixtures/README.md).
    recorded = sorted((FIXTURES / f"schema{mr.SCHEMA_VERSION}").rglob("*.json"))
    assert len(recorded) >= 10
    for path in recorded:
        doc = json.loads(path.read_text())
        if isinstance(doc, dict):  # a case list is a list
            assert doc["membench"]["schema_version"] == mr.SCHEMA_VERSION, path
    readers = sorted(p.name for p in Path(__file__).parent.glob("*.py") if "pre_catalog" in p.read_text())
    assert readers == ["test_compat.py"]
