"""Reading files membench wrote before their meaning travelled with them.

A result file carries, in its "membench" object, what every counter means
(unit, which way is better, kind). Files written before that object existed,
and names written before an axis was renamed or added, are read here and
nowhere else: the rest of the scripts ask membench.results, which asks this
module only for such files.
"""

from __future__ import annotations

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
    """A case name of a file written before its catalog carried the cases as data, read from its text:
    'global/strided/l2:cold/n:1024/stride:2/manual_time' -> ('global', 'strided', (('l2', 'cold'), ('n', 1024),
    ('stride', 2))). Numbers become ints; a named axis keeps its name. Every other reader takes a case's parts from
    the catalog. A ValueError, saying why, for text that is no case name."""
    parts = name.split("/")
    if parts and parts[-1] == "manual_time":
        parts.pop()
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise ValueError(f"'{name}' is not a membench case name (family/variant/...)")
    params: list[tuple[str, int | str]] = []
    for part in parts[2:]:
        key, colon, value = part.partition(":")
        if not key or not colon or not value:
            raise ValueError(f"'{name}': '{part}' is not key:value")
        digits = value[1:] if value.startswith("-") else value
        params.append((key, int(value) if digits.isdigit() else value))
    return parts[0], parts[1], tuple(params)


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
    for entry in doc["benchmarks"]:
        reasons = entry.get("clock_event_reasons")
        if not isinstance(reasons, (int, float)) or isinstance(reasons, bool):
            continue
        bits = int(reasons)
        entry["clock_event"] = 1 if bits & 0xE8 else 0  # hw_slowdown, sw/hw thermal, hw power brake
        entry["power_capped"] = 1 if bits & 0x4 else 0
