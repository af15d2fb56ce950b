"""plot.py writes a non-empty PNG and SVG for every family present, on any subset."""
from __future__ import annotations

import copy

import plot
import pytest
from conftest import load

RECORDINGS = {
    "global": "h200_global_2p28.json",
    "layout": "h200_global_layout.json",
    "async": "h200_async.json",
    "shared": "h200_shared.json",
    "hierarchy": "h200_hierarchy.json",
    "dsmem": "h200_hierarchy.json",
}


@pytest.mark.parametrize("family", sorted(RECORDINGS))
def test_each_family_gets_png_and_svg(tmp_path, write_json, family):
    doc = load(RECORDINGS[family])
    assert plot.main([write_json(doc), "--out", str(tmp_path)]) == 0
    for ext in ("png", "svg"):
        image = tmp_path / f"{family}.{ext}"
        assert image.exists() and image.stat().st_size > 5_000, image


def test_only_families_present_are_drawn(tmp_path, write_json):
    doc = load("h200_global_layout.json")
    only_layout = copy.deepcopy(doc)
    only_layout["benchmarks"] = [b for b in doc["benchmarks"] if b["name"].startswith("layout/")]
    out = tmp_path / "figures"
    assert plot.main([write_json(only_layout), "--out", str(out), "--formats", "png"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["layout.png"]


def test_title_carries_the_gpu(write_json):
    doc = load("h200_global_2p28.json")
    assert "NVIDIA H200" in plot.title(doc, "x")


def test_bad_input_and_empty_files_exit_2(tmp_path, write_json, capsys):
    assert plot.main([str(tmp_path / "missing.json"), "--out", str(tmp_path)]) == 2
    empty = {"context": {}, "benchmarks": []}
    assert plot.main([write_json(empty), "--out", str(tmp_path)]) == 2
    assert "no case" in capsys.readouterr().err


def test_an_existing_file_as_out_is_refused(tmp_path, write_json, capsys):
    taken = tmp_path / "figures"
    taken.write_text("not a directory")
    assert plot.main([write_json(load("h200_global_layout.json")), "--out", str(taken)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"plot.py: --out {taken}: exists and is not a directory"


def test_an_unknown_format_is_refused_before_drawing(tmp_path, write_json, capsys):
    out = tmp_path / "figures"
    assert plot.main([write_json(load("h200_global_layout.json")), "--out", str(out), "--formats", "png,bmpx"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--formats png,bmpx: not an image format" in err
    assert not any(out.glob("*.png"))


@pytest.mark.parametrize("damage", [
    lambda d: d["benchmarks"].append(3),
    lambda d: d["benchmarks"][0].update(bytes_per_second="fast"),
    lambda d: d.update(context=[]),
])
def test_malformed_content_is_one_line_and_exit_2(tmp_path, write_json, capsys, damage):
    doc = copy.deepcopy(load("h200_global_2p28.json"))
    damage(doc)
    assert plot.main([write_json(doc), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("plot.py: "), err


def test_stream_bars_per_kernel_and_type(tmp_path, write_json):
    doc = {"context": {"gpu_name": "NVIDIA H200", "dram_peak_bytes_per_second": "4814304000000"}, "benchmarks": []}
    for kernel in ("read", "write", "copy", "scale", "add", "triad", "dot"):
        for type_ in ("float", "double"):
            name = f"stream/{kernel}/type:{type_}/n:134217728/block:256/manual_time"
            doc["benchmarks"].append({"name": name, "run_name": name, "run_type": "iteration", "real_time": 250.0,
                                      "time_unit": "us", "bytes": 1.07e9, "bytes_per_second": 4.2e12})
    assert plot.main([write_json(doc), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert (tmp_path / "stream.png").stat().st_size > 5_000


def test_link_families_draw_lines_per_variant(tmp_path, write_json):
    doc = {"context": {"gpu_name": "NVIDIA H200"}, "benchmarks": []}
    for family, variant, extra in (("transfer", "host_to_device_memcpy_ce", "host:pinned/"),
                                   ("transfer", "host_to_device_memcpy_sm", ""),
                                   ("peer", "device_to_device_memcpy_read_ce", "peer_access:1/")):
        for size in (4096, 1 << 20, 1 << 26):
            name = f"{family}/{variant}/{extra}bytes:{size}/manual_time"
            doc["benchmarks"].append({"name": name, "run_name": name, "run_type": "iteration", "real_time": 10.0,
                                      "time_unit": "us", "bytes": size, "bytes_per_second": size / 1e-5,
                                      "model_bytes_per_second": 6.3e10})
    assert plot.main([write_json(doc), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert (tmp_path / "transfer.png").stat().st_size > 5_000
    assert (tmp_path / "peer.png").stat().st_size > 5_000
