"""Reading files membench wrote before their meaning travelled with them.

A result file carries, in its "membench" object, what every counter means
(unit, which way is better, kind). Files written before that object existed,
and names written before an axis was renamed or added, are read here and
nowhere else: the rest of the scripts ask membench.results, which asks this
module only for such files.
"""

from __future__ import annotations

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


# What the families declared downstream of them, for files written before the
# declarations travelled with the file: the titles, and the figures of the
# families whose figures are drawn from declarations alone. Frozen: it is what
# those files can hold.
OLD_TITLES = {
    "global": "Global memory: stride and size",
    "layout": "Layout: AoS vs SoA",
    "shared": "Shared memory: bank conflicts",
    "async": "Async copy: sync vs memcpy_async vs pipeline vs bulk vs tma",
    "stream": "Stream: the traffic mixes against the DRAM peak",
    "hierarchy": "Memory hierarchy: read bandwidth and latency by working set",
    "dsmem": "Distributed shared memory: a cluster's blocks reading each other",
    "transfer": "Host <-> device: copy engine and SM over the link",
    "peer": "GPU <-> GPU: copy engine and SM over the link",
    "node": "Every GPU at once: to and from the host, and all-to-all",
    "managed": "Unified memory: where the pages are when the GPU reads them",
    "l2persist": "L2 residency control: a hot buffer under an access policy window",
    "atomics": "Atomics: updates per second by the threads sharing an address",
}
_LINKS = lambda chased: [  # noqa: E731
    {
        "heading": "copies over the link",
        "x": "bytes",
        "x_log": True,
        "y": "bytes_per_second",
        "model": "model_bytes_per_second",
    },
    {"heading": f"one thread chases {chased}", "x": "working_set", "x_log": True, "y": "latency_ns"},
]
_DRAM_MODEL = lambda of, label: {  # noqa: E731
    "label": label,
    **of,
    "times": ["bytes"],
    "over": ["dram_read_bytes", "dram_write_bytes"],
}
# Drawn by hand in the scripts until schema version 3, declared by their families since: files from before carry
# no figures for them.
_DRAWN_BY_HAND: dict[str, list[dict]] = {
    "global": [
        {
            "heading": "strided reads: two launch geometries, two read paths",
            "x": "stride",
            "x_log": True,
            "y": "bytes_per_second",
            "y_log": True,
            "variants": ["strided", "strided_full_grid", "strided_readonly", "strided_texture"],
            "model_from": _DRAM_MODEL(
                {"variant": "memcpy", "axes": {}}, "memcpy's rate x useful / modelled DRAM bytes"
            ),
        },
        {
            "heading": "every other variant by n",
            "x": "n",
            "x_log": True,
            "y": "bytes_per_second",
            "variants": ["coalesced", "vectorized", "memcpy", "broadcast", "misaligned"],
            "lines": ["dram_peak_bytes_per_second"],
        },
    ],
    "layout": [
        {
            "heading": "each layout by the fields read",
            "x": "fields",
            "y": "bytes_per_second",
            "bars": True,
            "model_from": _DRAM_MODEL(
                {"variant": "aos", "axes": {"fields": 4}}, "the AoS all-fields rate x useful / modelled DRAM bytes"
            ),
        }
    ],
    "shared": [
        {
            "heading": "a 32 x 32 tile through shared memory",
            "x": "variant",
            "y": "bytes_per_second",
            "variants": ["row", "column", "swizzle"],
            "bars": True,
            "notes": ["conflict_ways"],
        },
        {
            "heading": "conflict_degree: the slowdown against stride 1",
            "x": "shared_stride",
            "y": "bytes_per_second",
            "y_log": True,
            "variants": ["conflict_degree"],
            "model": "conflict_ways",
            "slowdown_vs": {"variant": "conflict_degree", "axes": {"shared_stride": 1}},
        },
        {
            "heading": "column_tile: the pad by tile side",
            "x": "tile_side",
            "y": "bytes_per_second",
            "variants": ["column_tile"],
            "bars": True,
            "notes": ["conflict_ways", "blocks_per_sm"],
        },
    ],
}
OLD_FIGURES: dict[str, list[dict]] = {
    "dsmem": [
        {
            "heading": "every thread reads a buffer",
            "x": "cluster",
            "y": "bytes_per_second",
            "variants": ["read_local", "read_remote"],
            "lines": ["smem_peak_bytes_per_second"],
        },
        {
            "heading": "one thread chases a chain",
            "x": "cluster",
            "y": "latency_ns",
            "variants": ["chase_local", "chase_remote"],
        },
    ],
    "managed": [
        {
            "heading": "GB/s of the bytes the kernel reads",
            "x": "bytes",
            "x_log": True,
            "y": "bytes_per_second",
            "y_log": True,
            "model": "model_bytes_per_second",
        }
    ],
    "l2persist": [
        {"heading": "measured", "x": "set_aside", "y": "bytes_per_second"},
        {"heading": "model: what DRAM still serves", "x": "set_aside", "y": "model_dram_read_bytes"},
    ],
    "atomics": [
        {
            "heading": "updates by the threads that share an address",
            "x": "shared_by",
            "y": "updates_per_second",
            "y_log": True,
            "model": "model_updates_per_second",
        }
    ],
    "hierarchy": [
        {
            "heading": "read bandwidth: the whole grid re-reads the set",
            "x": "working_set",
            "x_log": True,
            "y": "bytes_per_second",
            "variants": ["bandwidth"],
            "model": "model_bytes_per_second",
            "vlines": ["l1_shared_bytes_per_sm", "l2_bytes"],
        },
        {
            "heading": "latency: a random pointer chase",
            "x": "working_set",
            "x_log": True,
            "y": "latency_ns",
            "y_log": True,
            "variants": ["latency"],
            "vlines": ["l1_shared_bytes_per_sm", "l2_bytes"],
        },
    ],
    "stream": [
        {
            "heading": "each kernel, the best block size",
            "x": "variant",
            "y": "bytes_per_second",
            "bars": True,
            "best_of": ["block"],
            "lines": ["dram_peak_bytes_per_second"],
        }
    ],
    "async": [
        {
            "heading": "by the tiles in flight (the best tile)",
            "x": "stages",
            "y": "bytes_per_second",
            "best_of": ["tile"],
            "variants": ["pipeline", "bulk", "tma"],
        },
        {
            "heading": "where overlap pays (the best tile and stages)",
            "x": "flops",
            "y": "bytes_per_second",
            "best_of": ["tile", "stages"],
        },
    ],
    "node": [
        {
            "heading": "every GPU at once, against the links' model",
            "x": "variant",
            "y": "bytes_per_second",
            "bars": True,
            "model": "model_bytes_per_second",
        }
    ],
    "transfer": _LINKS("host memory"),
    "peer": _LINKS("the peer's memory"),
    **_DRAWN_BY_HAND,
}


# The axes that picked the GPU a case reached, before a family's declarations said so (schema 3's
# "picks_peer"). Frozen.
OLD_PEER_AXES = {"peer": ("peer_step",)}


def _before_3(schema_version: object) -> bool:
    """Whether a file's schema predates the declarations of version 3 (a file without one is of version 1)."""
    return not isinstance(schema_version, int) or isinstance(schema_version, bool) or schema_version < 3


def old_axes(family: str, axes: list[dict], schema_version: object) -> list[dict]:
    """A family's declared axes, those that picked the peer marked as a file of schema 3 marks them (an axis the
    file does not list is added, as the old families' lists name only some)."""
    if not _before_3(schema_version):
        return axes
    peers = OLD_PEER_AXES.get(family, ())
    marked = [{**a, "picks_peer": True} if a.get("name") in peers else a for a in axes]
    listed = {a.get("name") for a in axes}
    return marked + [{"name": n, "picks_peer": True} for n in peers if n not in listed]


def old_figures(family: str, schema_version: object) -> list[dict]:
    """The figures of a family whose file declared none because the family had none to declare then: the three
    drawn by hand before schema version 3, as they declare them since."""
    return _DRAWN_BY_HAND.get(family, []) if _before_3(schema_version) else []


OLD_NAMED_AXES = {
    "atomics": [{"name": "shared_by", "unit": "name", "names": ["grid", "block", "warp", "thread"]}],
    "stream": [{"name": "type", "unit": "name", "names": ["float", "double"]}],
}
# The axes of those families that count bytes (drawn as sizes).
OLD_BYTE_AXES = {
    "dsmem": (),
    "managed": ("bytes",),
    "l2persist": ("hot_bytes",),
    "atomics": (),
    "hierarchy": ("working_set", "width", "chase_stride"),
    "node": ("bytes",),
    "transfer": ("bytes", "working_set", "chase_stride"),
    "peer": ("bytes", "working_set", "chase_stride"),
}


# The study's tables as the families declare them, for files without declarations.
_COALESCED, _WHY = "Coalesced vs strided, n = 16,777,216", ["sectors_per_request", "dram_efficiency"]
_SHARED, _ASYNC, _STAGES = "Shared memory, 4096 x 4096", "Async copy, n = 67,108,864", ["blocks_per_sm", "registers"]
OLD_STUDY: dict[str, list[tuple]] = {
    "global": [
        (1, _COALESCED, "coalesced", "global/coalesced/n:16777216", 925.31, _WHY),
        (
            1,
            _COALESCED,
            "stride 2 (the article's launch: n threads)",
            "global/strided_full_grid/n:16777216/stride:2",
            427.34,
            _WHY,
        ),
    ],
    "layout": [
        (1, _COALESCED, "AoS, four fields", "layout/aos/structs:16777216/fields:4", 922.31, _WHY),
        (1, _COALESCED, "SoA, four fields", "layout/soa/structs:16777216/fields:4", 912.82, _WHY),
    ],
    "shared": [
        (2, _SHARED, "row", "shared/row/side:4096", 879.49, ["conflict_ways"]),
        (2, _SHARED, "column, 32-way conflict", "shared/column/side:4096/pad:0", 740.07, ["conflict_ways"]),
        (2, _SHARED, "column, padded [32][33]", "shared/column/side:4096/pad:1", 826.01, ["conflict_ways"]),
    ],
    "async": [
        (3, _ASYNC, "sync", "async/sync/n:67108864/tile:1024/flops:0/persistent:1", 901.43, _STAGES),
        (
            3,
            _ASYNC,
            "memcpy_async, one stage",
            "async/memcpy_async/n:67108864/tile:1024/flops:0/persistent:1",
            898.00,
            _STAGES,
        ),
        (
            3,
            _ASYNC,
            "pipeline, 3 stages",
            "async/pipeline/n:67108864/tile:1024/stages:3/flops:0/persistent:1",
            856.55,
            _STAGES,
        ),
    ],
}
_STUDY_KEYS = ("table", "table_title", "label", "case", "article_gb_per_second", "counters")


def old_family(name: str) -> dict:
    """A family's declarations (title, axes, figures) as the files without them would have carried them, in the
    file's own form (membench.results reads them as it reads a file's)."""
    axes = [*OLD_NAMED_AXES.get(name, []), *({"name": a, "unit": "bytes"} for a in OLD_BYTE_AXES.get(name, ()))]
    rows = [dict(zip(_STUDY_KEYS, row)) for row in OLD_STUDY.get(name, [])]
    return {"title": OLD_TITLES.get(name, name), "axes": axes, "figures": OLD_FIGURES.get(name, []), "study_rows": rows}


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
