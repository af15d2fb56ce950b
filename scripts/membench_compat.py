"""Reading files membench wrote before their meaning travelled with them.

A result file carries, in its "membench" object, what every counter means
(unit, which way is better, kind). Files written before that object existed,
and names written before an axis was renamed or added, are read here and
nowhere else: the rest of the scripts ask membench_results, which asks this
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
OLD_MODELS = {"sectors_per_request", "dram_efficiency", "dram_read_bytes", "dram_write_bytes", "l2_read_bytes",
              "conflict_ways", "wavefronts_per_request", "link_bytes", "pages_read"}


def old_meaning(name: str) -> tuple[str, str, str]:
    """(unit, better, kind) of a counter in a file without a catalog."""
    if name in OLD_COUNTERS:
        return OLD_COUNTERS[name]
    if name.startswith("device") and name.endswith("_bytes_per_second") and name[6:-17].isdigit():
        return ("B/s", "higher", "measured")
    if name.startswith(OLD_MODEL_PREFIX) or name in OLD_MODELS:
        return ("", "neither", "model")
    return ("", "neither", "configuration")


# Axes renamed when case names became data, by family: files written before then
# (a baseline, a fleet's history) are read under today's names, so they still gate.
RENAMED_AXES = {"layout": {"n": "structs"}, "shared": {"n": "side"}, "stream": {"n": "elements"}}

# Axes added to a variant later, with the value its cases had before (appended
# last, as the family lists them): files written before then read as that case.
ADDED_AXES = {
    **{("async", v): (("persistent", 1),) for v in ("sync", "memcpy_async", "pipeline", "bulk", "tma")},
    ("hierarchy", "bandwidth"): (("width", 16), ("persistent", 1), ("through_l1", 1)),
    ("transfer", "host_to_device_memcpy_sm"): (("passes", 1),),
    ("transfer", "device_to_host_memcpy_sm"): (("passes", 1),),
    ("transfer", "bidirectional_memcpy_sm"): (("passes", 1),),
}
