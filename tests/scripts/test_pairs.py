"""The pair matrix: every GPU of a node against every other, from one --device=all file or from a process a GPU,
drawn in fleet.py and in the report; a slow link is its one cell."""

from __future__ import annotations

import json

from membench import fleet, pairs
from membench import declarations as md
from membench import results as mr

READ = "peer/device_to_device_memcpy_read_ce"
CATALOG = {"bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured"}}


def run(name: str, peer: int | None, bw: float | None, skipped: str = "") -> dict:
    entry = {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "time_unit": "us"}
    if skipped:
        return {**entry, "error_occurred": True, "error_message": f"skipped: {skipped}"}
    if peer is not None:
        entry["peer_device"] = peer
    if bw is not None:
        entry["bytes_per_second"] = bw
    return entry


def rate(here: int, there: int) -> float:
    """Every link at 380 GB/s but 2 -> 3, which runs at a quarter of it."""
    return 0.95e11 if (here, there) == (2, 3) else 3.8e11


def all_devices(gpus: int = 4, steps: int = 3) -> dict:
    """A --device=all run of read_ce over every step: device d reaches (d + step) % gpus."""
    devices = [{"ordinal": d, "uuid": f"GPU-{d}", "name": "NVIDIA H200"} for d in range(gpus)]
    benchmarks = []
    for d in range(gpus):
        for step in range(1, steps + 1):
            name = f"{READ}/device:{d}/peer_access:1/bytes:67108864/peer_step:{step}/manual_time"
            if step >= gpus:
                benchmarks.append(run(name, None, None, skipped=f"peer_step {step} needs {step + 1} GPUs"))
            else:
                benchmarks.append(run(name, (d + step) % gpus, rate(d, (d + step) % gpus)))
    return {
        "context": {
            "membench_version": "0.1.0",
            "host_name": "n0",
            "gpu_name": "NVIDIA H200",
            "devices": json.dumps(devices),
        },
        "membench": {"schema_version": 1, "counters": CATALOG},
        "benchmarks": benchmarks,
    }


def test_every_pair_is_its_cell_and_the_slow_link_stands_out():
    [m] = pairs.matrices([("all.json", all_devices())], "bytes_per_second")
    assert m.case == f"{READ}/peer_access:1/bytes:67108864" and m.host == "n0" and m.ordinals == [0, 1, 2, 3]
    assert len(m.cells) == 12  # 4 x 3 ordered pairs
    assert all(m.cells[h, t] == rate(h, t) for h in range(4) for t in range(4) if h != t)
    table = m.table("B/s")
    assert table.header == ["ran on ↓, reached →", "device 0", "device 1", "device 2", "device 3"]
    assert table.rows[2] == ["device 2", "380 GB/s", "380 GB/s", "·", "95 GB/s"]
    assert [r[r.index("·")] for r in table.rows] == ["·"] * 4 and [r.index("·") for r in table.rows] == [1, 2, 3, 4]


def test_a_pair_no_case_reached_is_a_dash_and_a_skipped_case_no_cell():
    doc = all_devices(gpus=2, steps=3)  # steps 2 and 3 skip on two GPUs
    [m] = pairs.matrices([("two.json", doc)], "bytes_per_second")
    assert m.cells == {(0, 1): 3.8e11, (1, 0): 3.8e11}
    doc = all_devices(gpus=3, steps=1)  # the next GPU only: 0->1, 1->2, 2->0
    [m] = pairs.matrices([("three.json", doc)], "bytes_per_second")
    assert m.table("B/s").rows[0] == ["device 0", "·", "380 GB/s", "-"]


def test_one_pair_or_no_peer_counter_is_no_matrix():
    doc = all_devices(gpus=2, steps=1)
    doc["benchmarks"] = doc["benchmarks"][:1]
    assert pairs.matrices([("one.json", doc)], "bytes_per_second") == []
    stream = "stream/copy/device:{}/type:float/elements:1024/block:256/manual_time"
    doc["benchmarks"] = [run(stream.format(d), None, 4e12) for d in (0, 1)]
    assert pairs.markdown([("stream.json", doc)], "bytes_per_second") == ""


def test_processes_of_one_host_fill_one_matrix_and_hosts_stay_apart():
    """Under LOCAL_RANK each process measures its own GPU and names it in gpu_ordinal; the peer step is 1."""
    files = []
    for host in ("n0", "n1"):
        for d in range(2):
            name = f"{READ}/peer_access:1/bytes:67108864/peer_step:1/manual_time"
            context = {"host_name": host, "gpu_name": "NVIDIA H200", "gpu_ordinal": str(d), "gpu_uuid": f"{host}-{d}"}
            doc = {
                "context": context,
                "membench": {"schema_version": 1, "counters": CATALOG},
                "benchmarks": [run(name, 1 - d, 3e11)],
            }
            files.append((f"{host}-{d}.json", doc))
    found = pairs.matrices(files, "bytes_per_second")
    assert [(m.host, m.ordinals, sorted(m.cells)) for m in found] == [
        ("n0", [0, 1], [(0, 1), (1, 0)]),
        ("n1", [0, 1], [(0, 1), (1, 0)]),
    ]


def test_old_names_without_the_step_read_as_step_1():
    name, parsed = mr.current_name(f"{READ}/peer_access:1/bytes:64/manual_time")
    assert name == f"{READ}/peer_access:1/bytes:64/peer_step:1/manual_time" and parsed.params["peer_step"] == 1
    name, _ = mr.current_name("peer/device_to_device_memcpy_write_sm/bytes:64/manual_time")
    assert name == "peer/device_to_device_memcpy_write_sm/bytes:64/passes:1/peer_step:1/manual_time"


def test_fleet_prints_the_matrix_beside_its_verdicts(write_json, capsys):
    assert fleet.main([write_json(all_devices())]) == 1  # device 2's read of device 3 is slow
    out = capsys.readouterr().out
    assert "## Every pair of GPUs" in out
    assert f"### {READ}/peer_access:1/bytes:67108864 on n0" in out
    assert "| device 2 | 380 GB/s | 380 GB/s | · | 95 GB/s |" in out
    assert "FLAGGED: n0 device 2 (GPU-2)" in out


def test_a_failed_case_is_no_cell_and_the_cases_after_it_still_are():
    doc = all_devices(gpus=3, steps=2)
    first = doc["benchmarks"][0]  # device 0 -> 1, measured in one repetition and failed in the next
    failed = {**first, "repetition_index": 1, "error_occurred": True, "error_message": "wrong result at element 7"}
    doc["benchmarks"].insert(1, failed)
    [m] = pairs.matrices([("failed.json", doc)], "bytes_per_second")
    assert (0, 1) not in m.cells  # a case that failed is no evidence of the link, its good repetition neither
    assert len(m.cells) == 5 and m.cells[0, 2] == rate(0, 2)  # and every case after it is still read


def test_a_gpu_no_case_reached_still_has_its_row_and_column():
    doc = all_devices(gpus=3, steps=1)
    doc["benchmarks"] = [b for b in doc["benchmarks"] if "/device:2/" not in b["name"]]  # 0->1 and 1->2 only
    [m] = pairs.matrices([("partial.json", doc)], "bytes_per_second")
    assert m.ordinals == [0, 1, 2]
    four = all_devices(gpus=4, steps=1)
    four["benchmarks"] = four["benchmarks"][:2]  # 0->1 and 1->2: GPU 3 ran nothing and was reached by nothing
    [m] = pairs.matrices([("four.json", four)], "bytes_per_second")
    assert m.ordinals == [0, 1, 2, 3] and m.table("B/s").rows[3] == ["device 3", "-", "-", "-", "·"]


def test_a_file_without_a_host_name_is_an_unknown_host_and_the_tables_are_whole_markdown():
    doc = all_devices()
    del doc["context"]["host_name"]
    other = all_devices()
    for b in other["benchmarks"]:
        b["name"] = b["name"].replace("peer_access:1", "peer_access:0")
    out = pairs.markdown([("a.json", doc), ("b.json", other)], "bytes_per_second")
    assert f"### {READ}/peer_access:1/bytes:67108864 on unknown-host" in out
    assert out.endswith("(skipped, failed, or not run).\n")  # the last table's note, and nothing after it
    assert "\nA row the GPU that ran the case, a column the GPU whose memory it reached; - where" in out
    blocks = out.split("\n\n")
    assert blocks[0] == "## Every pair of GPUs"
    # Each matrix a block of its own: its heading, then a table whose every row starts and ends with a bar.
    headings = [b for b in blocks if b.startswith("### ")]
    assert len(headings) == 2
    for line in out.splitlines():
        if "|" in line:
            assert line.startswith("|") and line.endswith("|"), line


def test_the_axes_that_pick_the_peer_are_the_ones_the_file_declares():
    """A file of schema 3 says which axes pick the GPU a case reaches: a family no script names pairs by its own."""
    doc = all_devices(gpus=3, steps=2)
    for entry in doc["benchmarks"]:
        for key in ("name", "run_name"):
            entry[key] = entry[key].replace(READ, "hops/read").replace("peer_step:", "hop:")
    axes = [{"name": "bytes", "unit": "bytes"}, {"name": "hop", "unit": "GPUs", "before": 1, "picks_peer": True}]
    doc["membench"] = {
        "schema_version": 3,
        "counters": CATALOG,
        "families": {"hops": {"title": "hops", "axes": axes, "figures": []}},
    }
    [m] = pairs.matrices([("hops.json", doc)], "bytes_per_second")
    assert m.case == "hops/read/peer_access:1/bytes:67108864" and len(m.cells) == 6  # 3 GPUs x 2 others
    # Not declared to pick the peer: each hop is a case of its own, a cell a GPU.
    axes[1]["picks_peer"] = False
    found = pairs.matrices([("hops.json", doc)], "bytes_per_second")
    assert [(m.case.rsplit("/", 1)[1], len(m.cells)) for m in found] == [("hop:1", 3), ("hop:2", 3)]
    # A file before schema 3 had the peer family's peer_step pick it, as the compatibility module says.
    assert md.families(all_devices())["peer"].peer_axes() == ("peer_step",)
