"""The measured roofline, drawn from the file: a toy family's figure declared on the roofline puts each case at its
FLOPs a byte and its FLOP rate under the roofs the file carries, marks the ridges of the pipe the points reach and
a datasheet ridge upright; a roof that is not what the binary writes is one line, never a traceback."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from membench import plot
from membench import results as mr
from membench import roofline
from conftest import entry

ROOFS = [
    {
        "name": "fp32 FMA",
        "family": "toy",
        "counter": "ops_per_second",
        "unit": "op/s",
        "gpu": "",
        "value": 60e12,
        "case": "toy/dram/fmas:256",
    },
    {
        "name": "fp64 FMA",
        "family": "toy",
        "counter": "ops_per_second",
        "unit": "op/s",
        "gpu": "",
        "value": 30e12,
        "case": "",
    },
    {
        "name": "DRAM",
        "family": "toy",
        "counter": "bytes_per_second",
        "unit": "B/s",
        "gpu": "",
        "value": 3e12,
        "case": "toy/dram/fmas:0",
    },
    {
        "name": "L1",
        "family": "toy",
        "counter": "bytes_per_second",
        "unit": "B/s",
        "gpu": "",
        "value": 30e12,
        "case": "toy/l1/fmas:0",
    },
    {
        "name": "fp32 FMA",
        "family": "toy",
        "counter": "ops_per_second",
        "unit": "op/s",
        "gpu": "RTX 4090",
        "value": 82.6e12,
        "case": "",
    },
    {
        "name": "DRAM",
        "family": "toy",
        "counter": "bytes_per_second",
        "unit": "B/s",
        "gpu": "RTX 4090",
        "value": 1008e9,
        "case": "",
    },
]


def toy_doc(points: list[tuple[str, int, float, float]]) -> dict:
    """A file of a 'toy' family (level, fmas, FLOP/B, GFLOP/s) with a figure on the roofline and the roofs."""
    doc = {
        "context": {"membench_version": "9", "gpu_name": "Toy GPU"},
        "benchmarks": [],
        "membench": {
            "schema_version": 3,
            "complete": True,
            "counters": {
                "gflops_per_second": {"unit": "GFLOP/s", "better": "higher", "kind": "measured"},
                "flops_per_byte": {"unit": "FLOP/B", "better": "neither", "kind": "configuration"},
                "real_time": {"unit": "us", "better": "lower", "kind": "measured"},
            },
            "families": {
                "toy": {
                    "title": "Toy roofline",
                    "study": "",
                    "axes": [{"name": "fmas", "unit": "FMAs", "help": ""}],
                    "figures": [
                        {
                            "heading": "on the roofline",
                            "x": "fmas",
                            "x_log": True,
                            "y": "gflops_per_second",
                            "y_log": True,
                            "model": "",
                            "variants": [],
                            "lines": [],
                            "roofline": True,
                            "pipe": "fp32 FMA",
                        }
                    ],
                }
            },
            "roofs": ROOFS,
        },
    }
    for level, fmas, per_byte, gflops in points:
        doc["benchmarks"].append(
            entry(f"toy/{level}/fmas:{fmas}/manual_time", gflops_per_second=gflops, flops_per_byte=per_byte)
        )
    return doc


POINTS = [
    ("dram", 0, 0.0, 0.0),
    ("dram", 4, 2.0, 6000.0),
    ("dram", 64, 32.0, 58000.0),
    ("l1", 4, 2.0, 50000.0),
    ("l1", 64, 32.0, 59000.0),
]


def test_the_roofs_and_ridges_are_the_files():
    found = roofline.roofs(toy_doc(POINTS))
    assert [r.name for r in found if not r.gpu] == ["fp32 FMA", "fp64 FMA", "DRAM", "L1"]
    ridges = {(c.name, m.name, c.gpu): i for c, m, i in roofline.ridges(found)}
    assert ridges[("fp32 FMA", "DRAM", "")] == pytest.approx(20.0)
    assert ridges[("fp32 FMA", "L1", "")] == pytest.approx(2.0)
    assert ridges[("fp32 FMA", "DRAM", "RTX 4090")] == pytest.approx(81.9, abs=0.05)
    assert ("fp32 FMA", "DRAM", "RTX 4090") in ridges and ("fp32 FMA", "L1", "RTX 4090") not in ridges


def test_the_points_sit_at_their_flops_a_byte_under_the_roofs(tmp_path, write_json):
    doc = toy_doc(POINTS)
    assert plot.main([write_json(doc), "--out", str(tmp_path), "--formats", "png"]) == 0
    assert (tmp_path / "toy.png").stat().st_size > 5_000
    fig = plt.figure()
    assert plot.draw_family(doc, "toy", plot.by_family(doc)["toy"], fig)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = {l.get_label(): l for l in ax.get_lines() if not l.get_label().startswith("_")}
    # A case with no arithmetic has no place on log axes; the rest at (FLOP/B, op/s in the roofs' prefix: T).
    assert list(lines["dram"].get_xdata()) == [2.0, 32.0]
    assert list(lines["dram"].get_ydata()) == pytest.approx([6.0, 58.0])
    assert list(lines["l1"].get_ydata()) == pytest.approx([50.0, 59.0])
    assert ax.get_ylabel() == "Top/s"
    # The points run on fp32's roof, as the figure declares: its ridges are marked and listed, fp64's are not.
    notes = [t.get_text() for t in ax.texts]
    (box,) = [n for n in notes if n.startswith("ridges on")]
    assert box == "ridges on fp32 FMA, FLOP/B:\nDRAM (3 TB/s): 20\nL1 (30 TB/s): 2"
    assert any(n.startswith("RTX 4090: ridge 81.9") for n in notes)
    diamonds = [l for l in ax.get_lines() if l.get_marker() == "D"]
    assert sorted(float(l.get_xdata()[0]) for l in diamonds) == pytest.approx([2.0, 20.0])
    plt.close(fig)


def test_the_pipe_the_points_run_on_is_the_declared_one_else_the_lowest_roof_above_them():
    found = [r for r in roofline.roofs(toy_doc(POINTS)) if not r.gpu]
    assert roofline.reached(found, 20e12, "fp32 FMA").name == "fp32 FMA"  # declared, though fp64's is above
    assert roofline.reached(found, 59e12).name == "fp32 FMA"
    assert roofline.reached(found, 20e12).name == "fp64 FMA"
    assert roofline.reached(found, 20e12, "no such roof").name == "fp64 FMA"
    assert roofline.reached(found, 90e12).name == "fp32 FMA"  # above every roof: the highest


def test_roofs_of_one_height_share_a_label():
    found = [
        roofline.Roof("fp16x2 FMA", "op/s", "", 1.09e14),
        roofline.Roof("bf16x2 FMA", "op/s", "", 1.096e14),
        roofline.Roof("fp32 FMA", "op/s", "", 6.4e13),
        roofline.Roof("DRAM", "B/s", "", 3e12),
    ]
    assert roofline.merged(found) == [(6.4e13, "fp32 FMA"), (1.09e14, "fp16x2 FMA, bf16x2 FMA")]


@pytest.mark.parametrize(
    "roofs, says",
    [
        ("not a list", "membench.roofs: not a list"),
        ([{"name": "x", "unit": "op/s", "gpu": "", "value": -1}], "membench.roofs[0]: a roof is a positive rate"),
        ([{"name": "x", "unit": "W", "gpu": "", "value": 1}], "membench.roofs[0]: a roof is a positive rate"),
        ([{"name": 3, "unit": "op/s", "gpu": "", "value": 1}], "membench.roofs[0]: a roof needs a name"),
        ([{"name": "x", "unit": "op/s", "gpu": "", "value": "fast"}], "membench.roofs[0].value"),
    ],
)
def test_a_roof_that_is_not_what_the_binary_writes_is_refused(roofs, says):
    doc = toy_doc(POINTS)
    doc["membench"]["roofs"] = roofs
    with pytest.raises(mr.InputError, match="^" + says.replace("[", r"\[").replace("]", r"\]")):
        roofline.roofs(doc)


def test_a_file_without_roofs_draws_its_points_alone():
    doc = toy_doc(POINTS)
    del doc["membench"]["roofs"]
    fig = plt.figure()
    assert plot.draw_family(doc, "toy", plot.by_family(doc)["toy"], fig)
    assert [t.get_text() for t in fig.axes[0].texts] == []
    plt.close(fig)
