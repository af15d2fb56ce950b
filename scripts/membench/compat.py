"""Reading files membench wrote before their meaning travelled with them, once, at load.

A result file carries, in its "membench" object, what every counter means
(unit, which way is better, kind), its cases as data and what each family
declares. upgrade() turns a file of an older schema into today's document
as it is loaded: the catalog a file written before it lacked (its counters'
meanings, its cases parsed from their names under today's axis names, its
families' declarations), what a later schema added (figures and peer axes,
ncu measures, headline ranks, the host_paced mark, the marks of schema 4),
each step one function. Nothing after the loader knows an old schema; the
tables here are frozen: they are what those files can hold.
"""

from __future__ import annotations

from membench.case import CaseName, InputError
from membench.compat_declarations import (  # noqa: F401 (read as compat.NAME)
    _DRAWN_BY_HAND,
    old_axes,
    OLD_BYTE_AXES,
    OLD_FIGURES,
    old_family,
    old_figures,
    OLD_NAMED_AXES,
    OLD_PEER_AXES,
    OLD_STUDY,
    OLD_TITLES,
)


# What the counters of files without a catalog meant: (unit, better, kind).
# The set is closed: it is what those files can hold.
OLD_COUNTERS: dict[str, tuple[str, str, str]] = {
    "real_time": ("us", "lower", "measured"),
    "cpu_time": ("us", "neither", "configuration"),
    "iterations": ("launches", "neither", "configuration"),
    "bytes": ("B", "neither", "configuration"),
    "bytes_per_second": ("B/s", "higher", "measured"),
    "pct_of_peak": ("%", "higher", "measured"),
    "latency_ns": ("ns", "lower", "measured"),
    "latency_cycles": ("cycles", "lower", "measured"),
    "updates": ("updates", "neither", "configuration"),
    "updates_per_second": ("updates/s", "higher", "measured"),
    "flops_per_byte": ("FLOP/B", "neither", "configuration"),
    "gflops_per_second": ("GFLOP/s", "higher", "measured"),
    "sum_of_devices_bytes_per_second": ("B/s", "higher", "measured"),
    "noise_pct": ("%", "lower", "health"),
    "noisy": ("flag", "lower", "health"),
    "throttled_batches": ("batches", "lower", "health"),
    "sm_clock_mhz": ("MHz", "neither", "health"),
    "other_processes": ("processes", "lower", "health"),
    "contended": ("flag", "lower", "health"),
    "clock_event_reasons": ("bitmask", "neither", "health"),
    "clock_event": ("flag", "lower", "health"),
    "migrated_bytes": ("B", "neither", "measured"),
    "migrated_htod_bytes": ("B", "neither", "measured"),
    "migrated_dtoh_bytes": ("B", "neither", "measured"),
    "gpu_fault_groups": ("groups", "neither", "measured"),
    "gpu_faults": ("faults", "neither", "measured"),
    "launches_per_iteration": ("launches", "neither", "configuration"),
}
# Every other counter of such a file is the model's or the case's configuration.
OLD_MODEL_PREFIX = "model_"
OLD_MODELS = {
    "sectors_per_request",
    "dram_efficiency",
    "dram_read_bytes",
    "dram_write_bytes",
    "l2_read_bytes",
    "conflict_ways",
    "wavefronts_per_request",
    "link_bytes",
    "pages_read",
}


def old_meaning(name: str) -> tuple[str, str, str]:
    """(unit, better, kind) of a counter in a file without a catalog."""
    if name in OLD_COUNTERS:
        return OLD_COUNTERS[name]
    if name.startswith("device") and name.endswith("_bytes_per_second") and name[6:-17].isdigit():
        return ("B/s", "higher", "measured")
    if name.startswith(OLD_MODEL_PREFIX) or name in OLD_MODELS:
        return ("B" if name.endswith("_bytes") else "", "neither", "model")
    return ("", "neither", "configuration")


# The cases the host paces (pageable staging, a small copy's round trip,
# page faults), for files written before the binary marked them
# (host_paced): by family, the variants that were, or all but those named.
OLD_HOST_PACED = {
    "transfer": "all",
    "managed": ("all but", "resident"),
    "node": ("all but", "all_to_all_ce", "all_to_all_sm"),
}


def old_host_paced(family: str, variant: str) -> bool:
    """Whether a case of a file without the host_paced counter was paced by the host."""
    rule = OLD_HOST_PACED.get(family)
    if rule is None:
        return False
    return rule == "all" or variant not in rule[1:]


# Axes renamed when case names became data, by family: files written before then
# (a baseline, a fleet's history) are read under today's names, so they still gate.
RENAMED_AXES = {"layout": {"n": "structs"}, "shared": {"n": "side"}, "stream": {"n": "elements"}}

# Axes added to a variant later, with the value its cases had before (appended
# last, as the family lists them): files written before then read as that case.
# Frozen: an axis added since is declared with its value before in the
# family's own file (AxisSpec::added_later), and the result file's catalog
# carries it, so readers take it from there.
ADDED_AXES = {
    **{("async", v): (("persistent", 1),) for v in ("sync", "memcpy_async", "pipeline", "bulk", "tma")},
    ("hierarchy", "bandwidth"): (("width", 16), ("persistent", 1), ("through_l1", 1)),
    **{
        ("transfer", v): (("passes", 1), ("remote_node", 0))
        for v in ("host_to_device_memcpy_sm", "device_to_host_memcpy_sm", "bidirectional_memcpy_sm")
    },
    **{
        ("transfer", v): (("remote_node", 0),)
        for v in (
            "host_to_device_memcpy_ce",
            "device_to_host_memcpy_ce",
            "bidirectional_memcpy_ce",
            "host_device_latency_sm",
        )
    },
    **{
        ("peer", v): (("passes", 1), ("peer_step", 1))
        for v in (
            "device_to_device_memcpy_read_sm",
            "device_to_device_memcpy_write_sm",
            "device_to_device_bidirectional_memcpy_sm",
        )
    },
    **{
        ("peer", v): (("peer_step", 1),)
        for v in (
            "device_to_device_memcpy_read_ce",
            "device_to_device_memcpy_write_ce",
            "device_to_device_bidirectional_memcpy_ce",
            "device_to_device_latency_sm",
        )
    },
}


Parts = tuple[tuple[str, int | str], ...]


def parse_old_name(name: str) -> tuple[str, str, Parts]:
    """A case name of a file written before its catalog carried the cases as data, read from its text (a
    ValueError, saying why, for text that is no case name)."""
    parsed = CaseName.parse(name)
    return parsed.family, parsed.variant, parsed.parts


def today_parts(family: str, variant: str, parts: Parts) -> Parts:
    """A case's parts under today's axis names, with the axes added before the catalog declared them (the frozen
    tables above); the same parts where neither applies."""
    renamed = RENAMED_AXES.get(family, {})
    parts = tuple((renamed.get(k, k), v) for k, v in parts)
    keys = {k for k, _ in parts}
    return parts + tuple(a for a in ADDED_AXES.get((family, variant), ()) if a[0] not in keys)


# A case's result and its model, in the order a case is read by, for files
# written before the catalog ranked its headlines. Frozen.
OLD_HEADLINES = (
    ("bytes_per_second", "model_bytes_per_second"),
    ("latency_ns", ""),
    ("updates_per_second", "model_updates_per_second"),
)


# The Nsight Compute counter each model counter was checked against, for files
# written before the catalog carried it: pass, metrics (summed), per (summed),
# scale, when judged. Frozen: what those files can hold.
_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
_SHARED = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
OLD_NCU: dict[str, dict] = {
    "sectors_per_request": {"pass": "counters", "metrics": [_LD[0]], "per": [_LD[1]]},
    "wavefronts_per_request": {"pass": "counters", "metrics": [_SHARED[0]], "per": [_SHARED[1]]},
    "conflict_ways": {"pass": "counters", "metrics": [_SHARED[0]], "per": [_SHARED[1]], "judged": "never"},
    "dram_read_bytes": {"pass": "dram", "metrics": ["dram__bytes_read.sum"], "judged": "large"},
    "dram_write_bytes": {"pass": "dram", "metrics": ["dram__bytes_write.sum"], "judged": "large"},
    "l2_read_bytes": {
        "pass": "counters",
        "metrics": ["lts__t_sectors_srcunit_tex_op_read.sum"],
        "scale": 32,
        "judged": "beyond_l1",
    },
    "model_l2_requests": {
        "pass": "counters",
        "metrics": ["lts__t_requests_srcunit_tex_op_atom.sum", "lts__t_requests_srcunit_tex_op_red.sum"],
    },
    "model_shared_wavefronts": {
        "pass": "counters",
        "metrics": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"],
    },
    "model_dram_read_bytes": {"pass": "dram", "metrics": ["dram__bytes_read.sum"]},
}


def upgrade_marks(doc: dict) -> None:
    """A file of schema 3 or older, as schema 4 says its marks: clock_event counted the board's power cap
    (sw_power_cap, 0x4) with the slowdowns; now clock_event is a thermal or hardware slowdown alone and
    power_capped the cap. Rewrites the loaded document's entries in place, once, at load."""
    membench = doc.get("membench")
    version = membench.get("schema_version", 1) if isinstance(membench, dict) else 1
    if isinstance(version, int) and not isinstance(version, bool) and version >= 4:
        return
    counters = membench.get("counters") if isinstance(membench, dict) else None
    if isinstance(counters, dict):  # the new mark, declared as schema 4's catalog declares it
        counters.setdefault("power_capped", {"unit": "flag", "better": "neither", "kind": "health"})
    for entry in doc["benchmarks"]:
        reasons = entry.get("clock_event_reasons")
        if not isinstance(reasons, (int, float)) or isinstance(reasons, bool):
            continue
        bits = int(reasons)
        entry["clock_event"] = 1 if bits & 0xE8 else 0  # hw_slowdown, sw/hw thermal, hw power brake
        entry["power_capped"] = 1 if bits & 0x4 else 0


# The tags of a case name (how it ran, not what it measured): they come first, before its axes.
OLD_TAG_KEYS = ("device", "l2")


def schema_of(doc: dict) -> int:
    """A file's schema version; 0 for a file written before the "membench" object."""
    membench = doc.get("membench")
    if not isinstance(membench, dict):
        return 0
    version = membench.get("schema_version", 1)
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def _run_names(doc: dict) -> list[str]:
    names = []
    for entry in doc["benchmarks"]:
        if entry.get("run_type", "iteration") == "iteration":
            name = entry.get("run_name", entry["name"])
            if not isinstance(name, str):
                raise InputError(f"{entry['name']}: 'run_name' is not a string")
            names.append(name)
    return list(dict.fromkeys(names))


def _catalog_entry(name: str, family: str, variant: str, parts: Parts) -> dict:
    today = today_parts(family, variant, parts)
    return {
        "name": name,
        "family": family,
        "variant": variant,
        "tags": {k: v for k, v in today if k in OLD_TAG_KEYS},
        "axes": [{"name": k, "value": v} for k, v in today if k not in OLD_TAG_KEYS],
    }


def _to_catalog(doc: dict) -> None:
    """Schema 1: a file written before the catalog gets one: its counters' meanings, its cases parsed from their
    names, its families' declarations; each piece where the file lacks it."""
    membench = doc.get("membench")
    if not isinstance(membench, dict):
        membench = doc["membench"] = {"schema_version": 1}
    if not isinstance(membench.get("counters"), dict):
        counters = {k: dict(zip(("unit", "better", "kind"), v)) for k, v in OLD_COUNTERS.items()}
        for entry in doc["benchmarks"]:
            for key, value in entry.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in counters:
                    counters[key] = dict(zip(("unit", "better", "kind"), old_meaning(key)))
        membench["counters"] = counters
    if not isinstance(membench.get("cases"), list):
        cases = []
        for name in _run_names(doc):
            try:
                family, variant, parts = parse_old_name(name)
            except ValueError as e:
                raise InputError(str(e)) from e
            cases.append(_catalog_entry(name, family, variant, parts))
        membench["cases"] = cases
    if not isinstance(membench.get("families"), dict):
        listed = [c for c in membench["cases"] if isinstance(c, dict) and isinstance(c.get("family"), str)]
        membench["families"] = {c["family"]: old_family(c["family"]) for c in listed}


def _cases_today(doc: dict) -> None:
    """A catalog's cases under today's axis names, with the axes added before the catalog declared them (a file of
    schema 1 may predate a rename)."""
    listed = doc["membench"].get("cases")
    if not isinstance(listed, list):
        return
    for k, c in enumerate(listed):
        if not isinstance(c, dict) or not isinstance(c.get("axes", []), list):
            continue
        tags = c.get("tags") or {}
        parts = tuple((t, v) for t, v in tags.items()) + tuple(
            (a["name"], a["value"]) for a in c.get("axes", []) if isinstance(a, dict) and "name" in a and "value" in a
        )
        if isinstance(c.get("family"), str) and isinstance(c.get("variant"), str):
            today = today_parts(c["family"], c["variant"], parts)
            if today != parts:
                kept = {a.get("name"): a for a in c.get("axes", []) if isinstance(a, dict)}
                entry = _catalog_entry(c.get("name", ""), c["family"], c["variant"], parts)
                entry["axes"] = [{**kept.get(a["name"], {}), **a} for a in entry["axes"]]
                listed[k] = {**c, **entry}


def _to_3(doc: dict, version: int) -> None:
    """Schema 3: the figures the families of older files drew by hand, and the axes that picked a peer."""
    families = doc["membench"].get("families")
    if not isinstance(families, dict):
        return
    for name, entry in families.items():
        axes = entry.get("axes", []) if isinstance(entry, dict) else None
        if isinstance(axes, list) and all(isinstance(a, dict) for a in axes):  # a malformed one is refused later
            entry["figures"] = entry.get("figures") or old_figures(name, version)
            entry["axes"] = old_axes(name, entry.get("axes", []), version)


def _ranks_and_measures(doc: dict) -> None:
    """The headline ranks and the ncu measures of a catalog written before it carried them."""
    counters = doc["membench"].get("counters")
    if not isinstance(counters, dict):
        return
    entries = [v for v in counters.values() if isinstance(v, dict)]
    if not any(isinstance(v.get("headline"), int) and not isinstance(v.get("headline"), bool) for v in entries):
        for rank, (counter, model) in enumerate(OLD_HEADLINES):
            entry = counters.setdefault(counter, dict(zip(("unit", "better", "kind"), old_meaning(counter))))
            if isinstance(entry, dict):
                entry.update(headline=rank + 1, model=model)
    if not any("ncu" in v for v in entries):
        for counter, measure in OLD_NCU.items():
            entry = counters.setdefault(counter, dict(zip(("unit", "better", "kind"), old_meaning(counter))))
            if isinstance(entry, dict):
                entry["ncu"] = measure


def _host_paced(doc: dict) -> None:
    """The host_paced mark on the runs of a file written before the binary wrote it."""
    listed = {c.get("name"): c for c in doc["membench"].get("cases", []) if isinstance(c, dict)}
    counters = doc["membench"].get("counters")
    if isinstance(counters, dict):
        counters.setdefault("host_paced", {"unit": "flag", "better": "neither", "kind": "configuration"})
    for entry in doc["benchmarks"]:
        if "host_paced" in entry or entry.get("run_type", "iteration") != "iteration":
            continue
        case = listed.get(entry.get("run_name", entry["name"]))
        if case is not None:
            entry["host_paced"] = 1 if old_host_paced(case.get("family", ""), case.get("variant", "")) else 0


def upgrade(doc: dict, today: int) -> dict:
    """A checked result file of any schema these scripts read, as schema `today` says it, in place and once:
    the file's own schema_version becomes `today`, the one it was written in "upgraded_from"."""
    version = schema_of(doc)
    if version >= today:
        return doc
    _to_catalog(doc)
    _cases_today(doc)
    if version < 3:
        _to_3(doc, version or 1)
    _ranks_and_measures(doc)
    _host_paced(doc)
    if version < 4:
        upgrade_marks(doc)
    doc["membench"].update(schema_version=today, upgraded_from=version)
    return doc
