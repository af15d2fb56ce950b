"""plot.py writes a non-empty PNG and SVG for every family present, on any subset."""

from __future__ import annotations

import copy

from membench import figures, plot
import pytest
from conftest import load

RECORDINGS = {
    "global": "global.json",
    "layout": "global_layout.json",
    "async": "async.json",
    "shared": "shared.json",
    "hierarchy": "hierarchy.json",
    "dsmem": "hierarchy.json",
    "managed": "families.json",
    "l2persist": "families.json",
    "atomics": "families.json",
}


def test_only_families_present_are_drawn(tmp_path, write_json):
    doc = load("global_layout.json")
    only_layout = copy.deepcopy(doc)
    only_layout["benchmarks"] = [b for b in doc["benchmarks"] if b["name"].startswith("layout/")]
    out = tmp_path / "figures"
    assert plot.main([write_json(only_layout), "--out", str(out), "--formats", "png"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["layout.png"]


def test_title_carries_the_gpu(write_json):
    doc = load("global.json")
    assert "NVIDIA H100 80GB HBM3" in figures.title(doc, "x")


def test_bad_input_and_empty_files_exit_2(tmp_path, write_json, capsys):
    assert plot.main([str(tmp_path / "missing.json"), "--out", str(tmp_path)]) == 2
    empty = {"context": {"membench_version": "0.1.0"}, "benchmarks": []}
    assert plot.main([write_json(empty), "--out", str(tmp_path)]) == 2
    assert "no case" in capsys.readouterr().err


def test_an_existing_file_as_out_is_refused(tmp_path, write_json, capsys):
    taken = tmp_path / "figures"
    taken.write_text("not a directory")
    assert plot.main([write_json(load("global_layout.json")), "--out", str(taken)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"plot.py: --out {taken}: exists and is not a directory"


def test_an_unknown_format_is_refused_before_drawing(tmp_path, write_json, capsys):
    out = tmp_path / "figures"
    assert plot.main([write_json(load("global_layout.json")), "--out", str(out), "--formats", "png,bmpx"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--formats png,bmpx: not an image format" in err
    assert not any(out.glob("*.png"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["benchmarks"].append(3),
        lambda d: d["benchmarks"][0].update(bytes_per_second="fast"),
        lambda d: d.update(context=[]),
    ],
)
def test_malformed_content_is_one_line_and_exit_2(tmp_path, write_json, capsys, damage):
    doc = copy.deepcopy(load("global.json"))
    damage(doc)
    assert plot.main([write_json(doc), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("plot.py: "), err


def test_stream_bars_per_kernel_and_type(tmp_path, write_json):
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "gpu_name": "NVIDIA H200",
            "dram_peak_bytes_per_second": "4814304000000",
        },
        "benchmarks": [],
    }
    for kernel in ("read", "write", "copy", "scale", "add", "triad", "dot"):
        for type_ in ("float", "double"):
            name = f"stream/{kernel}/type:{type_}/elements:134217728/block:256/manual_time"
            doc["benchmarks"].append(
                {
                    "name": name,
                    "run_name": name,
                    "run_type": "iteration",
                    "real_time": 250.0,
                    "time_unit": "us",
                    "bytes": 1.07e9,
                    "bytes_per_second": 4.2e12,
                }
            )
    assert plot.main([write_json(doc), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert (tmp_path / "stream.png").stat().st_size > 5_000


def test_link_families_draw_lines_per_variant(tmp_path, write_json):
    doc = {"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"}, "benchmarks": []}
    for family, variant, extra in (
        ("transfer", "host_to_device_memcpy_ce", "host:pinned/"),
        ("transfer", "host_to_device_memcpy_sm", ""),
        ("peer", "device_to_device_memcpy_read_ce", "peer_access:1/"),
    ):
        for size in (4096, 1 << 20, 1 << 26):
            name = f"{family}/{variant}/{extra}bytes:{size}/manual_time"
            doc["benchmarks"].append(
                {
                    "name": name,
                    "run_name": name,
                    "run_type": "iteration",
                    "real_time": 10.0,
                    "time_unit": "us",
                    "bytes": size,
                    "bytes_per_second": size / 1e-5,
                    "model_bytes_per_second": 6.3e10,
                }
            )
    assert plot.main([write_json(doc), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert (tmp_path / "transfer.png").stat().st_size > 5_000
    assert (tmp_path / "peer.png").stat().st_size > 5_000


# ---- what the figures show: the numbers drawn, computed here from the JSON on its own --------


import matplotlib.pyplot as plt  # noqa: E402


def entries(doc: dict, prefix: str) -> list[dict]:
    return [
        b
        for b in doc["benchmarks"]
        if b["name"].startswith(prefix)
        and b.get("run_type", "iteration") == "iteration"
        and not b.get("error_occurred")
        and not b.get("skipped")
    ]


def param(entry: dict, key: str):
    for part in entry["name"].split("/"):
        if part.startswith(key + ":"):
            value = part.split(":", 1)[1]
            return int(value) if value.lstrip("-").isdigit() else value
    return None


def draw(doc: dict, family: str):
    fig = plt.figure()
    assert plot.draw_family(doc, family, plot.by_family(doc)[family], fig)
    return fig


def lines(ax) -> dict[str, tuple[list, list]]:
    as_float = lambda v: float("nan") if v is None else float(v)  # noqa: E731
    return {
        l.get_label(): ([as_float(x) for x in l.get_xdata()], [as_float(y) for y in l.get_ydata()])
        for l in ax.get_lines()
        if not l.get_label().startswith("_")
    }


def close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= 1e-9 * max(abs(y), 1.0) for x, y in zip(a, b))


def test_hierarchy_and_dsmem_draw_every_working_set_and_cluster():
    doc = load("hierarchy.json")
    fig = draw(doc, "hierarchy")
    bandwidth = [b for b in entries(doc, "hierarchy/bandwidth/") if param(b, "l2") != "cold"]
    bandwidth.sort(key=lambda b: param(b, "working_set"))
    ax_bw = next(ax for ax in fig.axes if "bandwidth" in ax.get_title())
    assert lines(ax_bw)["bandwidth"] == (
        [float(param(b, "working_set")) for b in bandwidth],
        [b["bytes_per_second"] / divisor(ax_bw) for b in bandwidth],
    )
    ax_lat = next(ax for ax in fig.axes if "latency" in ax.get_title())
    latency = sorted(entries(doc, "hierarchy/latency/"), key=lambda b: param(b, "working_set"))
    xs, ys = lines(ax_lat)["latency"]  # one chase stride, one temperature: the variant names the line
    assert ys == [b["latency_ns"] for b in latency]
    plt.close(fig)

    fig = draw(doc, "dsmem")
    ax_bw, ax_lat = fig.axes[:2]
    remote = sorted(entries(doc, "dsmem/read_remote/"), key=lambda b: param(b, "cluster"))
    assert ax_bw.get_ylabel() == "bytes_per_second (TB/s)"
    assert lines(ax_bw)["read_remote"] == (
        [float(param(b, "cluster")) for b in remote],
        [b["bytes_per_second"] / 1e12 for b in remote],
    )
    chase = sorted(entries(doc, "dsmem/chase_remote/"), key=lambda b: param(b, "cluster"))
    assert lines(ax_lat)["chase_remote"][1] == [b["latency_ns"] for b in chase]
    plt.close(fig)


def test_links_draw_each_variant_and_the_link_model():
    doc = {"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"}, "benchmarks": []}
    for size, rate in ((4096, 1e9), (1 << 20, 4.8e10), (1 << 26, 5.5e10)):
        name = f"transfer/host_to_device_memcpy_ce/host:pinned/bytes:{size}/manual_time"
        doc["benchmarks"].append(
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "bytes_per_second": rate,
                "model_bytes_per_second": 6.3e10,
            }
        )
    fig = draw(doc, "transfer")
    ax = fig.axes[0]
    drawn = {l.get_label(): l for l in ax.get_lines()}
    assert lines(ax)["host_to_device_memcpy_ce"] == ([4096.0, float(1 << 20), float(1 << 26)], [1.0, 48.0, 55.0])
    model = [l for l in ax.get_lines() if l.get_linestyle() == "--" and l.get_label().startswith("_")]
    assert [list(l.get_ydata()) for l in model] == [[63.0, 63.0, 63.0]]  # dashed, in the line's colour
    assert model[0].get_color() == drawn["host_to_device_memcpy_ce"].get_color()
    assert "dashed: model_bytes_per_second" in drawn
    plt.close(fig)


# ---- what a person reads on each figure: titles, axes, scales, grid and legend ------------------


def scale(axis) -> str:
    base = getattr(axis.get_transform(), "base", None)
    return axis.get_scale() + ("" if base is None else f" base {base:g}")


def look(fig) -> tuple[str, list[tuple]]:
    """The figure's title and, per panel: title, x and y labels, scales, grid, legend."""
    panels = []
    for ax in fig.axes:
        legend = ax.get_legend()
        panels.append(
            (
                ax.get_title(),
                ax.get_xlabel(),
                ax.get_ylabel(),
                (scale(ax.xaxis), scale(ax.yaxis)),
                any(l.get_visible() for l in ax.xaxis.get_gridlines() + ax.yaxis.get_gridlines()),
                [t.get_text() for t in legend.get_texts()] if legend else None,
                legend.get_texts()[0].get_fontsize() if legend else None,
            )
        )
    return fig._suptitle.get_text(), panels


RATE = "bandwidth (GB/s, read + write)"
HOT = [f"hit_ratio {hit}, hot_bytes {hot} MiB" for hit in (0, 50, 100) for hot in (8, 16, 32)]  # numeric order
WORDS = [
    f"{variant}, space {space}, word {word}"
    for variant in ("add", "red")
    for space in ("global", "shared")
    for word in ("f32", "f64", "u32", "u64")
]
LOOKS = {
    "global": (
        "Global memory: stride and size\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "strided reads: two launch geometries, two read paths",
                "stride (floats)",
                "bytes_per_second (TB/s)",
                ("log base 2", "log base 10"),
                True,
                ["strided", "dashed: memcpy's rate x useful / modelled DRAM bytes"],
                7,
            ),
            (
                "every other variant by n",
                "n = 268,435,456",  # one n: a bar a case, named under it
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                ["dram peak bytes per second"],
                7,
            ),
        ],
    ),
    "layout": (
        "Layout: AoS vs SoA\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "each layout by the fields read",
                "fields",
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                ["mark: the AoS all-fields rate x useful / modelled DRAM bytes", "aos", "soa"],
                7,
            )
        ],
    ),  # fmt: skip
    "async": (
        "Async copy: sync vs memcpy_async vs pipeline vs bulk vs tma\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "by the tiles in flight (the best tile)",
                "stages (tiles)",
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                [f"{v}, flops {f}" for v in ("bulk", "pipeline", "tma") for f in (0, 16, 64, 256)],
                6,  # twelve lines: a smaller legend
            ),
            (
                "where overlap pays (the best tile and stages)",
                "flops",
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                ["bulk", "memcpy_async", "pipeline", "sync", "tma"],
                7,
            ),
            (
                "on this GPU's measured roofline (the best tile and stages)",
                "FLOP per byte (flops_per_byte)",
                "Top/s",
                ("log base 10", "log base 10"),
                True,
                ["bulk", "memcpy_async", "pipeline", "sync", "tma"],
                7,
            ),
        ],
    ),
    "shared": (
        "Shared memory: bank conflicts\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "a 32 x 32 tile through shared memory",
                "variant",
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                ["pad 0", "pad 1", "row, swizzle"],  # the variants without a pad: named by their variants
                7,
            ),
            (
                "conflict_degree: the slowdown against stride 1",
                "shared_stride (accesses)",
                "slowdown against conflict_degree, shared_stride 1 (x)",
                ("linear", "log base 10"),
                True,
                ["width 4 B", "width 8 B", "width 16 B", "dashed: conflict_ways"],
                7,
            ),
        ],
    ),
    "hierarchy": (
        "Memory hierarchy: read bandwidth and latency by working set\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "read bandwidth: the whole grid re-reads the set",
                "working_set (bytes)",
                "bytes_per_second (TB/s)",
                ("log base 2", "linear"),
                True,
                [
                    "bandwidth",
                    "l1 shared bytes per sm (256 KiB)",
                    "l2 bytes (50 MiB)",
                    "dashed: model_bytes_per_second",
                ],
                7,
            ),
            (
                "latency: a random pointer chase",
                "working_set (bytes)",
                "latency_ns (ns)",
                ("log base 2", "log base 10"),
                True,
                ["latency", "l1 shared bytes per sm (256 KiB)", "l2 bytes (50 MiB)"],
                7,
            ),
        ],
    ),
    "dsmem": (
        "Distributed shared memory: a cluster's blocks reading each other\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "every thread reads a buffer",
                "cluster (blocks)",
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                ["read_local", "read_remote", "smem peak bytes per second"],
                7,
            ),
            (
                "one thread chases a chain",
                "cluster (blocks)",
                "latency_ns (ns)",
                ("linear", "linear"),
                True,
                ["chase_local", "chase_remote"],
                7,
            ),
        ],
    ),
    "managed": (
        "Unified memory: where the pages are when the GPU reads them\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "GB/s of the bytes the kernel reads",
                "bytes",
                "bytes_per_second (TB/s)",
                ("log base 2", "log base 10"),
                True,
                [
                    "fault, touch random",
                    "fault, touch sequential",
                    "fault, touch strided",
                    "ping_pong",
                    "prefetch",
                    "read_mostly",
                    "remote",
                    "resident",
                    "dashed: model_bytes_per_second",
                ],
                6,  # nine entries
            )
        ],
    ),
    "l2persist": (
        "L2 residency control: a hot buffer under an access policy window\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            ("measured", "set_aside (percent)", "bytes_per_second (TB/s)", ("linear", "linear"), True, HOT, 6),
            (
                "model: what DRAM still serves",
                "set_aside (percent)",
                "model_dram_read_bytes (MB)",
                ("linear", "linear"),
                True,
                HOT,
                6,
            ),
        ],
    ),
    "atomics": (
        "Atomics: updates per second by the threads sharing an address\nNVIDIA H100 80GB HBM3, 2026-12-06",
        [
            (
                "updates by the threads that share an address",
                "shared_by",
                "updates_per_second (T updates/s)",
                ("linear", "log base 10"),
                True,
                [*WORDS, "dashed: model_updates_per_second"],
                6,
            )
        ],
    ),
}


@pytest.mark.parametrize("family", sorted(LOOKS))
def test_each_recorded_figure_reads_as_intended(family):
    fig = draw(load(RECORDINGS[family]), family)
    assert look(fig) == LOOKS[family]
    plt.close(fig)


def test_new_families_draw_their_measurements():
    doc = load("families.json")
    fig = draw(doc, "atomics")
    xs, ys = lines(fig.axes[0])["red, space global, word u32"]
    red = {param(b, "shared_by"): b for b in entries(doc, "atomics/red/word:u32/space:global/")}
    order = ["grid", "block", "warp", "thread"]
    assert xs == [0.0, 1.0, 2.0, 3.0]
    assert ys == [red[s]["updates_per_second"] / divisor(fig.axes[0]) for s in order]
    assert len(lines(fig.axes[0])["red, space shared, word u32"][0]) == 3  # no grid in shared memory
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["grid", "block", "warp", "thread"]
    plt.close(fig)
    fig = draw(doc, "transfer")  # the host chase in its own panel, named for what it chases
    xs, ys = lines(fig.axes[1])["host_device_latency_sm"]
    chase = sorted(entries(doc, "transfer/host_device_latency_sm/"), key=lambda b: param(b, "working_set"))
    assert xs == [float(param(b, "working_set")) for b in chase] and xs[0] == 4096.0 and xs[-1] == float(1 << 30)
    assert ys == [b["latency_ns"] for b in chase]
    assert fig.axes[1].get_title() == "one thread chases host memory"
    plt.close(fig)
    fig = draw(doc, "l2persist")
    set_aside, dram = lines(fig.axes[1])["hit_ratio 100, hot_bytes 16 MiB"]
    assert set_aside == [0.0, 25.0, 50.0, 100.0]
    hot = sorted(
        entries(doc, f"l2persist/hot_cold/hot_bytes:{16 << 20}/hit_ratio:100/"), key=lambda b: param(b, "set_aside")
    )
    assert fig.axes[1].get_ylabel() == "model_dram_read_bytes (MB)"
    assert dram == [b["model_dram_read_bytes"] / 1e6 for b in hot]
    plt.close(fig)
    fig = draw(doc, "managed")
    xs, ys = lines(fig.axes[0])["prefetch"]
    prefetch = sorted(entries(doc, "managed/prefetch/"), key=lambda b: param(b, "bytes"))
    assert xs == [float(4 << 20), float(32 << 20), float(256 << 20), float(1 << 30)]
    assert ys == [b["bytes_per_second"] / divisor(fig.axes[0]) for b in prefetch]
    plt.close(fig)


def stream_doc() -> dict:
    doc = {
        "context": {
            "membench_version": "0.1.0",
            "gpu_name": "NVIDIA H200",
            "dram_peak_bytes_per_second": "4814304000000",
        },
        "benchmarks": [],
    }
    for kernel in ("read", "write", "copy", "scale", "add", "triad", "dot"):
        for type_ in ("float", "double"):
            name = f"stream/{kernel}/type:{type_}/elements:134217728/block:256/manual_time"
            doc["benchmarks"].append(
                {
                    "name": name,
                    "run_name": name,
                    "run_type": "iteration",
                    "real_time": 250.0,
                    "time_unit": "us",
                    "bytes": 1.07e9,
                    "bytes_per_second": 4.2e12,
                }
            )
    return doc


def test_stream_and_link_figures_read_as_intended():
    fig = draw(stream_doc(), "stream")
    assert look(fig) == (
        "Stream: the traffic mixes against the DRAM peak\nNVIDIA H200",
        [
            (
                "each kernel, the best block size",
                "variant",
                "bytes_per_second (TB/s)",
                ("linear", "linear"),
                True,
                ["dram peak bytes per second", "type double", "type float"],
                7,
            )
        ],
    )
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [
        "read",
        "write",
        "copy",
        "scale",
        "add",
        "triad",
        "dot",
    ]
    plt.close(fig)
    doc = {"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"}, "benchmarks": []}
    for family, variant, extra in (
        ("transfer", "host_to_device_memcpy_ce", "host:pinned/bytes:4096"),
        ("peer", "device_to_device_memcpy_read_ce", "peer_access:1/bytes:4096"),
        ("peer", "device_to_device_latency_sm", "working_set:2097152/chase_stride:128"),
    ):
        name = f"{family}/{variant}/{extra}/manual_time"
        doc["benchmarks"].append(
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 10.0,
                "time_unit": "us",
                "bytes_per_second": 4e8,
            }
        )
    # One size each: bars, the size named under them.
    links = ("copies over the link", "bytes = 4 KiB", "bytes_per_second (MB/s)", ("linear", "linear"), True)
    fig = draw(doc, "transfer")
    assert look(fig) == (
        "Host <-> device: copy engine and SM over the link\nNVIDIA H200",
        [(*links, None, None)],  # each bar named under it: no legend to repeat it
    )
    assert [round(p.get_height(), 6) for p in fig.axes[0].patches] == [400.0]
    plt.close(fig)
    fig = draw(doc, "peer")
    assert look(fig)[1][0][:5] == links
    assert look(fig)[1][0][5] is None and [t.get_text() for t in fig.axes[0].get_xticklabels()] == [
        "device_to_device_memcpy_read_ce"
    ]
    plt.close(fig)
    # The chase has its own panel, latency by working set, once it has a latency: one working set, one bar.
    chase = next(b for b in doc["benchmarks"] if "latency" in b["name"])
    chase["latency_ns"] = 849.0
    fig = draw(doc, "peer")
    assert look(fig)[1][1] == (
        "one thread chases the peer's memory",
        "working_set = 2 MiB",
        "latency_ns (ns)",
        ("linear", "linear"),
        True,
        None,  # the bar named under it
        None,
    )
    assert [p.get_height() for p in fig.axes[1].patches] == [849.0]
    plt.close(fig)
    # A file of chases alone: the latency panel alone.
    fig = draw({"context": doc["context"], "benchmarks": [chase]}, "peer")
    assert [panel[0] for panel in look(fig)[1]] == ["one thread chases the peer's memory"]
    plt.close(fig)


def bars(ax) -> dict[str, float]:
    """A horizontal bar panel: each row's name and its bar's length."""
    return {t.get_text(): p.get_width() for t, p in zip(ax.get_yticklabels(), ax.patches)}


def test_the_title_names_the_gpu_and_the_day():
    assert (
        figures.title(
            {"context": {"membench_version": "0.1.0", "gpu_name": "G", "date": "2026-12-01T08:00:00+00:00"}}, "x"
        )
        == "x\nG, 2026-12-01"
    )
    assert figures.title({"context": {"membench_version": "0.1.0", "gpu_name": "G"}}, "x") == "x\nG"
    assert figures.title({}, "x") == "x\nunknown GPU"


def test_skipped_cases_and_a_case_without_bandwidth():
    doc = {
        "context": {"membench_version": "0.1.0", "gpu_name": "G"},
        "benchmarks": [
            {"name": "layout/aos/structs:8/fields:4/manual_time", "skipped": True, "skip_message": "too big"}
        ],
    }
    assert plot.by_family(doc) == {}
    doc["benchmarks"].append({"name": "dsmem/chase_local/cluster:2/manual_time", "real_time": 1.0, "latency_ns": 5.0})
    (case,) = plot.by_family(doc)["dsmem"]
    assert case.median("latency_ns") == 5.0 and case.median("bytes_per_second") is None


@pytest.mark.parametrize("family", sorted(RECORDINGS))
def test_each_family_gets_png_and_svg(tmp_path, write_json, family):
    doc = load(RECORDINGS[family])
    assert plot.main([write_json(doc), "--out", str(tmp_path)]) == 0
    for ext in ("png", "svg"):
        image = tmp_path / f"{family}.{ext}"
        assert image.exists() and image.stat().st_size > 5_000, image


def test_the_output_folder_must_be_named(tmp_path, write_json, capsys):
    with pytest.raises(SystemExit) as exit_:
        plot.main([write_json(load("global_layout.json"))])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "plot.py: the following arguments are required: --out\n"


def test_each_mark_sits_where_its_number_is():
    """Reference lines, notes and bars at the values and places they stand for, not only present."""
    # async: the flops panel holds sync, at its best; the stages panel only what has stages.
    doc = load("async.json")
    fig = draw(doc, "async")
    ax_stages, ax_flops, _ = fig.axes  # the third: the roofline
    sync = sorted(entries(doc, "async/sync/"), key=lambda b: param(b, "flops"))
    assert lines(ax_flops)["sync"][1] == [b["bytes_per_second"] / divisor(ax_flops) for b in sync]
    assert all(ls == "-" for ls in (l.get_linestyle() for l in ax_stages.get_lines() if l.get_label()[0] != "_"))
    plt.close(fig)

    # hierarchy: each reported level size upright at its size; the model's ceiling dashed at each working set.
    doc = load("hierarchy.json")
    fig = draw(doc, "hierarchy")
    ax_bw = fig.axes[0]
    upright = {l.get_label(): l.get_xdata()[0] for l in ax_bw.get_lines() if l.get_linestyle() == ":"}
    assert upright == {"l1 shared bytes per sm (256 KiB)": 256 << 10, "l2 bytes (50 MiB)": 50 << 20}
    warm = sorted(
        (b for b in entries(doc, "hierarchy/bandwidth/") if param(b, "l2") != "cold"),
        key=lambda b: param(b, "working_set"),
    )
    (model,) = [l for l in ax_bw.get_lines() if l.get_linestyle() == "--" and l.get_label().startswith("_")]
    assert list(model.get_ydata()) == [b["model_bytes_per_second"] / divisor(ax_bw) for b in warm]
    plt.close(fig)

    # dsmem: both chases on the latency panel, the shared-memory peak in GB/s.
    fig = draw(doc, "dsmem")
    ax_bw, ax_lat = fig.axes[:2]
    local = sorted(entries(doc, "dsmem/chase_local/"), key=lambda b: param(b, "cluster"))
    assert lines(ax_lat)["chase_local"] == (
        [float(param(b, "cluster")) for b in local],
        [b["latency_ns"] for b in local],
    )
    peak = float(doc["context"]["smem_peak_bytes_per_second"])
    assert lines(ax_bw)["smem peak bytes per second"][1] == [peak / 1e12, peak / 1e12]
    plt.close(fig)

    # shared: row alone in its slot, column's pads side by side in theirs; each note over its bar's middle.
    doc = load("shared.json")
    fig = draw(doc, "shared")
    ax_bars = fig.axes[0]
    assert [t.get_text() for t in ax_bars.get_xticklabels()] == ["row", "column", "swizzle"]
    centres = [(round(p.get_x() + p.get_width() / 2, 6), round(p.get_width(), 6)) for p in ax_bars.patches]
    assert sorted(centres) == [(0.0, 0.76), (0.8, 0.38), (1.2, 0.38), (2.0, 0.76)]
    for bar, note in zip(ax_bars.patches, ax_bars.texts):
        assert note.xy == pytest.approx((bar.get_x() + bar.get_width() / 2, bar.get_height()))
    plt.close(fig)

    # stream: float's bars one width right of double's, the tick between them, each number over its bar.
    doc = {"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"}, "benchmarks": []}
    for t, rate in (("double", 4.2e12), ("float", 4.1e12)):
        for kernel in ("read", "copy"):
            name = f"stream/{kernel}/type:{t}/elements:1024/block:256/manual_time"
            doc["benchmarks"].append(
                {
                    "name": name,
                    "run_name": name,
                    "run_type": "iteration",
                    "real_time": 1.0,
                    "time_unit": "us",
                    "bytes_per_second": rate,
                }
            )
    fig = draw(doc, "stream")
    ax = fig.axes[0]
    # Two types share each kernel's 0.8 wide slot, centred on its tick: double left, float right.
    assert [round(p.get_x() + p.get_width() / 2, 9) for p in ax.patches] == [-0.2, 0.8, 0.2, 1.2]
    assert [round(p.get_height(), 9) for p in ax.patches] == [4.2, 4.2, 4.1, 4.1]
    assert [round(x, 9) for x in ax.get_xticks()] == [0.0, 1.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["read", "copy"]
    plt.close(fig)

    # links, one size: the bar at the case's rate, the model's mark across it at the model's rate.
    doc = {"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"}, "benchmarks": []}
    name = "transfer/host_to_device_memcpy_ce/host:pinned/bytes:4096/manual_time"
    doc["benchmarks"].append(
        {
            "name": name,
            "run_name": name,
            "run_type": "iteration",
            "real_time": 1.0,
            "time_unit": "us",
            "bytes_per_second": 4e9,
            "model_bytes_per_second": 63e9,
        }
    )
    fig = draw(doc, "transfer")
    (bar,) = fig.axes[0].patches
    assert (bar.get_x() + bar.get_width() / 2, bar.get_height()) == (0.0, 4.0)
    marks = [l for l in fig.axes[0].get_lines() if l.get_marker() == "_" and l.get_markersize() == 18]
    assert [list(m.get_xydata()[0]) for m in marks] == [[0.0, 63.0]]
    plt.close(fig)


def test_an_unknown_family_is_passed_over_and_the_rest_drawn(tmp_path, write_json, capsys):
    doc = copy.deepcopy(load("global_layout.json"))
    name = "future/variant/n:1/manual_time"  # a family this script does not know, listed first
    doc["benchmarks"].insert(
        0,
        {
            "name": name,
            "run_name": name,
            "run_type": "iteration",
            "real_time": 1.0,
            "time_unit": "us",
            "bytes_per_second": 1e9,
        },
    )
    out = tmp_path / "a" / "b"  # folders made as needed
    assert plot.main([write_json(doc), "--out", str(out), "--formats", "png"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["global.png", "layout.png"]
    assert capsys.readouterr().out.splitlines() == [str(out / "global.png"), str(out / "layout.png")]


def test_a_file_of_unknown_families_alone_is_exit_2(tmp_path, write_json, capsys):
    name = "future/variant/n:1/manual_time"
    doc = {
        "context": {"membench_version": "0.1.0"},
        "benchmarks": [
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "bytes_per_second": 1e9,
            }
        ],
    }
    assert plot.main([write_json(doc), "--out", str(tmp_path / "f")]) == 2
    assert capsys.readouterr().err == "plot.py: no case of a known family ran in this file\n"


# ---- hierarchy, stream, async and node: drawn from their declarations ------------------------

PREFIX = {"T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3}


def divisor(ax) -> float:
    """The factor the panel's y values were divided by, read from its unit: 'bytes_per_second (TB/s)' -> 1e12."""
    unit = ax.get_ylabel().rsplit("(", 1)[-1]
    return PREFIX.get(unit[0], 1.0) if unit[:1] in PREFIX else 1.0


def bench(name: str, **counters) -> dict:
    full = f"{name}/manual_time"
    return {"name": full, "run_name": full, "run_type": "iteration", "real_time": 1.0, "time_unit": "us", **counters}


def test_async_draws_stages_and_the_best_of_stages_and_tiles_by_intensity():
    doc = load("async.json")
    fig = draw(doc, "async")
    ax_stages, ax_flops = fig.axes[:2]
    pipeline0 = sorted(
        (b for b in entries(doc, "async/pipeline/") if param(b, "flops") == 0), key=lambda b: param(b, "stages")
    )
    xs, ys = lines(ax_stages)["pipeline, flops 0"]
    assert xs == [float(param(b, "stages")) for b in pipeline0]
    assert ys == [b["bytes_per_second"] / divisor(ax_stages) for b in pipeline0]
    assert not any(label.startswith("sync") for label in lines(ax_stages))  # sync has no stages
    best = lines(ax_flops)["pipeline"]
    flops = sorted({param(b, "flops") for b in entries(doc, "async/pipeline/")})
    assert best[0] == [float(f) for f in flops]
    assert best[1] == [
        max(b["bytes_per_second"] for b in entries(doc, "async/pipeline/") if param(b, "flops") == f)
        / divisor(ax_flops)
        for f in flops
    ]
    plt.close(fig)


def test_stream_bars_are_each_kernels_best_block_beside_the_dram_peak():
    context = {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200", "dram_peak_bytes_per_second": "4814304000000"}
    doc = {"context": context, "benchmarks": []}
    best = {}
    for k, kernel in enumerate(("read", "write", "copy", "scale", "add", "triad", "dot")):
        for block, rate in ((128, 4.1e12 + k * 1e10), (256, 4.0e12)):
            doc["benchmarks"].append(
                bench(f"stream/{kernel}/type:double/elements:{1 << 27}/block:{block}", bytes_per_second=rate)
            )
        best[kernel] = 4.1e12 + k * 1e10
    fig = draw(doc, "stream")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "bytes_per_second (TB/s)"
    assert [round(p.get_height(), 6) for p in ax.patches] == [round(v / 1e12, 6) for v in best.values()]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(best)
    assert lines(ax)["dram peak bytes per second"][1] == [4.814304, 4.814304]
    plt.close(fig)


def test_hierarchy_keeps_cold_and_warm_apart_and_marks_the_level_sizes():
    context = {
        "membench_version": "0.1.0",
        "gpu_name": "NVIDIA H200",
        "l2_bytes": str(60 << 20),
        "l1_shared_bytes_per_sm": str(256 << 10),
    }
    doc = {
        "context": context,
        "benchmarks": [
            bench("hierarchy/latency/l2:cold/working_set:16384/chase_stride:64", latency_ns=200.0),
            bench("hierarchy/latency/l2:cold/working_set:32768/chase_stride:64", latency_ns=210.0),
            bench("hierarchy/latency/working_set:16384/chase_stride:64", latency_ns=17.0),
            bench("hierarchy/latency/working_set:32768/chase_stride:64"),  # no latency: not drawn
            bench("hierarchy/bandwidth/working_set:16384", bytes_per_second=2.8e13, model_bytes_per_second=3.3e13),
            bench("hierarchy/bandwidth/working_set:65536", bytes_per_second=2.7e13, model_bytes_per_second=3.3e13),
        ],
    }
    fig = draw(doc, "hierarchy")
    ax_bw, ax_lat = fig.axes
    drawn = lines(ax_lat)
    assert drawn["l2 cold"] == ([16384.0, 32768.0], [200.0, 210.0]) and drawn["latency"] == ([16384.0], [17.0])
    upright = sorted(
        l.get_xdata()[0] for l in ax_bw.get_lines() if "bytes" in l.get_label() and l.get_linestyle() == ":"
    )
    assert upright == [256 << 10, 60 << 20]
    model = [l for l in ax_bw.get_lines() if l.get_linestyle() == "--" and l.get_label().startswith("_")]
    assert [list(l.get_ydata()) for l in model] == [[33.0, 33.0]]
    assert ax_bw.get_xscale() == "log" and ax_lat.get_yscale() == "log"
    plt.close(fig)


def test_hierarchy_bandwidth_lines_are_named_by_what_differs():
    doc = {
        "context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"},
        "benchmarks": [
            bench(f"hierarchy/bandwidth/working_set:{ws}/width:{width}/persistent:{persistent}", bytes_per_second=bw)
            for ws, width, persistent, bw in (
                (8 << 20, 16, 1, 9.3e12),
                (16 << 20, 16, 1, 9.1e12),
                (8 << 20, 16, 0, 1.0e13),
                (8 << 20, 8, 1, 9.7e12),
            )
        ],
    }
    fig = draw(doc, "hierarchy")
    assert lines(fig.axes[0]) == {
        "persistent 0, width 16 B": ([float(8 << 20)], [10.0]),
        "persistent 1, width 8 B": ([float(8 << 20)], [9.7]),
        "persistent 1, width 16 B": ([float(8 << 20), float(16 << 20)], [9.3, 9.1]),
    }
    plt.close(fig)
    doc["benchmarks"] = doc["benchmarks"][:2]  # one grid and one width: the line is the variant's
    fig = draw(doc, "hierarchy")
    assert set(lines(fig.axes[0])) == {"bandwidth"}
    plt.close(fig)


def test_node_bars_are_each_variants_rate_with_the_links_model_on_it():
    doc = {
        "context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"},
        "benchmarks": [
            bench(
                "node/all_to_host_memcpy_ce/bytes:536870912", bytes_per_second=1.1e11, model_bytes_per_second=1.26e11
            ),
            bench(
                "node/all_to_all_memcpy_write_ce/bytes:536870912",
                bytes_per_second=7.8e11,
                model_bytes_per_second=9.0e11,
            ),
        ],
    }
    fig = draw(doc, "node")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["all_to_host_memcpy_ce", "all_to_all_memcpy_write_ce"]
    assert [round(p.get_height(), 6) for p in ax.patches] == [110.0, 780.0]
    marks = [l for l in ax.get_lines() if l.get_marker() == "_" and l.get_label().startswith("_")]
    assert [[round(float(y), 6) for y in m.get_ydata()] for m in marks] == [[126.0, 900.0]]
    assert [round(float(x), 6) for x in marks[0].get_xdata()] == [
        round(p.get_x() + p.get_width() / 2, 6) for p in ax.patches
    ]
    plt.close(fig)


def renamed(entry: dict, name: str) -> dict:
    return {**entry, "name": name, "run_name": name}


def test_an_unknown_format_is_told_the_formats_there_are(tmp_path, write_json, capsys):
    from matplotlib.backend_bases import FigureCanvasBase

    assert plot.main([write_json(load("global_layout.json")), "--out", str(tmp_path), "--formats", "bmpx"]) == 2
    supported = ", ".join(sorted(FigureCanvasBase.get_supported_filetypes()))
    assert (
        capsys.readouterr().err.strip().endswith(f"not an image format matplotlib writes (one or more of {supported})")
    )


def test_a_case_that_lacks_its_figures_axis_is_left_out_of_it(tmp_path, write_json):
    doc = copy.deepcopy(load("global.json"))
    strided = entries(doc, "global/strided/")[0]
    doc["benchmarks"].append(renamed(strided, f"global/strided/n:{param(strided, 'n')}/manual_time"))  # no stride
    fig = draw(doc, "global")
    assert (
        sum(len(line.get_xdata()) for line in fig.axes[0].get_lines() if line.get_label() == "strided")
        == len(entries(doc, "global/strided/")) - 1
    )
    plt.close(fig)
    assert plot.main([write_json(doc), "--out", str(tmp_path / "f")]) == 0
