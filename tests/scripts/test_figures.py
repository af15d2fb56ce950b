"""Figures drawn from what a family declares in the file: a toy family no script names gets its figure, and
the drawing keeps apart what differs, shows each point's spread, starts rates at zero and ticks integers."""

from __future__ import annotations

import copy

from membench import figures
import matplotlib.pyplot as plt
from membench import declarations as md
from membench import results as mr
from membench import plot
import pytest


def toy_doc(points: list[tuple[str, int, float]], *, extra_axis: str = "", reps: int = 1) -> dict:
    """A file of a 'toy' family (variant, span, bytes per second) that carries its own declarations."""
    doc = {
        "context": {"membench_version": "9", "gpu_name": "Toy GPU", "dram_peak_bytes_per_second": "4.8e12"},
        "benchmarks": [],
        "membench": {
            "schema_version": 1,
            "complete": True,
            "counters": {
                "bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured"},
                "model_bytes_per_second": {"unit": "B/s", "better": "neither", "kind": "model"},
                "real_time": {"unit": "us", "better": "lower", "kind": "measured"},
            },
            "families": {
                "toy": {
                    "title": "Toy: a family no script names",
                    "study": "",
                    "axes": [
                        {"name": "span", "unit": "bytes", "help": ""},
                        {"name": "order", "unit": "name", "help": "", "names": ["forward", "backward"]},
                    ],
                    "figures": [
                        {
                            "heading": "reads by span",
                            "x": "span",
                            "x_log": True,
                            "y": "bytes_per_second",
                            "y_log": False,
                            "model": "model_bytes_per_second",
                            "variants": [],
                            "lines": ["dram_peak_bytes_per_second"],
                        }
                    ],
                }
            },
        },
    }
    for variant, span, rate in points:
        name = f"toy/{variant}/{extra_axis}span:{span}/manual_time"
        for r in range(reps):
            doc["benchmarks"].append(
                {
                    "name": name,
                    "run_name": name,
                    "run_type": "iteration",
                    "real_time": 1.0,
                    "time_unit": "us",
                    "bytes_per_second": rate * (1 + 0.1 * r),
                    "model_bytes_per_second": 2e12,
                    "noise_pct": 5.0,
                    "repetition_index": r,
                }
            )
    return doc


def draw(doc: dict) -> plt.Figure:
    fig = plt.figure()
    assert plot.draw_family(doc, "toy", plot.by_family(doc)["toy"], fig)
    return fig


def drawn(ax) -> dict[str, tuple[list[float], list[float]]]:
    return {
        l.get_label(): ([float(x) for x in l.get_xdata()], [float(y) for y in l.get_ydata()])
        for l in ax.get_lines()
        if not l.get_label().startswith("_")
    }


SPANS = (4096, 1 << 20, 1 << 26)


def test_a_family_no_script_names_gets_its_figure_from_the_file(tmp_path, write_json):
    doc = toy_doc([("read", s, 1e12 * (k + 1)) for k, s in enumerate(SPANS)])
    assert plot.main([write_json(doc), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert (tmp_path / "toy.png").stat().st_size > 5_000
    fig = draw(doc)
    (ax,) = fig.axes
    assert fig._suptitle.get_text() == "Toy: a family no script names\nToy GPU"
    assert ax.get_title() == "reads by span"
    assert ax.get_ylabel() == "bytes_per_second (TB/s)"
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4 KiB", "1 MiB", "64 MiB"]
    assert drawn(ax)["read"] == ([float(s) for s in SPANS], [1.0, 2.0, 3.0])
    assert drawn(ax)["dram peak bytes per second"][1] == [4.8, 4.8]
    model = [l for l in ax.get_lines() if l.get_linestyle() == "--" and l.get_label().startswith("_")]
    assert [list(l.get_ydata()) for l in model] == [[2.0, 2.0, 2.0]]
    plt.close(fig)


def test_points_that_differ_in_an_axis_not_drawn_are_never_joined():
    doc = toy_doc([("read", s, 1e12) for s in SPANS], extra_axis="device:0/")
    more = toy_doc([("read", s, 2e12) for s in SPANS], extra_axis="device:1/")
    doc["benchmarks"] += more["benchmarks"]
    fig = draw(doc)
    lines = drawn(fig.axes[0])
    assert lines["device 0"][1] == [1.0, 1.0, 1.0] and lines["device 1"][1] == [2.0, 2.0, 2.0]
    assert all(xs == sorted(xs) for xs, _ in lines.values())  # each line runs left to right
    plt.close(fig)


def test_twelve_lines_have_twelve_colours():
    doc = toy_doc([(f"v{k:02d}", s, 1e12 + k) for k in range(12) for s in SPANS])
    fig = draw(doc)
    colours = {
        tuple(l.get_color())
        for l in fig.axes[0].get_lines()
        if not l.get_label().startswith("_")
        and l.get_label() != "dram peak bytes per second"
        and not l.get_label().startswith("dashed")
    }
    assert len(colours) == 12
    plt.close(fig)


def test_one_size_is_drawn_as_bars_not_a_column_of_dots():
    doc = toy_doc([("read", 4096, 1e12), ("write", 4096, 2e12)])
    fig = draw(doc)
    ax = fig.axes[0]
    assert [round(p.get_height(), 6) for p in ax.patches] == [1.0, 2.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["read", "write"]
    assert ax.get_xlabel() == "span = 4 KiB"
    plt.close(fig)


def test_each_point_carries_its_spread_and_rates_start_at_zero():
    doc = toy_doc([("read", s, 1e12) for s in SPANS], reps=3)  # 1.0, 1.1, 1.2 TB/s at each span
    fig = draw(doc)
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0
    bars = [c for c in ax.containers if c.__class__.__name__ == "ErrorbarContainer"]
    assert len(bars) == 1
    segments = bars[0].lines[2][0].get_segments()
    assert [round(float(seg[1][1] - seg[0][1]), 6) for seg in segments] == [0.2] * 3  # +- one stdev (0.1)
    plt.close(fig)
    single = toy_doc([("read", s, 1e12) for s in SPANS])  # one repetition: its noise, 5%
    fig = draw(single)
    (bars,) = [c for c in fig.axes[0].containers if c.__class__.__name__ == "ErrorbarContainer"]
    assert [round(float(seg[1][1] - seg[0][1]), 6) for seg in bars.lines[2][0].get_segments()] == [0.1] * 3
    plt.close(fig)


def test_a_flat_line_has_room_above_it_and_does_not_run_along_the_frame():
    doc = toy_doc([("read", s, r) for s, r in zip(SPANS, (2.65e12, 2.66e12, 2.67e12))])  # within 1%
    figure = doc["membench"]["families"]["toy"]["figures"][0]
    figure["model"], figure["lines"] = "", []  # the points alone, nothing higher beside them
    for case in doc["benchmarks"]:
        case["noise_pct"] = 0.1
    fig = draw(doc)
    low, high = fig.axes[0].get_ylim()
    assert low == 0
    assert high >= 2.67 * 1.05 - 1e-9  # TB/s
    plt.close(fig)


def test_a_log_y_axis_is_labelled_at_1_2_and_5_of_each_decade_in_plain_numbers():
    doc = toy_doc([("read", s, r) for s, r in zip(SPANS, (1.6e13, 1.4e14, 3.4e14))])  # 16 to 340 TB/s: over a decade
    doc["membench"]["families"]["toy"]["figures"][0]["y_log"] = True
    fig = draw(doc)
    ax = fig.axes[0]
    fig.canvas.draw()
    low, high = ax.get_ylim()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text() and low <= t.get_position()[1] <= high]
    assert ax.get_yscale() == "log" and len(labels) >= 3, labels
    assert all("e" not in l and "$" not in l for l in labels), labels  # no exponents, no mathtext
    plt.close(fig)


def test_a_named_axis_on_x_follows_its_declared_order_and_an_integer_axis_has_integer_ticks():
    doc = toy_doc([])
    doc["membench"]["families"]["toy"]["figures"] = [
        {"heading": "", "x": "order", "y": "bytes_per_second"},
        {"heading": "", "x": "span", "y": "bytes_per_second"},
    ]
    for order, rate in (("backward", 2e12), ("forward", 1e12)):
        for span in (1, 2, 3):
            name = f"toy/read/order:{order}/span:{span}/manual_time"
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
    doc["membench"]["families"]["toy"]["axes"][0]["unit"] = "blocks"
    fig = draw(doc)
    by_order, by_span = fig.axes
    assert [t.get_text() for t in by_order.get_xticklabels()] == ["forward", "backward"]
    assert all(float(t).is_integer() for t in by_span.get_xticks())
    assert by_span.get_xlabel() == "span (blocks)"
    plt.close(fig)


@pytest.mark.parametrize(
    "damage",
    [
        lambda f: f.update(figures="all"),
        lambda f: f["figures"][0].update(x=3),
        lambda f: f["figures"][0].pop("y"),
        lambda f: f["figures"][0].update(x_log="yes"),
        lambda f: f["figures"][0].update(lines=[1]),
    ],
)
def test_a_bad_declaration_is_one_line_and_exit_2(tmp_path, write_json, capsys, damage):
    doc = toy_doc([("read", 4096, 1e12)])
    damage(doc["membench"]["families"]["toy"])
    assert plot.main([write_json(doc), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "membench.families.toy" in err and ".json: " in err, err


def test_scale_picks_a_readable_prefix():
    assert figures.scale("B/s", [4.2e12]) == (1e12, "TB/s")
    assert figures.scale("updates/s", [3e9]) == (1e9, "G updates/s")
    assert figures.scale("ns", [1200.0]) == (1.0, "ns")
    assert figures.scale("B", [512.0]) == (1.0, "B")


def test_an_old_file_gets_the_declarations_it_would_have_carried():
    doc = {
        "context": {"membench_version": "0.1"},
        "benchmarks": [
            {
                "name": "atomics/add/word:u32/space:global/shared_by:warp/updates:16/manual_time",
                "run_type": "iteration",
                "real_time": 1.0,
                "time_unit": "us",
                "updates_per_second": 1e9,
            }
        ],
    }
    (atomics,) = md.families(doc).values()
    assert atomics.title.startswith("Atomics")
    assert atomics.axis_names("shared_by") == ["grid", "block", "warp", "thread"]
    assert [f.y for f in atomics.figures] == ["updates_per_second"]
    new = copy.deepcopy(doc)
    new["membench"] = {"schema_version": 1, "counters": {}, "families": {}}
    assert md.families(new) == {}  # a file that declares nothing for a family is not given the old declarations


@pytest.mark.parametrize(
    "damage",
    [
        lambda f: f.update(title=3),
        lambda f: f.update(axes=["span"]),
        lambda f: f.update(study_rows={}),
        lambda f: f.update(
            study_rows=[
                {"table": 1, "table_title": 5, "label": "l", "case": "c", "article_gb_per_second": 1.0, "counters": []}
            ]
        ),
        lambda f: f.update(
            study_rows=[
                {
                    "table": 1,
                    "table_title": "t",
                    "label": "l",
                    "case": "c",
                    "article_gb_per_second": True,
                    "counters": [],
                }
            ]
        ),
        lambda f: f.update(
            study_rows=[
                {
                    "table": 1,
                    "table_title": "t",
                    "label": "l",
                    "case": "c",
                    "article_gb_per_second": 1.0,
                    "counters": [1],
                }
            ]
        ),
        lambda f: f.update(
            study_rows=[
                {
                    "table": "1",
                    "table_title": "t",
                    "label": "l",
                    "case": "c",
                    "article_gb_per_second": 1.0,
                    "counters": [],
                }
            ]
        ),
    ],
)
def test_a_bad_family_entry_is_refused(damage):
    doc = toy_doc([("read", 4096, 1e12)])
    damage(doc["membench"]["families"]["toy"])
    with pytest.raises(mr.InputError, match=r"^membench\.families\.toy"):  # the message starts with where
        md.families(doc)


def test_a_familys_study_and_rows_are_read_as_declared():
    doc = toy_doc([("read", 4096, 1e12)])
    toy = doc["membench"]["families"]["toy"]
    toy["study"] = "the article's fourth table"
    toy["study_rows"] = [
        {
            "table": 2,
            "table_title": "B",
            "label": "second",
            "case": "toy/read/span:4096",
            "article_gb_per_second": 2,
            "counters": ["x"],
        },
        {
            "table": 1,
            "table_title": "A",
            "label": "first",
            "case": "toy/read/span:4096",
            "article_gb_per_second": 1.5,
            "counters": [],
        },
    ]
    family = md.families(doc)["toy"]
    assert family.study == "the article's fourth table"
    assert [r.label for r in md.study_rows(doc)] == ["first", "second"]  # by table, then as declared
    assert md.study_rows(doc)[1] == md.StudyRow(2, "B", "second", "toy/read/span:4096", 2.0, ("x",), "")
    figure = family.figures[0]
    assert (figure.x_log, figure.y_log, figure.bars, figure.model) == (True, False, False, "model_bytes_per_second")
    assert figure.lines == ("dram_peak_bytes_per_second",) and figure.vlines == () and figure.best_of == ()


def test_two_repetitions_give_their_own_spread_not_the_noise():
    doc = toy_doc([("read", s, 1e12) for s in SPANS], reps=2)  # 1.0 and 1.1 TB/s: sd 0.0707, noise 5% would be 0.05
    fig = draw(doc)
    (bars,) = [c for c in fig.axes[0].containers if c.__class__.__name__ == "ErrorbarContainer"]
    assert [round(float(seg[1][1] - seg[0][1]), 4) for seg in bars.lines[2][0].get_segments()] == [0.1414] * 3
    plt.close(fig)


def test_the_bars_of_one_size_are_labelled_under_their_centres_and_a_count_is_no_size():
    doc = toy_doc([("read", 4096, 1e12), ("write", 4096, 2e12), ("copy", 4096, 3e12)])
    doc["membench"]["families"]["toy"]["axes"][0]["unit"] = "blocks"
    fig = draw(doc)
    ax = fig.axes[0]
    centres = sorted(round(p.get_x() + p.get_width() / 2, 6) for p in ax.patches)
    assert sorted(round(float(t), 6) for t in ax.get_xticks()) == centres
    assert ax.get_xlabel() == "span = 4,096"  # blocks, not bytes: no "4 KiB"
    plt.close(fig)


def test_a_figure_along_the_variants_or_a_named_axis_draws_no_size_lines():
    doc = toy_doc([("read", 4096, 1e12), ("write", 4096, 2e12)])
    doc["context"]["l2_bytes"] = "4096"
    figure = doc["membench"]["families"]["toy"]["figures"][0]
    figure.update(x="variant", vlines=["l2_bytes"], lines=[])
    fig = draw(doc)
    assert not [l for l in fig.axes[0].get_lines() if l.get_label().startswith("l2 bytes")]
    plt.close(fig)
    figure.update(x="span")  # along the sizes the line is drawn, at the size the context gives
    more = toy_doc([("read", s, 1e12) for s in SPANS])
    doc["benchmarks"] = more["benchmarks"]
    fig = draw(doc)
    (line,) = [l for l in fig.axes[0].get_lines() if l.get_label().startswith("l2 bytes")]
    assert list(line.get_xdata()) == [4096, 4096] and line.get_label() == "l2 bytes (4 KiB)"
    plt.close(fig)


def test_an_axis_the_family_does_not_declare_takes_its_unit_from_the_cases():
    doc = toy_doc([("read", s, 1e12) for s in SPANS])
    doc["membench"]["families"]["toy"]["axes"] = []
    doc["membench"]["cases"] = [{"name": "toy/read/span:4096", "axes": [{"name": "span", "unit": "bytes"}]}]
    fig = draw(doc)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["4 KiB", "1 MiB", "64 MiB"]
    plt.close(fig)


def test_a_log_y_axis_ticks_at_one_two_and_five_of_powers_of_ten():
    doc = toy_doc([("read", s, r) for s, r in zip(SPANS, (1.6e13, 1.4e14, 3.4e14))])
    doc["membench"]["families"]["toy"]["figures"][0]["y_log"] = True
    fig = draw(doc)
    ax = fig.axes[0]
    fig.canvas.draw()
    low, high = ax.get_ylim()
    ticks = [t for t in ax.get_yticks() if low <= t <= high]
    assert ticks and all(f"{t:.0e}"[0] in "125" and float(f"{t:.0e}") == t for t in ticks), ticks
    plt.close(fig)


def test_a_few_series_share_one_legend_column_and_many_take_two():
    few = draw(toy_doc([("read", s, 1e12) for s in SPANS]))
    many = draw(toy_doc([(f"v{k:02d}", s, 1e12 + k) for k in range(12) for s in SPANS]))
    assert few.axes[0].get_legend()._ncols == 1 and many.axes[0].get_legend()._ncols == 2
    plt.close(few)
    plt.close(many)


def test_a_family_that_names_no_study_has_no_place_in_it_and_its_declarations_are_read_only():
    doc = toy_doc([("read", 4096, 1e12)])
    del doc["membench"]["families"]["toy"]["study"]
    toy = md.families(doc)["toy"]
    assert toy.study == ""
    with pytest.raises(AttributeError):
        toy.title = "another"  # frozen: a family's declaration is the file's, shared by every reader
    with pytest.raises(AttributeError):
        toy.figures[0].x = "order"
    with pytest.raises(AttributeError):
        md.StudyRow(1, "A", "first", "toy/read/span:4096", 1.0, (), "").label = "another"


def test_a_log_x_axis_of_many_sizes_ticks_at_most_twelve_of_them_from_the_first():
    doc = toy_doc([("read", 1 << k, 1e12) for k in range(12, 25)])  # 13 sizes
    fig = draw(doc)
    ticks = [float(t) for t in fig.axes[0].get_xticks()]
    assert 1 < len(ticks) <= 12 and ticks[0] == 4096.0
    plt.close(fig)


def test_series_with_a_value_of_an_axis_come_before_the_one_without_it():
    doc = toy_doc([("read", 4096, 1e12)])
    doc = copy.deepcopy(doc)
    for order in ("forward", "backward"):
        name = f"toy/read/order:{order}/span:4096/manual_time"
        doc["benchmarks"].append(dict(doc["benchmarks"][0], name=name, run_name=name))
    keys = list(figures.series(list(mr.cases(doc).values()), "span"))
    assert [dict(k).get("order") for k in keys] == ["backward", "forward", None]


def test_a_log_x_axis_that_would_hold_zero_is_drawn_linear():
    fig = draw(toy_doc([("read", span, 1e12) for span in (0, 4096, 1 << 20)]))
    assert fig.axes[0].get_xscale() == "linear"
    plt.close(fig)


@pytest.mark.parametrize("count, ticks", [(12, 12), (13, 7)])
def test_a_log_x_axis_from_one_ticks_at_every_size_up_to_twelve_and_thins_them_past(count, ticks):
    """A span of 1 (the identity window) is a size like any other on a log axis: every value is a tick up to twelve
    of them, every other one past that."""
    fig = draw(toy_doc([("read", 1 << k, 1e12 * (k + 1)) for k in range(count)]))
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert [round(t) for t in ax.get_xticks()] == [1 << k for k in range(0, count, -(-count // 12))]
    assert len(ax.get_xticks()) == ticks
    plt.close(fig)
