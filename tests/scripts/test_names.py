"""The one name parser of the scripts (membench.compat.parse_old_name, for files without a catalog) against the
binary's --list_cases=json, for every case of the default run and of every sweep file."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from membench import compat
from membench import results as mr
import pytest


def parse_name(name: str) -> mr.CaseName:
    return mr.CaseName(*compat.parse_old_name(name))


EXE = os.environ.get("MEMBENCH_EXE")
SWEEPS = sorted((Path(__file__).parents[2] / "sweeps").glob("*.json"))


def listed(*args: str) -> list[dict]:
    done = subprocess.run([EXE, "--list_cases=json", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not EXE or not Path(EXE).exists(), reason="MEMBENCH_EXE names no membench binary (run under ctest)")
@pytest.mark.parametrize(
    "args",
    [[], ["--l2=both", "--device=0,1"], *([f"--sweep={s}"] for s in SWEEPS)],
    ids=lambda a: " ".join(a) or "default",
)
def test_parse_name_reads_every_listed_case(args):
    cases = listed(*args)
    assert cases
    for case in cases:
        parsed = parse_name(case["name"])
        assert parsed.format() == case["name"]
        assert (parsed.family, parsed.variant) == (case["family"], case["variant"])
        tags = [(k, v) for k, v in case["tags"].items()]
        axes = [(a["name"], a["value"]) for a in case["axes"]]
        assert [(k, str(v)) for k, v in parsed.parts[: len(tags)]] == tags
        assert list(parsed.parts[len(tags) :]) == axes


@pytest.mark.parametrize(
    "old, new",
    [
        ("layout/aos/n:16777216/fields:4/manual_time", "layout/aos/structs:16777216/fields:4/manual_time"),
        ("shared/padded/n:64/pad:1/manual_time", "shared/padded/side:64/pad:1/manual_time"),
        (
            "stream/triad/type:float/n:134217728/block:256/manual_time",
            "stream/triad/type:float/elements:134217728/block:256/manual_time",
        ),
        ("layout/soa/l2:cold/n:1024/fields:1", "layout/soa/l2:cold/structs:1024/fields:1"),
    ],
)
def test_a_name_from_before_the_axis_renaming_reads_as_todays(old, new):
    name, parsed = mr.current_name(old)
    assert name == new
    assert parsed == parse_name(new)
    assert mr.current_name(new) == (new, parse_name(new))


@pytest.mark.parametrize(
    "old, new",
    [
        (
            "hierarchy/bandwidth/working_set:16384/manual_time",
            "hierarchy/bandwidth/working_set:16384/width:16/persistent:1/through_l1:1/manual_time",
        ),
        (
            "hierarchy/bandwidth/working_set:16384/width:8/manual_time",
            "hierarchy/bandwidth/working_set:16384/width:8/persistent:1/through_l1:1/manual_time",
        ),
        (
            "async/tma/n:67108864/tile:1024/stages:2/flops:0",
            "async/tma/n:67108864/tile:1024/stages:2/flops:0/persistent:1",
        ),
        (
            "hierarchy/bandwidth/l2:cold/working_set:16384",
            "hierarchy/bandwidth/l2:cold/working_set:16384/width:16/persistent:1/through_l1:1",
        ),
        (
            "transfer/host_to_device_memcpy_sm/bytes:1048576/manual_time",
            "transfer/host_to_device_memcpy_sm/bytes:1048576/passes:1/remote_node:0/manual_time",
        ),
        (
            "transfer/bidirectional_memcpy_sm/device:1/bytes:4096/manual_time",
            "transfer/bidirectional_memcpy_sm/device:1/bytes:4096/passes:1/remote_node:0/manual_time",
        ),
        (
            "transfer/host_to_device_memcpy_ce/host:pinned/bytes:4096/manual_time",
            "transfer/host_to_device_memcpy_ce/host:pinned/bytes:4096/remote_node:0/manual_time",
        ),
        (
            "peer/device_to_device_memcpy_read_ce/peer_access:1/bytes:4096",
            "peer/device_to_device_memcpy_read_ce/peer_access:1/bytes:4096/peer_step:1",
        ),
        (
            "hierarchy/bandwidth/working_set:16384/width:4/persistent:0/manual_time",
            "hierarchy/bandwidth/working_set:16384/width:4/persistent:0/through_l1:1/manual_time",
        ),
    ],
)
def test_a_name_from_before_an_axis_was_added_reads_as_its_case_today(old, new):
    name, parsed = mr.current_name(old)
    assert name == new
    assert parsed == parse_name(new)
    assert mr.current_name(new) == (new, parse_name(new))


# Every variant that gained an axis, with the value its cases had before.
@pytest.mark.parametrize(
    "old, new",
    [
        *[
            (
                f"async/{v}/n:67108864/tile:1024/flops:0/manual_time",
                f"async/{v}/n:67108864/tile:1024/flops:0/persistent:1/manual_time",
            )
            for v in ("sync", "memcpy_async", "pipeline", "bulk", "tma")
        ],
        *[
            (
                f"transfer/{d}_memcpy_sm/bytes:4096/manual_time",
                f"transfer/{d}_memcpy_sm/bytes:4096/passes:1/remote_node:0/manual_time",
            )
            for d in ("host_to_device", "device_to_host", "bidirectional")
        ],
        *[
            (
                f"transfer/{v}/host:pinned/bytes:4096/manual_time",
                f"transfer/{v}/host:pinned/bytes:4096/remote_node:0/manual_time",
            )
            for v in ("host_to_device_memcpy_ce", "device_to_host_memcpy_ce", "bidirectional_memcpy_ce")
        ],
        (
            "transfer/host_device_latency_sm/working_set:2097152/chase_stride:128/manual_time",
            "transfer/host_device_latency_sm/working_set:2097152/chase_stride:128/remote_node:0/manual_time",
        ),
        *[
            (
                f"peer/device_to_device_{v}_sm/bytes:4096/manual_time",
                f"peer/device_to_device_{v}_sm/bytes:4096/passes:1/peer_step:1/manual_time",
            )
            for v in ("memcpy_read", "memcpy_write", "bidirectional_memcpy")
        ],
        (
            "peer/device_to_device_latency_sm/working_set:2097152/chase_stride:128/manual_time",
            "peer/device_to_device_latency_sm/working_set:2097152/chase_stride:128/peer_step:1/manual_time",
        ),
        (
            "hierarchy/bandwidth/working_set:16384/manual_time",
            "hierarchy/bandwidth/working_set:16384/width:16/persistent:1/through_l1:1/manual_time",
        ),
    ],
)
def test_every_variant_that_gained_an_axis_reads_its_old_names(old, new):
    assert mr.current_name(old)[0] == new


@pytest.mark.parametrize(
    "name",
    [
        "hierarchy/bandwidth/working_set:16384/width:4/persistent:0/through_l1:0/manual_time",
        "transfer/host_to_device_memcpy_ce/host:pinned/bytes:4096/remote_node:1/manual_time",
        "transfer/host_device_latency_sm/working_set:4096/chase_stride:128/remote_node:1",
        "peer/device_to_device_memcpy_read_ce/peer_access:1/bytes:4096/peer_step:3",
        "global/strided/n:1024/stride:2/manual_time",
    ],
)
def test_a_case_that_has_the_axis_or_never_had_it_keeps_its_name(name):
    assert mr.current_name(name) == (name, parse_name(name))


@pytest.mark.parametrize(
    "name",
    [
        "global/strided/n:1024/stride:2/manual_time",
        "async/tma/n:67108864/tile:1024/persistent:1",
        "hierarchy/latency/working_set:4096/chase_stride:128/manual_time",
    ],
)
def test_other_families_keep_their_n(name):
    assert mr.current_name(name) == (name, parse_name(name))


@pytest.mark.skipif(not EXE or not Path(EXE).exists(), reason="MEMBENCH_EXE names no membench binary (run under ctest)")
def test_the_renamed_axes_are_todays_and_the_old_names_are_free():
    axes: dict[str, set[str]] = {}
    for case in listed():
        axes.setdefault(case["family"], set()).update(a["name"] for a in case["axes"])
    for family, renamed in compat.RENAMED_AXES.items():
        for old, new in renamed.items():
            assert new in axes[family] and old not in axes[family], (family, old, new)
    # An added axis is the last of its variant's today, with the old value among its defaults' kind.
    variants = {(c["family"], c["variant"]): [a["name"] for a in c["axes"]] for c in listed()}
    for (family, variant), added in compat.ADDED_AXES.items():
        names = variants[(family, variant)]
        assert names[len(names) - len(added) :] == [key for key, _ in added], (family, variant, names)
