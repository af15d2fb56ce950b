"""What the scripts know about each family, in one place: the kernel each
variant launches (ncu_check.py pairs profiled kernels with cases by it) and
the title of its figure (plot.py). A family the table does not name is still
read; it only gets no ncu pairing and no figure.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Family:
    title: str
    kernels: dict[str, str] = field(default_factory=dict)  # variant -> kernel name (None: no kernel of ours)


FAMILIES: dict[str, Family] = {
    "global": Family("Global memory: stride and size", {
        "coalesced": "coalesced_scale",
        "strided": "strided_scale",
        "strided_full_grid": "strided_scale",
        "vectorized": "vectorized_scale",
        # memcpy launches none of ours
    }),
    "layout": Family("Layout: AoS vs SoA", {"aos": "aos_scale", "soa": "soa_scale"}),
    "shared": Family("Shared memory: bank conflicts", {
        "row": "shared_row",
        "column": "shared_column",
        "swizzle": "shared_swizzle",
        "conflict_degree": "conflict_degree",
    }),
    "async": Family("Async copy: sync vs memcpy_async vs pipeline vs bulk vs tma", {
        "sync": "async_sync",
        "memcpy_async": "async_memcpy_async",
        "pipeline": "async_pipeline",
        "bulk": "async_bulk",
        "tma": "async_tma",
    }),
    "stream": Family("Stream: the traffic mixes against the DRAM peak", {
        "read": "stream_reduce",
        "dot": "stream_reduce",
        "write": "stream_elementwise",
        "copy": "stream_elementwise",
        "scale": "stream_elementwise",
        "add": "stream_elementwise",
        "triad": "stream_elementwise",
    }),
    "hierarchy": Family("Memory hierarchy: read bandwidth and latency by working set", {
        "bandwidth": "hierarchy_read",
        "latency": "hierarchy_chase",
    }),
    "dsmem": Family("Distributed shared memory: a cluster's blocks reading each other", {
        "read_local": "dsmem_read",
        "read_remote": "dsmem_read",
        "chase_local": "dsmem_chase",
        "chase_remote": "dsmem_chase",
    }),
    # The copy-engine variants launch no kernel of ours.
    "transfer": Family("Host <-> device: copy engine and SM over the link", {
        "host_to_device_memcpy_sm": "copy_words",
        "device_to_host_memcpy_sm": "copy_words",
        "bidirectional_memcpy_sm": "copy_words",
    }),
    "peer": Family("GPU <-> GPU: copy engine and SM over the link", {
        "device_to_device_memcpy_read_sm": "copy_words",
        "device_to_device_memcpy_write_sm": "copy_words",
        "device_to_device_bidirectional_memcpy_sm": "copy_words",
    }),
}


def kernel_of(family: str, variant: str) -> str | None:
    """The kernel a case launches, or None when the table names none."""
    entry = FAMILIES.get(family)
    return entry.kernels.get(variant) if entry else None


def title_of(family: str) -> str:
    entry = FAMILIES.get(family)
    return entry.title if entry else family
