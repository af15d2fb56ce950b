"""Figures that read other cases, as a family declares them: a model line computed from another case (memcpy's
rate x useful / DRAM bytes), y as a slowdown against another case, and counters noted on each point. global,
layout and shared are drawn from their declarations alone; a file written before they declared any gets them
from membench.compat."""

from __future__ import annotations

import copy

import matplotlib.pyplot as plt
import pytest
from conftest import load

from membench import compat
from membench import declarations as md
from membench import figures
from membench import plot
from membench import results as mr

COUNTERS = {
    "bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured"},
    "latency_ns": {"unit": "ns", "better": "lower", "kind": "measured"},
    "bytes": {"unit": "B", "better": "neither", "kind": "configuration"},
    "dram_read_bytes": {"unit": "B", "better": "neither", "kind": "model"},
    "dram_write_bytes": {"unit": "B", "better": "neither", "kind": "model"},
    "conflict_ways": {"unit": "ways", "better": "neither", "kind": "model"},
    "blocks_per_sm": {"unit": "blocks", "better": "neither", "kind": "configuration"},
}


def bench(name: str, **counters) -> dict:
    name += "/manual_time"
    return {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "time_unit": "us", **counters}


def doc_of(family: str, figures_: list[dict], benchmarks: list[dict], version: int = 3) -> dict:
    """A file of one family that declares these figures, as membench writes it."""
    return {
        "context": {"membench_version": "9", "gpu_name": "G"},
        "benchmarks": benchmarks,
        "membench": {
            "schema_version": version,
            "complete": True,
            "counters": COUNTERS,
            "families": {family: {"title": family, "axes": [], "figures": figures_}},
        },
    }


def draw(doc: dict, family: str) -> plt.Figure:
    fig = plt.figure()
    assert plot.draw_family(doc, family, plot.by_family(doc)[family], fig)
    return fig


def dashed(ax) -> list[list[float]]:
    """The dashed lines drawn (not the legend's sample of one, which has no points)."""
    return [
        [float(y) for y in line.get_ydata()]
        for line in ax.get_lines()
        if line.get_linestyle() == "--" and len(line.get_ydata())
    ]


def marks(ax) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for line in ax.get_lines() if line.get_marker() == "_" for x, y in line.get_xydata()]


def strided_doc(version: int = 3, figures_: list[dict] | None = None) -> dict:
    """strided at three strides and memcpy, at two n; the DRAM model's bytes a sector pair read per element."""
    rows = []
    for n in (1 << 20, 1 << 24):
        rows.append(bench(f"global/memcpy/n:{n}", bytes_per_second=2e12 * n / (1 << 24), bytes=8.0 * n))
        for stride in (1, 2, 4):
            rows.append(
                bench(
                    f"global/strided/n:{n}/stride:{stride}",
                    bytes_per_second=1e12 / stride,
                    bytes=8.0 * n,
                    dram_read_bytes=8.0 * n * stride,
                    dram_write_bytes=4.0 * n,
                )
            )
    return doc_of("global", compat._DRAWN_BY_HAND["global"] if figures_ is None else figures_, rows, version)


def test_a_model_from_another_case_is_that_cases_rate_times_useful_over_dram_bytes():
    doc = strided_doc()
    fig = draw(doc, "global")
    ax = fig.axes[0]
    assert ax.get_title() == "strided reads: two launch geometries, two read paths"
    # Each n its own line, and its own model: that n's memcpy rate x bytes / (read + write DRAM bytes).
    for n, line in zip((1 << 20, 1 << 24), sorted(dashed(ax))):
        rate = 2e12 * n / (1 << 24)
        expected = [rate * 8 * n / (8 * n * s + 4 * n) / 1e12 for s in (1, 2, 4)]
        assert line == pytest.approx(expected), n
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[-1] == "dashed: memcpy's rate x useful / modelled DRAM bytes"
    plt.close(fig)


def test_a_counterpart_shares_every_other_axis_and_tag_and_is_one_case():
    cases = list(mr.cases(strided_doc()).values())
    of = md.Pattern("memcpy", ())
    strided = next(c for c in cases if c.variant == "strided" and c.params["n"] == 1 << 20)
    assert figures.counterpart(of, strided, cases).params == {"n": 1 << 20}
    # A cold case reads beside the cold memcpy, a warm one beside the warm.
    doc = strided_doc()
    doc["benchmarks"] += [bench("global/memcpy/l2:cold/n:1048576", bytes_per_second=1.0)]
    doc["benchmarks"] += [bench("global/strided/l2:cold/n:1048576/stride:1", bytes_per_second=1.0, bytes=1.0)]
    cases = list(mr.cases(doc).values())
    cold = next(c for c in cases if c.variant == "strided" and c.params.get("l2") == "cold")
    assert figures.counterpart(of, cold, cases).params == {"l2": "cold", "n": 1 << 20}
    assert figures.counterpart(of, strided, cases).params == {"n": 1 << 20}
    # Two that share as much: none, not a guess; none at all: none.
    doc["benchmarks"] += [bench("global/memcpy/stride:1", bytes_per_second=1.0)]
    assert figures.counterpart(of, strided, list(mr.cases(doc).values())) is None
    assert figures.counterpart(md.Pattern("broadcast", ()), strided, cases) is None


def test_the_model_adds_whichever_dram_sides_it_has_and_needs_its_counterpart():
    figure = md.families(strided_doc())["global"].figures[0]
    rows = [
        bench("global/memcpy/n:8", bytes_per_second=8e9),
        bench("global/strided/n:8/stride:1", bytes=1000.0, dram_read_bytes=4000.0),
        bench("global/strided/n:8/stride:2", bytes=1000.0, dram_write_bytes=2000.0),
        bench("global/strided/n:8/stride:4", bytes=1000.0),
        bench("global/strided/n:16/stride:1", bytes=1000.0, dram_read_bytes=4000.0),
    ]
    cases = list(mr.cases(doc_of("global", [], rows)).values())
    by_stride = {(c.params["n"], c.params.get("stride")): c for c in cases}
    assert figures.model_value(figure, by_stride[(8, 1)], cases) == 2e9
    assert figures.model_value(figure, by_stride[(8, 2)], cases) == 4e9
    assert figures.model_value(figure, by_stride[(8, 4)], cases) is None  # no DRAM bytes modelled
    assert figures.model_value(figure, by_stride[(16, 1)], cases) is None  # no memcpy at that n


def test_a_slowdown_is_how_many_times_slower_than_the_case_it_is_set_against():
    slow = [{"heading": "h", "x": "stride", "y": "bytes_per_second", "model": "conflict_ways",
             "slowdown_vs": {"variant": "v", "axes": {"stride": 1}}}]  # fmt: skip
    rows = [
        bench(f"toy/v/width:{w}/stride:{s}", bytes_per_second=4e12 / (s * w), conflict_ways=float(s))
        for w in (1, 2)
        for s in (1, 2, 4)
    ]
    fig = draw(doc_of("toy", slow, rows), "toy")
    ax = fig.axes[0]
    lines = {l.get_label(): [float(y) for y in l.get_ydata()] for l in ax.get_lines() if l.get_linestyle() == "-"}
    assert lines == {"width 1": [1.0, 2.0, 4.0], "width 2": [1.0, 2.0, 4.0]}  # each width against its own stride 1
    assert dashed(ax) == [[1.0, 2.0, 4.0], [1.0, 2.0, 4.0]]  # the model counter, a factor too
    assert ax.get_ylabel() == "slowdown against v, stride 1 (x)"
    plt.close(fig)
    # Where lower is better (a latency), the slowdown is the case's time over its baseline's.
    slow[0]["y"] = "latency_ns"
    rows = [bench(f"toy/v/width:1/stride:{s}", latency_ns=10.0 * s) for s in (1, 3)]
    fig = draw(doc_of("toy", slow, rows), "toy")
    assert [float(y) for y in fig.axes[0].get_lines()[0].get_ydata()] == [1.0, 3.0]
    plt.close(fig)
    # A case without its baseline (no width 2 at stride 1) is left out, not drawn against another width's.
    fig = draw(doc_of("toy", slow, rows + [bench("toy/v/width:2/stride:3", latency_ns=5.0)]), "toy")
    assert [len(l.get_xdata()) for l in fig.axes[0].get_lines() if l.get_linestyle() == "-"] == [2]
    plt.close(fig)


def test_layout_bars_carry_the_aos_all_fields_mark_in_black():
    rows = []
    for structs in (1 << 20, 1 << 24):
        for variant, fields, rate in (("aos", 4, 4e12), ("aos", 1, 1e12), ("soa", 4, 3.9e12), ("soa", 1, 3.6e12)):
            rows.append(
                bench(
                    f"layout/{variant}/structs:{structs}/fields:{fields}",
                    bytes_per_second=rate * structs / (1 << 24),
                    bytes=8.0 * fields * structs,
                    dram_read_bytes=16.0 * structs,
                    dram_write_bytes=16.0 * structs if variant == "aos" else 8.0 * fields * structs,
                )
            )
    doc = doc_of("layout", compat._DRAWN_BY_HAND["layout"], rows)
    fig = draw(doc, "layout")
    ax = fig.axes[0]
    cases = list(mr.cases(doc).values())
    figure = md.families(doc)["layout"].figures[0]
    expected = sorted(figures.model_value(figure, c, cases) / 1e12 for c in cases)
    assert sorted(y for _, y in marks(ax)) == pytest.approx(expected)
    full = next(c for c in cases if c.variant == "aos" and c.params == {"structs": 1 << 24, "fields": 4})
    assert figures.model_value(figure, full, cases) == full.median("bytes_per_second")  # every byte useful: itself
    one = next(c for c in cases if c.variant == "aos" and c.params == {"structs": 1 << 24, "fields": 1})
    assert figures.model_value(figure, one, cases) == full.median("bytes_per_second") / 4  # a quarter of it useful
    assert {line.get_color() for line in ax.get_lines() if line.get_marker() == "_" and len(line.get_xdata())} == {
        "black"
    }
    # Each mark on its bar's centre.
    centres = sorted(round(p.get_x() + p.get_width() / 2, 6) for p in ax.patches)
    assert sorted(round(x, 6) for x, _ in marks(ax)) == centres
    plt.close(fig)


def test_shared_notes_each_bar_with_its_counters_in_their_units():
    doc = copy.deepcopy(load("shared.json"))
    doc["membench"] = {"schema_version": 1, "counters": COUNTERS}  # the units a catalog gives the notes
    doc["benchmarks"] += [
        bench(f"shared/column_tile/side:4096/tile_side:{side}/pad:{pad}", bytes_per_second=rate * 1e9,
              conflict_ways=ways, blocks_per_sm=blocks)
        for side, pad, rate, ways, blocks in ((16, 0, 2135, 8, 16), (16, 1, 2152, 2, 16), (64, 1, 1347, 1, 9))
    ]  # fmt: skip
    fig = draw(doc, "shared")
    ax_bars, ax_curve, ax_tiles = fig.axes
    matrix = [c for c in plot.by_family(doc)["shared"] if c.variant in ("row", "column", "swizzle")]
    assert sorted(t.get_text() for t in ax_bars.texts) == sorted(
        f"{c.median('conflict_ways'):g} way{'s' if c.median('conflict_ways') != 1 else ''}" for c in matrix
    )
    assert "32 ways" in [t.get_text() for t in ax_bars.texts]  # the column read of tile[32][32]
    assert sorted(t.get_text() for t in ax_tiles.texts) == ["1 way, 9 blocks", "2 ways, 16 blocks", "8 ways, 16 blocks"]
    assert [t.get_text() for t in ax_tiles.get_xticklabels()] == ["16", "64"]
    # One counter reads across its bar; two stand upright, to fit over a narrow one.
    assert {t.get_rotation() for t in ax_bars.texts} == {0.0} and {t.get_rotation() for t in ax_tiles.texts} == {90.0}
    # The curve: each width's slowdown against its stride 1, and conflict_ways dashed beside it.
    degree = sorted(
        (c for c in plot.by_family(doc)["shared"] if c.variant == "conflict_degree" and c.params["width"] == 4),
        key=lambda c: c.params["shared_stride"],
    )
    base = next(c for c in degree if c.params["shared_stride"] == 1).median("bytes_per_second")
    (measured,) = [l for l in ax_curve.get_lines() if l.get_label() == "width 4"]
    assert [float(y) for y in measured.get_ydata()] == pytest.approx(
        [base / c.median("bytes_per_second") for c in degree]
    )
    assert [c.median("conflict_ways") for c in degree] in dashed(ax_curve)
    plt.close(fig)


def test_a_file_before_schema_3_gets_the_figures_these_families_declare_since():
    rows = strided_doc()["benchmarks"]
    for version in (1, 2):
        declared = md.families(doc_of("global", [], rows, version))["global"].figures
        assert [f.heading for f in declared] == [f["heading"] for f in compat._DRAWN_BY_HAND["global"]]
        assert declared[0].model_from == md.ModelFrom(
            "memcpy's rate x useful / modelled DRAM bytes",
            md.Pattern("memcpy", ()),
            ("bytes",),
            ("dram_read_bytes", "dram_write_bytes"),
        )
    # A file of schema 3 says what its family declares, nothing included.
    assert md.families(doc_of("global", [], rows, 3))["global"].figures == ()
    assert compat.old_figures("stream", 2) == [] and compat.old_figures("shared", "2") != []
    fig = plt.figure()
    doc = doc_of("global", [], rows, 3)
    assert not plot.draw_family(doc, "global", plot.by_family(doc)["global"], fig)
    plt.close(fig)


@pytest.mark.parametrize(
    "damage, message",
    [
        ({"model_from": {"variant": "", "times": [], "over": []}}, "names other cases by a variant"),
        ({"model_from": {"variant": "v", "axes": {"n": True}, "times": [], "over": []}}, "names other cases"),
        ({"model_from": {"variant": "v", "times": "bytes", "over": []}}, "needs a label and lists times and over"),
        ({"slowdown_vs": ["v"]}, "slowdown_vs: names other cases"),
        ({"notes": "conflict_ways"}, "lists of names"),
    ],
)
def test_a_malformed_reference_to_other_cases_is_one_line(damage, message):
    figure = {"heading": "h", "x": "stride", "y": "bytes_per_second", **damage}
    with pytest.raises(mr.InputError, match=message):
        md.families(doc_of("global", [figure], strided_doc()["benchmarks"]))


def test_the_best_of_a_swept_axis_is_the_lowest_where_lower_is_better():
    best = [{"heading": "h", "x": "stride", "y": "latency_ns", "best_of": ["block"]}]
    rows = [bench(f"toy/v/stride:{s}/block:{b}", latency_ns=float(s * b)) for s in (1, 2) for b in (64, 128)]
    fig = draw(doc_of("toy", best, rows), "toy")
    (line,) = [l for l in fig.axes[0].get_lines() if len(l.get_xdata())]
    assert [float(y) for y in line.get_ydata()] == [64.0, 128.0]  # block 64 at each stride: the lower latency
    plt.close(fig)
    best[0]["y"] = "bytes_per_second"  # where higher is better, the higher
    rows = [bench(f"toy/v/stride:{s}/block:{b}", bytes_per_second=float(s * b)) for s in (1, 2) for b in (64, 128)]
    fig = draw(doc_of("toy", best, rows), "toy")
    (line,) = [l for l in fig.axes[0].get_lines() if len(l.get_xdata())]
    assert [float(y) for y in line.get_ydata()] == [128.0, 256.0]
    plt.close(fig)


def test_an_axis_the_family_lists_without_a_unit_takes_the_one_the_catalogs_cases_give_it():
    doc = doc_of("toy", [], [bench("toy/v/n:4/span:8", bytes_per_second=1.0)])
    doc["membench"]["cases"] = [
        {"name": "toy/v/n:4/span:8", "family": "toy", "variant": "v", "tags": {},
         "axes": [{"name": "n", "unit": "floats", "value": 4}, {"name": "span", "unit": "bytes", "value": 8}]}
    ]  # fmt: skip
    family = md.families(doc)["toy"]
    assert [figures.axis_unit(doc, family, a) for a in ("span", "n", "other")] == ["bytes", "floats", ""]


def test_bars_along_a_byte_axis_are_named_by_their_sizes():
    bars = [{"heading": "h", "x": "span", "y": "bytes_per_second", "bars": True}]
    doc = doc_of("toy", bars, [bench(f"toy/v/span:{s}", bytes_per_second=1e9) for s in (4096, 1 << 20)])
    doc["membench"]["families"]["toy"]["axes"] = [{"name": "span", "unit": "bytes"}]
    fig = draw(doc, "toy")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["4 KiB", "1 MiB"]
    assert fig.axes[0].get_xlabel() == "span (bytes)"
    plt.close(fig)
