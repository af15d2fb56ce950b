"""One case of a result file as the scripts hold it: its name as parts, its
repetitions, and the one trust rule every consumer asks (Case.doubts); the
marks' constants and the thresholds the gates share. Re-exported by
membench.results, which reads a file into cases."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field


TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
TIMES = ("real_time", "cpu_time")
PER_ITERATION = (*TIMES, "bytes")
# Google Benchmark's keys whose values are text or true/false; every other key of a run is a number.
# NVML's clock event reasons (nvmlClocksEventReason*), and those that mark a
# case: power, thermal, hardware slowdown.
CLOCK_EVENTS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
CLOCK_EVENT_MARKS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80
POWER_CAP = next(bit for bit, name in CLOCK_EVENTS.items() if name == "sw_power_cap")  # the board's power limiter
SLOWDOWN_MARKS = CLOCK_EVENT_MARKS & ~POWER_CAP  # what clock_event marks: a thermal or hardware slowdown

# The noise (percent) at or above which a value is no evidence, where a script
# is given none: compare.py's --threshold, export.py's and history.py's --noise-threshold.
NOISE_THRESHOLD = 5.0

# The change (percent) below which no gate calls a case changed, where a script
# is given none: compare.py's --threshold and history.py check's. One run of one
# binary on one GPU moves some cases a few percent from the next (the default
# run's host copies, a chase at the L1's edge), so a narrower gate fails a
# rerun of the same binary.
CHANGE_THRESHOLD = 5.0

# A host-paced case changes by less than this many times its noise from the
# host alone: the gates need that much before they call it a change.
HOST_NOISE_WIDTHS = 3.0


def clock_event_names(reasons: int) -> str:
    """'sw_power_cap, hw_thermal_slowdown' for the bits set; unknown bits in hex."""
    names = [name for bit, name in CLOCK_EVENTS.items() if reasons & bit]
    rest = reasons & ~sum(CLOCK_EVENTS)
    if rest:
        names.append(hex(rest))
    return ", ".join(names) or "none"


class InputError(Exception):
    """The input is not something these scripts can read."""


@dataclass(frozen=True)
class CaseName:
    """A case's name as data, the mirror of membench's CaseId:
    family/variant[/key:value...][/manual_time]. The keys are membench's tags
    (how the case runs: device, l2) and then the family's axes; the scripts
    read both alike, by key, so a new tag needs nothing here."""

    family: str
    variant: str
    parts: tuple[tuple[str, int | str], ...] = ()

    @property
    def params(self) -> dict[str, int | str]:
        """Tags and axes by key ({'l2': 'cold', 'n': 1024})."""
        return dict(self.parts)

    def without(self, *keys: str) -> CaseName:
        """The same case without these tags or axes (device: the name on every GPU; l2: the warm case)."""
        return CaseName(self.family, self.variant, tuple(p for p in self.parts if p[0] not in keys))

    def renamed(self, names: dict[str, str]) -> CaseName:
        """The same case with these keys renamed."""
        return CaseName(self.family, self.variant, tuple((names.get(k, k), v) for k, v in self.parts))

    def format(self, suffix: str = "/manual_time") -> str:
        return "/".join([self.family, self.variant, *(f"{k}:{v}" for k, v in self.parts)]) + suffix

    @staticmethod
    def parse(name: str) -> CaseName:
        """A case name read from its text: 'global/strided/l2:cold/n:1024/stride:2/manual_time' -> ('global',
        'strided', (('l2', 'cold'), ('n', 1024), ('stride', 2))). Numbers become ints; a named axis keeps its
        name. A ValueError, saying why, for text that is no case name."""
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
        return CaseName(parts[0], parts[1], tuple(params))


@dataclass
class Case:
    """One benchmark case: its iteration runs (one per repetition), or why it did not run."""

    name: str
    family: str
    variant: str
    params: dict[str, int | str]
    runs: list[dict] = field(default_factory=list)
    error: str | None = None  # failed: a wrong result or a CUDA error
    skipped: str | None = None  # could not run on this GPU, with the reason
    run_complete: bool = True  # False: the process was killed before the run's end (its file says)

    def name_without(self, *keys: str, suffix: str = "/manual_time") -> str:
        """This case's name without these tags or axes, made from its parts, not parsed from its name
        (device: its name on every GPU)."""
        parts = tuple((k, v) for k, v in self.params.items() if k not in keys)
        return CaseName(self.family, self.variant, parts).format(suffix)

    def values(self, metric: str) -> list[float]:
        """The metric of every repetition, as numbers; times (in nanoseconds) and bytes per launch."""
        out = []
        for run in self.runs:
            if metric not in run:
                continue
            value = number(run[metric], f"{self.name}: '{metric}'")
            if metric in TIMES:
                unit = run.get("time_unit", "ns")
                if unit not in TIME_UNIT_NS:
                    raise InputError(f"{self.name}: unknown time_unit '{unit}'")
                value *= TIME_UNIT_NS[unit]
            # Files written before one iteration was one launch: an iteration
            # (and its bytes) was a batch of launches_per_iteration launches.
            if metric in PER_ITERATION and "launches_per_iteration" in run:
                value /= number(run["launches_per_iteration"], f"{self.name}: 'launches_per_iteration'") or 1.0
            out.append(value)
        return out

    def median(self, metric: str) -> float | None:
        values = self.values(metric)
        return statistics.median(values) if values else None

    def most(self, key: str) -> float | None:
        """The largest value of a counter over the repetitions (a mark any of them has counts)."""
        found = [number(run[key], f"{self.name}: '{key}'") for run in self.runs if key in run]
        return max(found) if found else None

    @property
    def host_paced(self) -> bool:
        """The host paces this case's time and noise (pageable staging, a small copy's round
        trip, page faults): its noise is the host's, not a sign of a shared GPU, as the binary marks it."""
        return (self.most("host_paced") or 0) >= 1

    def host_noise_pct(self) -> float:
        """The change (percent) this case's own noise allows where the host paces it: HOST_NOISE_WIDTHS times
        its noise; 0 for a case the GPU paces. Every gate widens by this, and only by this."""
        return HOST_NOISE_WIDTHS * (self.most("noise_pct") or 0) if self.host_paced else 0.0

    def gate_threshold(self, other: Case, threshold: float) -> float:
        """The change (percent) a gate needs to see between this case and `other`: the
        threshold, or for a host-paced case HOST_NOISE_WIDTHS times the larger noise of the two."""
        return max(threshold, self.host_noise_pct(), other.host_noise_pct())

    def doubts(self, noise_threshold: float) -> list[str]:
        """Why this case's measurement is no evidence at this noise threshold
        (percent); empty when it is. This is the one trust rule: compare,
        fleet, history, export, reference and the report all ask it. Another
        process held the GPU, a power, thermal or hardware clock event,
        batches dropped for a low clock, noise unknown, or noise at or above
        the threshold, in any repetition (the power cap alone, power_capped,
        is the case's own draw and no doubt); or the run was
        killed before its end. A host-paced case is doubted alike: its noise
        is the host's, but a value that noisy is no evidence of anything;
        where it is trusted, gate_threshold widens the change it must show. A
        consumer that tests the repetitions' spread itself (compare's
        Mann-Whitney test) passes an infinite threshold."""
        most = self.most
        out = [] if self.run_complete else ["run incomplete (the process ended before the run did)"]
        if (others := most("contended")) and others >= 1:
            count = most("other_processes") or 1
            out.append(f"contended ({count:g} other process{'es' if count != 1 else ''} on the GPU)")
        if (event := most("clock_event")) and event >= 1:  # a thermal or hardware slowdown, as the binary marks it
            reasons = 0
            for run in self.runs:
                reasons |= int(number(run.get("clock_event_reasons", 0), f"{self.name}: 'clock_event_reasons'"))
            out.append(f"clock event ({clock_event_names(reasons & SLOWDOWN_MARKS)})")
        if (throttled := most("throttled_batches")) and throttled > 0:
            out.append(f"throttled ({throttled:g} batches below the clock threshold)")
        noise = most("noise_pct")
        if noise is not None and noise < 0:
            out.append("noise unknown (fewer than two batches)")
        elif noise is not None and noise >= noise_threshold:
            paced = "host-paced, " if self.host_paced else ""
            out.append(f"{paced}noise {noise:.3g}% >= the {noise_threshold:g}% threshold")
        return out


def number(value: object, what: str) -> float:
    """A JSON number as float; anything else is an InputError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{what} is not a number ({json.dumps(value)[:40]})")
    return float(value)
