"""membench/compat.py: a file written before the catalog and the declarations travelled is read as today's binary
would write it: its counters mean what they mean today, its cases read under today's names, and what it is given
for its families is what the first binary to declare them wrote."""

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
