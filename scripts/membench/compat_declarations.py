"""What the families declared downstream of them, for files written before
the declarations travelled with the file (titles, figures, axes, the study's
tables): frozen, as those files can hold them. Read through membench.compat,
and only by the loader's readers of an older file."""

from __future__ import annotations

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
