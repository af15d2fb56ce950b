"""report.py: the study's tables from a run, the run's health, every family, and a page that needs
nothing but itself."""

from __future__ import annotations

import base64
import copy
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from membench import compat, report
from membench import report_others, report_page
from conftest import load

STUDY_RATES = {  # GB/s, and the counters the notes read
    "global/coalesced/n:16777216": (2600.0, {"sectors_per_request": 4, "dram_efficiency": 1.0}),
    "global/strided_full_grid/n:16777216/stride:2": (1040.0, {"sectors_per_request": 8, "dram_efficiency": 0.5}),
    "layout/aos/structs:16777216/fields:4": (4200.0, {}),
    "layout/soa/structs:16777216/fields:4": (4100.0, {}),
    "shared/row/side:4096": (1800.0, {"conflict_ways": 1}),
    "shared/column/side:4096/pad:0": (1000.0, {"conflict_ways": 32}),
    "shared/column/side:4096/pad:1": (1700.0, {"conflict_ways": 1}),
    "async/sync/n:67108864/tile:1024/flops:0": (4000.0, {"blocks_per_sm": 8, "registers": 31}),
    "async/memcpy_async/n:67108864/tile:1024/flops:0": (4000.0, {"blocks_per_sm": 8, "registers": 24}),
    "async/pipeline/n:67108864/tile:1024/stages:3/flops:0": (3480.0, {"blocks_per_sm": 8, "registers": 28}),
}


def entry(name: str, **counters) -> dict:
    full = f"{name}/manual_time"
    return {"name": full, "run_name": full, "run_type": "iteration", "real_time": 1.0, "time_unit": "us", **counters}


def a_run(uuid: str = "GPU-1", scale: float = 1.0) -> dict:
    benchmarks = [
        entry(name, bytes_per_second=rate * 1e9 * scale, pct_of_peak=rate / 48.14, noisy=0, **counters)
        for name, (rate, counters) in STUDY_RATES.items()
    ]
    benchmarks.append(entry("hierarchy/latency/working_set:16384/chase_stride:128", latency_ns=16.5, noisy=1))
    benchmarks.append(
        {
            **entry("peer/device_to_device_memcpy_read_sm/bytes:64"),
            "error_occurred": True,
            "error_message": "skipped: needs two GPUs; 1 visible",
        }
    )
    benchmarks.append(
        entry(
            "stream/read/type:float/elements:1024/block:256",
            bytes_per_second=4.4e12,
            contended=1,
            other_processes=1,
            noisy=0,
        )
    )
    return {
        "context": {
            "membench_version": "0.1.0",
            "gpu_name": "NVIDIA H200",
            "gpu_uuid": uuid,
            "host_name": "n1",
            "driver_version": "580.159.04",
            "sm_clock_peak_mhz": "1980",
            "memory_clock_khz": "3201000",
        },
        "benchmarks": benchmarks,
    }


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: dict[str, int] = {}
        self.images: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for key in ("src", "href"):
            if key in attrs:
                self.links.append(attrs[key])


@pytest.fixture
def no_figures(monkeypatch):
    """For tests of the tables: the figures (plot.py's, tested there and below) are left out, which is most of the time."""
    monkeypatch.setattr(report, "figures", lambda doc: [])


def made(tmp_path, write_json, *docs) -> tuple[str, str]:
    out = tmp_path / "r"
    assert report.main([*(write_json(d) for d in docs), "--out", str(out)]) == 0
    return (out / "report.md").read_text(), (out / "report.html").read_text()


def test_the_study_tables_set_this_gpus_ratios_beside_the_article_s(tmp_path, write_json, no_figures):
    md, _ = made(tmp_path, write_json, a_run())
    # The rows and the counters that say why are the families' declarations (an older file's through compat).
    assert "| stride 2 (the article's launch: n threads) | 1040 | 0.40x | 427.34 | 0.46x | 8 | 0.5 |" in md
    assert "| column, 32-way conflict | 1000 | 0.56x | 740.07 | 0.84x | 32 |" in md
    assert "| pipeline, 3 stages | 3480 | 0.87x | 856.55 | 0.95x | 8 | 28 |" in md
    assert "Why, from the counters: sectors_per_request; dram_efficiency." in md


def test_a_study_case_missing_from_the_file_says_so(tmp_path, write_json, no_figures):
    doc = a_run()
    doc["benchmarks"] = [b for b in doc["benchmarks"] if not b["name"].startswith("async/pipeline/")]
    md, _ = made(tmp_path, write_json, doc)
    assert "| pipeline, 3 stages | not in this file |  | 856.55 | 0.95x |  |  |" in md
    doc["benchmarks"] = [b for b in doc["benchmarks"] if not b["name"].startswith("shared/")]
    row = "shared/row/side:4096/manual_time"  # a row without the counter its table declares
    doc["benchmarks"].append(
        {
            "name": row,
            "run_name": row,
            "run_type": "iteration",
            "real_time": 1.0,
            "time_unit": "us",
            "bytes_per_second": 1.8e12,
        }
    )
    md, _ = made(tmp_path, write_json, doc)
    assert "\nThe counters for this table are not in this file.\n" in md  # the note, a line of its own


def test_the_run_and_every_family_with_their_marks(tmp_path, write_json, no_figures):
    md, _ = made(tmp_path, write_json, a_run())
    assert "| driver | 580.159.04 |" in md and "| memory clock | 3201 MHz |" in md
    assert "| cases | 13: 12 measured, 0 failed, 1 skipped |" in md
    assert "| health | 1 noisy, 1 contended, 0 throttled, 0 under a clock event |" in md
    # case | measured | noise | repetitions | model (in the measurement's unit) | % of peak | marks
    assert "| latency/working_set:16384/chase_stride:128 | 16.5 ns |  | 1 |  |  | noisy |" in md
    # named before the passes axis, shown under today's name
    assert (
        "| device_to_device_memcpy_read_sm/bytes:64/passes:1/peer_step:1 |  |  |  |  |  | skipped: needs two GPUs; 1 visible |"
        in md
    )
    assert (
        "| read/type:float/elements:1024/block:256 | 4.4 TB/s |  | 1 |  |  | contended (1 other process on the GPU) |"
        in md
    )
    assert "e+" not in md  # no number in an exponent's notation
    # A noise of exactly 0 was measured (every batch alike), and is shown; -1 (fewer than two batches) is not.
    doc = a_run()
    doc["benchmarks"].append(
        entry("stream/read/type:float/elements:2048/block:256", bytes_per_second=4e12, noise_pct=0)
    )
    doc["benchmarks"].append(
        entry("stream/read/type:float/elements:4096/block:256", bytes_per_second=4e12, noise_pct=-1)
    )
    md, _ = made(tmp_path, write_json, doc)
    assert "| read/type:float/elements:2048/block:256 | 4 TB/s | 0% | 1 |" in md
    assert "| read/type:float/elements:4096/block:256 | 4 TB/s |  | 1 |" in md


def test_atomics_show_updates_per_second_beside_their_bound(tmp_path, write_json, no_figures):
    doc = a_run()
    doc["benchmarks"].append(
        entry(
            "atomics/red/word:u32/space:global/shared_by:grid/updates:16",
            updates_per_second=1.36e9,
            model_updates_per_second=1.98e9,
            noisy=0,
        )
    )
    md, _ = made(tmp_path, write_json, doc)
    assert (
        "| red/word:u32/space:global/shared_by:grid/updates:16 | 1.36 G updates/s |  | 1 | 1.98 G updates/s |  |  |"
        in md
    )


def test_the_page_needs_nothing_but_itself(tmp_path, write_json):
    _, page = made(tmp_path, write_json, a_run())
    parsed = Page()
    parsed.feed(page)
    assert parsed.tags["table"] == 3 + 1 + 7  # the study, the run, seven families
    assert parsed.images, "the figures plot.py draws"
    for src in parsed.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert all(link.startswith(("data:", "#")) for link in parsed.links)  # no CDN, no file beside it
    md = (tmp_path / "r" / "report.md").read_text()
    drawn = sorted(p.name for p in (tmp_path / "r" / "figures").iterdir())
    assert drawn and [f"![{name[:-4]}](figures/{name})" in md for name in drawn] == [True] * len(drawn)
    assert len(parsed.images) == len(drawn)


def test_two_runs_of_one_gpu_are_compared_and_of_two_gpus_are_a_fleet(tmp_path, write_json, no_figures):
    contender = a_run(scale=0.5)
    contender["benchmarks"][0]["bytes_per_second"] *= 2  # one case holds its rate: it is listed after the regressions
    md, page = made(tmp_path, write_json, a_run(), contender)
    said = re.search(r"compare.py's verdicts on bytes_per_second \(5% threshold\), what needs a look first: (.*)\.", md)
    assert said and said.group(1) == "9 REGRESSION, 1 UNTRUSTED, 1 same, 1 skipped in both"
    assert "| -50.00 |" in md and "REGRESSION" in md and "REGRESSION" in page
    after = md.split("verdicts on bytes_per_second")[1].split("\n\n")[1]  # the table after its line
    table = [line for line in after.splitlines() if line.startswith("| ")]
    verdicts = [line.rsplit("|", 2)[1].strip() for line in table[2:]]
    assert [v.split(":")[0].split(" (")[0] for v in verdicts] == ["REGRESSION"] * 9 + ["UNTRUSTED", "skipped in both"]
    assert "The cases judged the same are on report.html." in md and "<td>same (threshold only)</td>" in page
    assert "compare.py's verdicts on latency_ns (5% threshold)" in md  # a latency case is compared on its own metric
    md, _ = made(tmp_path, write_json, a_run("GPU-1"), a_run("GPU-2", scale=0.5))
    assert "fleet.py's verdicts (bytes_per_second, 10% threshold): FLAGGED: n1 device 0 (GPU-2)" in md


def test_the_run_says_what_noisy_means_beside_the_gates_thresholds(tmp_path, write_json, no_figures):
    doc = a_run()
    doc["context"]["sweep"] = json.dumps({"max_noise": 0.25})
    md, _ = made(tmp_path, write_json, doc)
    said = next(line for line in md.splitlines() if line.startswith("| noisy |"))
    assert "stopping rule's target (0.25%)" in said and "from 5% of noise" in said and "--noise-threshold" in said
    doc["context"]["sweep"] = "not json"
    md, _ = made(tmp_path, write_json, doc)
    assert "stopping rule's target (--max_noise)" in md


def test_a_family_past_100_percent_of_its_peak_says_which_peak(tmp_path, write_json, no_figures):
    level = entry(
        "hierarchy/bandwidth/working_set:524288/width:16/persistent:1/through_l1:1",
        bytes_per_second=30e12,
        model_bytes_per_second=17e12,
        pct_of_peak=100 * 30 / 17,
        noisy=0,
    )
    dram = entry(
        "hierarchy/bandwidth/working_set:1048576/width:16/persistent:1/through_l1:1",
        bytes_per_second=9e12,
        pct_of_peak=187.0,
        noisy=0,
    )
    md, _ = made(tmp_path, write_json, {**a_run(), "benchmarks": [level, dram]})
    assert (
        "% of peak over 100 in 2 cases, 1 against the model's ceiling (the model column) and 1 against the DRAM's "
        "theoretical peak: part of their bytes come from a level faster than that peak's." in md
    )
    md, _ = made(tmp_path, write_json, {**a_run(), "benchmarks": [level]})
    assert "% of peak over 100 in 1 case, 1 against the model's ceiling" in md and "DRAM's theoretical" not in md


def test_of_two_runs_of_one_gpu_the_page_reports_the_contender(tmp_path, write_json, no_figures):
    """The baseline comes first; the run the page describes (its host, its cases) is the second."""
    contender = a_run(scale=0.5)
    contender["context"]["host_name"] = "the-contender"
    md, page = made(tmp_path, write_json, a_run(), contender)
    run = md.split("## The run")[1].split("## Every family")[0]
    assert "| host | the-contender |" in run and "<td>the-contender</td>" in page
    second = {**a_run("GPU-2"), "context": {**a_run("GPU-2")["context"], "host_name": "second"}}
    md, _ = made(tmp_path, write_json, a_run("GPU-1"), second)
    assert "| host | n1 |" in md.split("## The run")[1].split("## Every family")[0]  # a fleet's: the first


def test_one_file_of_two_gpus_gets_the_fleet_view_and_names_both(tmp_path, write_json, no_figures):
    """A --device=all run: its cases tagged device:K, its GPUs in the context's devices."""
    doc = {
        "context": {
            **a_run()["context"],
            "devices": json.dumps(
                [
                    {"ordinal": 0, "uuid": "GPU-a", "name": "NVIDIA H200"},
                    {"ordinal": 1, "uuid": "GPU-b", "name": "NVIDIA H200"},
                ]
            ),
        },
        "benchmarks": [
            entry(f"stream/copy/device:{k}/type:float/elements:1024/block:256", bytes_per_second=rate, noisy=0)
            for k, rate in ((0, 4.2e12), (1, 2.1e12))
        ],
    }
    md, page = made(tmp_path, write_json, doc)
    assert "fleet.py's verdicts (bytes_per_second, 10% threshold): FLAGGED: n1 device 1 (GPU-b)." in md
    # One row a case, a column a GPU, the slow one marked where it is slow, values read at a glance.
    assert "| case | n1 device 0 | n1 device 1 | slowest / median |" in md
    assert "| stream/copy/type:float/elements:1024/block:256/manual_time | 4.2 TB/s | 2.1 TB/s FLAGGED | 0.667 |" in md
    assert "| GPU 0 | NVIDIA H200 (GPU-a) |" in md and "| GPU 1 | NVIDIA H200 (GPU-b) |" in md
    assert report.NO_STUDY in md and report.NO_STUDY in page
    # A case failed on one GPU, and one every GPU skipped for one reason: the cell says which.
    failed = entry("stream/read/device:1/type:float/elements:1024/block:256")
    failed.update(error_occurred=True, error_message="verification failed")
    skipped = [
        {
            **entry(f"peer/device_to_device_memcpy_read_sm/device:{k}/bytes:64"),
            "error_occurred": True,
            "error_message": "skipped: needs two GPUs; 1 visible",
        }
        for k in (0, 1)
    ]
    read0 = entry("stream/read/device:0/type:float/elements:1024/block:256", bytes_per_second=4e12, noisy=0)
    md, _ = made(tmp_path, write_json, {**doc, "benchmarks": [*doc["benchmarks"], read0, failed, *skipped]})
    assert "| stream/read/type:float/elements:1024/block:256/manual_time | 4 TB/s | - FAILED | 1.000 |" in md
    every = "- skipped: needs two GPUs; 1 visible (on every GPU)"
    assert (
        f"| peer/device_to_device_memcpy_read_sm/bytes:64/passes:1/peer_step:1/manual_time | {every} | {every} | - |"
        in md
    )
    md, _ = made(tmp_path, write_json, {**doc, "benchmarks": doc["benchmarks"][:1]})
    assert "FLAGGED" not in md  # one GPU measured: nothing to set it beside
    assert "(bytes_per_second, 10% threshold): no GPU more than 10% from its model's median in 1 cases.\n" in md


def test_a_file_of_every_pair_gets_its_matrix_on_the_page_and_in_the_markdown(tmp_path, write_json, no_figures):
    devices = [{"ordinal": k, "uuid": f"GPU-{k}", "name": "NVIDIA H200"} for k in (0, 1, 2)]
    doc = {"context": {**a_run()["context"], "devices": json.dumps(devices)}, "benchmarks": []}
    for k in (0, 1, 2):
        for step in (1, 2):
            name = f"peer/device_to_device_memcpy_read_ce/device:{k}/peer_access:1/bytes:64/peer_step:{step}"
            rate = 1e11 if (k, step) == (1, 1) else 4e11
            doc["benchmarks"].append(entry(name, bytes_per_second=rate, peer_device=(k + step) % 3, noisy=0))
    md, page = made(tmp_path, write_json, doc)
    assert "## Every pair of GPUs" in md
    assert "| device 1 | 400 GB/s | · | 100 GB/s |" in md
    assert '<h2 id="every-pair-of-gpus">Every pair of GPUs</h2>' in page and '<h2 id="others">' in page
    assert "<td>device 1</td><td>400 GB/s</td><td>·</td><td>100 GB/s</td>" in page


def test_what_a_case_measured_and_what_is_compared_are_the_catalog_s_headlines(tmp_path, write_json, no_figures):
    """The measured column shows a case's first headline, and the comparison compares the headlines, in the
    catalog's order: a file that ranks latency first shows a case of both by its latency."""
    name = "hierarchy/latency/working_set:16384/chase_stride:128"
    catalog = {
        "bytes_per_second": {"unit": "B/s", "better": "higher", "kind": "measured", "headline": 2},
        "latency_ns": {"unit": "ns", "better": "lower", "kind": "measured", "headline": 1},
        "gflops_per_second": {"unit": "GFLOP/s", "better": "higher", "kind": "measured", "headline": 3},
    }
    run = {**a_run(), "membench": {"schema_version": 1, "counters": catalog}}
    run["benchmarks"] = [entry(name, latency_ns=16.5, bytes_per_second=4e12, gflops_per_second=10.0, noisy=0)]
    md, _ = made(tmp_path, write_json, run)
    assert "| latency/working_set:16384/chase_stride:128 | 16.5 ns |" in md
    slower = {
        **run,
        "benchmarks": [entry(name, latency_ns=33.0, bytes_per_second=4e12, gflops_per_second=5.0, noisy=0)],
    }
    md, _ = made(tmp_path, write_json, run, slower)
    judged = [line for line in md.splitlines() if line.startswith("compare.py's verdicts on ")]
    assert [line.split(" ")[3] for line in judged] == ["latency_ns", "bytes_per_second", "gflops_per_second"]
    # A file written before the catalog ranked its headlines: bandwidth, latency, update rate, as then.
    from membench import declarations

    assert [m for m, _ in declarations.headlines(a_run())] == ["bytes_per_second", "latency_ns", "updates_per_second"]
    assert declarations.headlines(run)[0] == ("latency_ns", "")


def test_bad_input_is_one_line_and_exit_2(tmp_path, write_json, capsys, no_figures):
    assert report.main([str(tmp_path / "missing.json"), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report.py: ") and len(err.splitlines()) == 1
    taken = tmp_path / "file"
    taken.write_text("x")
    assert report.main([write_json(a_run()), "--out", str(taken)]) == 2
    assert capsys.readouterr().err == f"report.py: --out {taken}: exists and is not a directory\n"
    with pytest.raises(SystemExit) as e:
        report.main([write_json(a_run())])
    assert e.value.code == 2


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    pytest.skip("no Chromium on this machine (Debian: apt-get install chromium); the page is not loaded in a browser")


def load_in_browser(page: Path, profile: Path) -> tuple[str, list[str]]:
    """The DOM after the page's load event, and every console message."""
    done = subprocess.run(
        [
            browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


def test_a_browser_draws_every_figure_without_a_console_message(tmp_path, write_json):
    out = tmp_path / "r"
    assert report.main([write_json(a_run()), "--out", str(out)]) == 0
    dom, console = load_in_browser(out / "report.html", tmp_path / "profile")
    assert console == []
    drawn = re.search(r'data-figures="(\d+)" data-figures-drawn="(\d+)"', dom)
    assert drawn and int(drawn.group(1)) > 0 and drawn.group(1) == drawn.group(2), dom[:300]
    assert dom.count("<table") == 11
    assert "<td>coalesced</td><td>2600</td><td>1.00x</td>" in dom  # the study's first row, as the browser holds it
    anchors = re.findall(r'href="#([^"]+)"', dom)
    assert anchors and all(f'id="{a}"' in dom for a in anchors)  # every entry of the contents leads somewhere
    # The check can fail: a page that logs and throws is caught.
    broken = tmp_path / "broken.html"
    broken.write_text('<!DOCTYPE html><html><body><script>console.error("x"); nosuch();</script></body></html>')
    assert len(load_in_browser(broken, tmp_path / "profile2")[1]) == 2


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["benchmarks"].append(3),
        lambda d: d["benchmarks"][0].update(bytes_per_second="fast"),
        lambda d: d.update(context=[]),
        lambda d: d["benchmarks"][0].update(name="not-a-case-name", run_name="not-a-case-name"),
    ],
)
def test_malformed_content_is_one_line_and_exit_2(tmp_path, write_json, capsys, damage):
    doc = a_run()
    damage(doc)
    assert report.main([write_json(doc), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report.py: ") and len(err.splitlines()) == 1, err


def test_the_whole_study_section_as_written(tmp_path, write_json, no_figures):
    md, _ = made(tmp_path, write_json, a_run())
    study = md.split("## The study on this GPU\n\n", 1)[1].split("## The run", 1)[0]
    head = "| case | GB/s, NVIDIA H200 | vs first row | GB/s, RTX 4090 (article) | vs first row"
    assert study == (
        "### Coalesced vs strided, n = 16,777,216\n\n"
        + head
        + " | sectors_per_request | dram_efficiency |\n| --- | --- | --- | --- | --- | --- | --- |\n"
        "| coalesced | 2600 | 1.00x | 925.31 | 1.00x | 4 | 1 |\n"
        "| stride 2 (the article's launch: n threads) | 1040 | 0.40x | 427.34 | 0.46x | 8 | 0.5 |\n"
        "| AoS, four fields | 4200 | 1.62x | 922.31 | 1.00x |  |  |\n"
        "| SoA, four fields | 4100 | 1.58x | 912.82 | 0.99x |  |  |\n\n"
        "Why, from the counters: sectors_per_request; dram_efficiency.\n\n"
        "### Shared memory, 4096 x 4096\n\n" + head + " | conflict_ways |\n| --- | --- | --- | --- | --- | --- |\n"
        "| row | 1800 | 1.00x | 879.49 | 1.00x | 1 |\n"
        "| column, 32-way conflict | 1000 | 0.56x | 740.07 | 0.84x | 32 |\n"
        "| column, padded [32][33] | 1700 | 0.94x | 826.01 | 0.94x | 1 |\n\n"
        "Why, from the counters: conflict_ways.\n\n"
        "### Async copy, n = 67,108,864\n\n"
        + head
        + " | blocks_per_sm | registers |\n| --- | --- | --- | --- | --- | --- | --- |\n"
        "| sync | 4000 | 1.00x | 901.43 | 1.00x | 8 | 31 |\n"
        "| memcpy_async, one stage | 4000 | 1.00x | 898.00 | 1.00x | 8 | 24 |\n"
        "| pipeline, 3 stages | 3480 | 0.87x | 856.55 | 0.95x | 8 | 28 |\n\n"
        "Why, from the counters: blocks_per_sm; registers.\n\n"
    )


def test_a_table_as_markdown_and_as_html():
    t = report.Table("A <title>", ["a", "b|c"], [["1", "x|y"], ["2", "<b>"]], note="n & m")
    # Text from a file is escaped in the markdown too: a page that renders it runs nothing.
    assert t.markdown() == (
        "### A &lt;title&gt;\n\n| a | b\\|c |\n| --- | --- |\n| 1 | x\\|y |\n| 2 | &lt;b&gt; |\n\nn &amp; m"
    )
    assert t.html() == (
        "<h3>A &lt;title&gt;</h3><table><thead><tr><th>a</th><th>b|c</th></tr></thead><tbody>"
        "<tr><td>1</td><td>x|y</td></tr><tr><td>2</td><td>&lt;b&gt;</td></tr></tbody></table>"
        "<p>n &amp; m</p>"
    )
    bare = report.Table("", ["a"], [["1"]])
    assert (bare.markdown(), bare.html()) == (
        "| a |\n| --- |\n| 1 |",
        "<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>",
    )


def test_marks_name_every_reason():
    case = report.mr.Case(
        "x/y/manual_time",
        "x",
        "y",
        {},
        runs=[{"noisy": 1, "contended": 1, "other_processes": 2, "throttled_batches": 3}],
    )
    assert report.marks(case) == (
        "noisy; contended (2 other processes on the GPU); " "throttled (3 batches below the clock threshold)"
    )
    assert (
        report.marks(report.mr.Case("x/y", "x", "y", {}, error="verification failed")) == "FAILED: verification failed"
    )
    # Noisy by the mean over its placements, not by its batches: the mark says so.
    turns = report.mr.Case("a/b", "a", "b", {}, runs=[{"noisy": 1, "noise_pct": 0.23, "turns_sem_pct": 1.39}])
    assert report.marks(turns) == "noisy (±1.4% over its placements)"
    batches = report.mr.Case("a/b", "a", "b", {}, runs=[{"noisy": 1, "noise_pct": 0.74, "turns_sem_pct": 0.42}])
    assert report.marks(batches) == "noisy"
    even = report.mr.Case("a/b", "a", "b", {}, runs=[{"noisy": 1, "noise_pct": 0.5, "turns_sem_pct": 0.5}])
    assert report.marks(even) == "noisy"  # the placements are named only where they are the larger doubt


def test_the_whole_run_table_as_written(tmp_path, write_json, no_figures):
    doc = a_run()
    doc["context"].update(
        date="2026-12-01T10:44:45+00:00",
        cuda_driver_version="13.0",
        runtime_version="13.0",
        membench_version="0.1.0",
        membench_build="abc123",
    )
    path = write_json(doc)
    assert report.main([path, "--out", str(tmp_path / "r")]) == 0
    md = (tmp_path / "r" / "report.md").read_text()
    run = md.split("## The run\n\n", 1)[1].split("\n\n## Every family", 1)[0]
    assert run == "\n".join(
        [
            "| what | value |",
            "| --- | --- |",
            f"| file | {path} |",
            "| GPU | NVIDIA H200 |",
            "| UUID | GPU-1 |",
            "| host | n1 |",
            "| date | 2026-12-01T10:44:45+00:00 |",
            "| driver | 580.159.04 |",
            "| CUDA (driver API, runtime) | 13.0, 13.0 |",
            "| peak SM clock | 1980 MHz |",
            "| memory clock | 3201 MHz |",
            "| membench | 0.1.0 (abc123) |",
            "| cases | 13: 12 measured, 0 failed, 1 skipped |",
            "| ended | reached its end |",
            "| health | 1 noisy, 1 contended, 0 throttled, 0 under a clock event |",
            "| noisy | the case's noise stayed over the stopping rule's target (--max_noise) until --max_time. Such a "
            "value is judged: the check, fleet.py and the report distrust a value from 5% of noise, history.py and "
            "export.py from their --noise-threshold (the same by default), compare.py from its --threshold where too "
            "few repetitions allow its rank test |",
        ]
    )


def test_the_health_line_counts_a_single_throttled_batch_in_any_repetition(tmp_path, write_json, no_figures):
    """One batch dropped in one of three repetitions is a throttled case; a case is counted once however many
    of its repetitions carry the mark."""
    name = "stream/read/type:float/elements:1024/block:256"
    reps = [entry(name, bytes_per_second=4e12, throttled_batches=t, clock_event=e) for t, e in ((0, 0), (1, 0), (0, 1))]
    twice = [entry("stream/copy/type:float/elements:1024/block:256", bytes_per_second=4e12, noisy=1) for _ in "ab"]
    md, _ = made(tmp_path, write_json, {**a_run(), "benchmarks": reps + twice})
    assert "| health | 1 noisy, 0 contended, 1 throttled, 1 under a clock event |" in md
    reps[1]["throttled_batches"] = 0
    md, _ = made(tmp_path, write_json, {**a_run(), "benchmarks": reps})
    assert "| health | 0 noisy, 0 contended, 0 throttled, 1 under a clock event |" in md


def test_the_run_says_which_gpu_code_ran_where_the_file_says(tmp_path, write_json, no_figures):
    doc = a_run()
    doc["context"].update(code_ran_as="compute_80 PTX, JIT-compiled for sm_90", cuda_architectures="80-virtual")
    md, _ = made(tmp_path, write_json, doc)
    assert "| GPU code | compute_80 PTX, JIT-compiled for sm_90 (the build carries 80-virtual) |" in md
    md, _ = made(tmp_path, write_json, a_run())  # a file from before the binary said: no row
    assert "| GPU code |" not in md


def test_numbers_read_at_a_glance():
    assert report.quantity(3.223e13, "B/s") == "32.2 TB/s"
    assert report.quantity(4.033e12, "B/s") == "4.03 TB/s"
    assert report.quantity(847.0, "ns") == "847 ns"
    assert report.quantity(1.36e9, "updates/s") == "1.36 G updates/s"
    assert report.quantity(5.0e4, "B/s") == "50 kB/s"


def test_a_report_md_over_a_github_comment_is_cut_and_says_so():
    md = "# head\n\n" + "\n".join(f"| row {k} | {'x' * 100} |" for k in range(1000))
    fitted = report.fit(md)
    assert len(fitted) <= 65_536 and fitted.startswith("# head")
    assert "table rows left out" in fitted and "report.html has them all" in fitted
    assert report.fit("short") == "short"


def test_the_comparison_is_html_tables_on_the_page_not_preformatted_text():
    html_text = report.md_to_html("## B against A\n\nverdicts:\n\n| case | change |\n| --- | ---: |\n| a/b | +1.0 |\n")
    assert "<pre>" not in html_text
    assert '<h2 id="others">B against A</h2>' in html_text
    assert (
        "<td>a/<wbr>b</td><td>+1.0</td>" in html_text
    )  # a case's name may break after a slash and "<th>case</th><th>change</th>" in html_text
    assert "<td>4.01 T</td>" in report.md_to_html("| a | b |\n| --- | --- |\n| x | 4.013e+12 |\n")


def test_a_prefix_starts_at_its_power_and_three_digits_below_a_hundred():
    assert report.quantity(1e3, "B/s") == "1 kB/s" and report.quantity(999.0, "B/s") == "999 B/s"
    assert report.quantity(1e6, "B") == "1 MB" and report.quantity(1.5e6, "B") == "1.5 MB"
    assert report.quantity(100.0, "ns") == "100 ns" and report.quantity(99.94, "ns") == "99.9 ns"
    assert report.quantity(1e9, "updates/s") == "1 G updates/s"
    assert report.readable("2.5e-05") == "2.5e-05"  # under one: no prefix, three digits
    assert report.readable("3.2e+04") == "32 k" and report.readable("+1.00") == "+1.00"
    assert report.readable("2.5e-01") == "0.25"  # a negative exponent too


def test_fit_cuts_exactly_the_rows_it_names_and_leaves_a_file_at_the_limit_alone():
    at_limit = "x" * report_page.MD_LIMIT
    assert report.fit(at_limit) == at_limit
    rows = [f"| row {k:04d} | {'y' * 90} |" for k in range(800)]
    md = "# head\n\n" + "\n".join(rows)
    fitted = report.fit(md)
    kept = [line for line in fitted.splitlines() if line.startswith("| row ")]
    assert kept == rows[: len(kept)]  # the last rows go, in order
    assert f"({len(rows) - len(kept)} table rows left out" in fitted
    assert len(fitted) <= report_page.MD_LIMIT
    assert len("\n".join(["# head", "", *kept])) > report_page.MD_LIMIT - 200 - 120  # no more cut than needed
    assert fitted.endswith(
        "table rows left out: a GitHub comment holds 65,536 characters; report.html has them all.)\n"
    )
    # report.md keeps to 65,000 characters, under a GitHub comment's 65,536 with room for the cut's own line.
    just_over = "# head\n" + "\n".join(rows)[: 65_001 - 7]
    assert len(just_over) == 65_001 and report.fit(just_over) != just_over
    assert report.fit(just_over[:-1]) == just_over[:-1]
    # Rows are cut until what is left is no longer than 200 under the limit: 300 + 50 rows of 10 is 800 exactly.
    exact = report.fit("h" * 300 + "".join("\n| 4567890" for _ in range(80)), limit=1000)
    assert exact.count("\n| 4567890") == 50 and "(30 table rows left out" in exact


def test_a_third_level_heading_is_an_escaped_h3():
    assert report_page.md_to_html("### a <b> & c") == "<h3>a &lt;b&gt; &amp; c</h3>"


def test_markdown_tables_become_html_without_their_separator_row():
    html_text = report.md_to_html("intro line\n| a | b |\n| --- | ---: |\n| 1 | 2 |\n\n| c |\n| --- |\n| 3 |\nafter")
    assert html_text.count("<table>") == 2 and "---" not in html_text
    assert "<tr><td>1</td><td>2</td></tr>" in html_text and "<th>c</th>" in html_text
    assert html_text.startswith("<p>intro line</p>") and html_text.endswith("<p>after</p>")
    assert "<h3>" not in html_text


def test_claims_without_the_article_s_numbers_set_each_case_beside_its_baseline(tmp_path, write_json, no_figures):
    doc = a_run()
    doc["benchmarks"] += [
        entry("toy/rand/w:64", bytes_per_second=500e9, sectors_per_request=32.0),
        entry("toy/rand/w:1", bytes_per_second=2000e9, sectors_per_request=4.0),
        entry("toy/same/w:1", bytes_per_second=2100e9),
    ]
    claims = [
        {"table": 4, "table_title": "Claims", "label": "random", "case": "toy/rand/w:64", "article_gb_per_second": 0,
         "counters": ["sectors_per_request"], "baseline": "toy/rand/w:1"},
        {"table": 4, "table_title": "Claims", "label": "the same, no baseline given", "case": "toy/same/w:1",
         "article_gb_per_second": 0, "counters": ["sectors_per_request"]},
        {"table": 4, "table_title": "Claims", "label": "absent", "case": "toy/gone/w:1", "article_gb_per_second": 0,
         "counters": [], "baseline": "toy/rand/w:1"},
    ]  # fmt: skip
    families = {"toy": {"title": "Toy", "axes": [{"name": "w", "unit": "floats"}], "study_rows": claims}}
    for name in ("global", "layout", "shared", "async"):
        families[name] = compat.old_family(name)
    doc["membench"] = {"schema_version": 1, "complete": True, "counters": {}, "families": families}
    md, html = made(tmp_path, write_json, doc)
    assert "| claim | GB/s, NVIDIA H200 | baseline GB/s | ratio | why: the model, case (baseline) |" in md
    assert "| random | 500 | 2000 | 0.25x | sectors_per_request 32 (4) |" in md
    assert "| the same, no baseline given | 2100 | 500 | 4.20x |  |" in md  # the table's first row is its baseline
    assert "| absent | not in this file | 2000 |  |  |" in md
    assert "random" in html and "0.25x" in html


def test_a_run_with_energy_shows_its_picojoules_per_byte_and_one_without_does_not(write_json, tmp_path):
    name = "stream/read/type:float/elements:1024/block:256/manual_time"
    entry = {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "time_unit": "us"}
    doc = {"context": {"membench_version": "0.1.0", "gpu_name": "NVIDIA H200"}, "benchmarks": []}
    with_energy = {**doc, "benchmarks": [{**entry, "bytes_per_second": 4.5e12, "pj_per_byte": 118.2}]}
    without = {**doc, "benchmarks": [{**entry, "bytes_per_second": 4.5e12}]}
    (table,) = [t for t in report.families(with_energy) if t.title == "stream"]
    assert table.header[6] == "pJ/B" and table.rows[0][6] == "118.2"
    (table,) = [t for t in report.families(without) if t.title == "stream"]
    assert "pJ/B" not in table.header and len(table.rows[0]) == len(table.header)


def test_what_needs_a_look_comes_first_in_the_order_a_person_reads():
    verdicts = [
        "same",
        "noise",
        "improvement",
        "UNTRUSTED: another process",
        "SKIPPED in contender: too big",
        "missing in contender",
        "REGRESSION",
        "ERROR in contender: wrong",
        "new in contender",
    ]
    ranked = sorted(reversed(verdicts), key=report_others.worth_a_look)
    assert ranked == [*reversed(verdicts[:-1]), "new in contender"]  # a kind it does not rank goes last


def test_the_comparison_names_both_files_judges_every_metric_either_has_at_5_percent(tmp_path, write_json, no_figures):
    def run(rate: float, latency: float, updates: float | None) -> dict:
        doc = a_run()
        doc["benchmarks"] = [
            entry("stream/copy/type:float/elements:1024/block:256", bytes_per_second=rate, noisy=0),
            entry("hierarchy/latency/working_set:16384/chase_stride:128", latency_ns=latency, noisy=0),
        ]
        if updates:
            doc["benchmarks"].append(
                entry(
                    "atomics/add/word:u32/space:global/shared_by:warp/updates:16", updates_per_second=updates, noisy=0
                )
            )
        return doc

    base, new = write_json(run(1e12, 100.0, 2e10)), write_json(run(0.945e12, 104.5, None))  # -5.5% and +4.5%
    out = tmp_path / "r"
    assert report.main([base, new, "--out", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert f"## {new} against {base}\n" in md
    # The update rate only the baseline has: its case is listed once, missing in the contender, and no table of
    # update rates is left empty.
    assert (
        "verdicts on bytes_per_second (5% threshold), what needs a look first: 1 REGRESSION, 1 missing in contender."
        in md
    )
    assert "verdicts on latency_ns (5% threshold), what needs a look first: 1 same." in md
    assert "verdicts on updates_per_second" not in md


FLEET_VIEW = """## The fleet

fleet.py's verdicts (bytes_per_second, 10% threshold): FLAGGED: n1 device 3 (GPU-3); FLAGGED: n1 device 4 (GPU-4); \
UNTRUSTED: n1 device 0 (GPU-0).

- GPU: n1 device 0 (GPU-0)
- GPU: n1 device 1 (GPU-1)
- GPU: n1 device 2 (GPU-2)
- GPU: n1 device 3 (GPU-3)
- GPU: n1 device 4 (GPU-4)

| case | n1 device 0 | n1 device 1 | n1 device 2 | n1 device 3 | n1 device 4 | slowest / median |
| --- | --- | --- | --- | --- | --- | --- |
| stream/copy/type:float/elements:1024/block:256/manual_time | 4 TB/s | 4 TB/s | 4 TB/s | 3.58 TB/s FLAGGED | \
3 TB/s FLAGGED | 0.750 |
| stream/read/type:float/elements:1024/block:256/manual_time | 4 TB/s UNTRUSTED | 4 TB/s | 4 TB/s | 4 TB/s | \
- missing | 1.000 |
| peer/device_to_device_memcpy_read_ce/peer_access:1/bytes:64/peer_step:1/manual_time | 400 GB/s | 400 GB/s | \
- missing | - missing | - missing | 1.000 |

- warning: stream/read/type:float/elements:1024/block:256/manual_time: missing on 1 NVIDIA H200 GPU(s) \
(n1 device 4 (GPU-4))
- warning: peer/device_to_device_memcpy_read_ce/peer_access:1/bytes:64/peer_step:1/manual_time: missing on 3 \
NVIDIA H200 GPU(s) (n1 device 2 (GPU-2), n1 device 3 (GPU-3), n1 device 4 (GPU-4))

## Every pair of GPUs

### peer/device_to_device_memcpy_read_ce/peer_access:1/bytes:64 on n1

| ran on ↓, reached → | device 0 | device 1 | device 2 | device 3 | device 4 |
| --- | --- | --- | --- | --- | --- |
| device 0 | · | 400 GB/s | - | - | - |
| device 1 | 400 GB/s | · | - | - | - |
| device 2 | - | - | · | - | - |
| device 3 | - | - | - | · | - |
| device 4 | - | - | - | - | · |

A row the GPU that ran the case, a column the GPU whose memory it reached; - where no case of the files reached \
it (skipped, failed, or not run).
"""


def test_the_fleet_view_is_this_markdown_whole(tmp_path):
    """Five GPUs of one --device=all file: one 10.5% under the median (the threshold is 10%), one a quarter
    under, one contended, one without a case, and a pair of them that reached each other. The whole view, as a
    person reads it: the verdicts, the GPUs and the warnings as lists, each block apart from the table above it
    (a line right under a table is a row of it), the pair matrix last."""
    devices = [{"ordinal": k, "uuid": f"GPU-{k}", "name": "NVIDIA H200"} for k in range(5)]
    doc = {"context": {**a_run()["context"], "devices": json.dumps(devices)}, "benchmarks": []}
    for k, rate in enumerate((4.0e12, 4.0e12, 4.0e12, 3.58e12, 3.0e12)):
        name = f"stream/copy/device:{k}/type:float/elements:1024/block:256"
        doc["benchmarks"].append(entry(name, bytes_per_second=rate, noisy=0))
    for k in range(4):  # device 4 lacks it; device 0's shared the GPU with another process
        name = f"stream/read/device:{k}/type:float/elements:1024/block:256"
        shared = 1 if k == 0 else 0
        doc["benchmarks"].append(entry(name, bytes_per_second=4e12, noisy=0, contended=shared, other_processes=shared))
    for k in (0, 1):
        name = f"peer/device_to_device_memcpy_read_ce/device:{k}/peer_access:1/bytes:64/peer_step:1"
        doc["benchmarks"].append(entry(name, bytes_per_second=4e11, peer_device=1 - k, noisy=0))
    path = tmp_path / "all.json"
    path.write_text(json.dumps(doc))
    assert report_others.several([str(path)], [doc]) == FLEET_VIEW
    page = report_page.md_to_html(FLEET_VIEW)
    assert "<ul><li>GPU: n1 device 0 (GPU-0)</li><li>GPU: n1 device 1 (GPU-1)</li>" in page
    assert "<li>GPU: n1 device 4 (GPU-4)</li></ul>\n<table>" in page  # the list closed before the table
    assert page.count("<table") == 2 and "<li>warning: stream/read/" in page
    doc["benchmarks"][1]["noise_pct"] = 10.5  # device 1's copy: noise at or above the 10% threshold is no evidence
    path.write_text(json.dumps(doc))
    copy = "| stream/copy/type:float/elements:1024/block:256/manual_time | 4 TB/s | 4 TB/s UNTRUSTED |"
    assert copy in report_others.several([str(path)], [doc])
    doc["benchmarks"] = doc["benchmarks"][:5]  # the copies alone: no warning, no pair, the table last
    path.write_text(json.dumps(doc))
    assert report_others.several([str(path)], [doc]).endswith("| 3 TB/s FLAGGED | 0.792 |")


def compared(tmp_path, base_cases: list[dict], cont_cases: list[dict], every_row: bool = True) -> str:
    """report_others' comparison of two runs of one GPU holding these cases."""
    docs, paths = [], []
    for k, cases in enumerate((base_cases, cont_cases)):
        doc = {**a_run(), "benchmarks": cases}
        paths.append(str(tmp_path / f"run{k}.json"))
        Path(paths[-1]).write_text(json.dumps(doc))
        docs.append(doc)
    return report_others.several(paths, docs, every_row)


BW = "stream/copy/type:float/elements:1024/block:256"
LAT = "hierarchy/latency/working_set:16384/chase_stride:128"
UPD = "atomics/red/word:u32/space:global/shared_by:thread/updates:16"


def test_a_comparison_opens_with_its_files_and_covers_a_metric_either_file_has(tmp_path):
    lat = entry(LAT, latency_ns=16.5, noisy=0)
    out = compared(tmp_path, [lat], [lat, entry(BW, bytes_per_second=4e12, noisy=0)])  # a rate only in the second
    base, cont = tmp_path / "run0.json", tmp_path / "run1.json"
    assert out.startswith(
        f"## {cont} against {base}\n\nThe baseline is the first file, {base}; the contender, which this page reports, {cont}.\n\n"
        "compare.py's verdicts on "
    )
    assert "verdicts on bytes_per_second (5% threshold), what needs a look first: 1 new in contender." in out
    out = compared(tmp_path, [lat, entry(BW, bytes_per_second=4e12, noisy=0)], [lat])  # only in the first
    assert "verdicts on bytes_per_second (5% threshold), what needs a look first: 1 missing in contender." in out
    assert "verdicts on latency_ns (5% threshold), what needs a look first: 1 same." in out
    # Every table whole: no text runs into a table's rows.
    for line in out.splitlines():
        if "|" in line:
            assert line.startswith("|") and line.endswith("|"), line


def test_a_metric_with_nothing_to_compare_leaves_the_metrics_after_it(tmp_path):
    failed = {**entry(LAT), "error_occurred": True, "error_message": "wrong result"}
    base = [
        entry(BW, bytes_per_second=4e12, noisy=0),
        entry(LAT, latency_ns=16.5, noisy=0),
        entry(UPD, updates_per_second=5e11, noisy=0),
    ]
    cont = [base[0], failed, base[2]]
    out = compared(tmp_path, base, cont)
    assert "verdicts on latency_ns" not in out  # its one case failed: listed in the first table, nothing to compare
    assert "compare.py's verdicts on updates_per_second (5% threshold), what needs a look first: 1 same." in out


def test_verdicts_of_one_rank_are_said_in_name_order_and_repetitions_that_overlap_are_noise(tmp_path):
    bw = entry(BW, bytes_per_second=4e12, noisy=0)
    skipped = {**entry(LAT), "error_occurred": True, "error_message": "skipped: not here"}
    new = [
        entry(f"stream/read/type:float/elements:{n}/block:256", bytes_per_second=4e12, noisy=0) for n in (1024, 2048)
    ]
    out = compared(tmp_path, [bw, skipped], [bw, skipped, *new])
    assert "what needs a look first: 1 same, 2 new in contender, 1 skipped in both." in out
    assert "reach p < 0.05 (3 vs 3 cannot go below 0.1" in out  # one repetition each: the threshold alone
    assert f"| {BW}/manual_time | 4 TB/s | 4 TB/s | +0.00 |" in out  # rates as a person reads them
    # Four repetitions each, the medians 6% apart but the samples overlapping: Mann-Whitney's p is above 0.05.
    base = [
        {**entry(BW, bytes_per_second=v * 1e12, noisy=0), "repetition_index": k}
        for k, v in enumerate((4.0, 4.5, 3.6, 4.1))
    ]
    cont = [
        {**entry(BW, bytes_per_second=v * 1e12, noisy=0), "repetition_index": k}
        for k, v in enumerate((4.3, 3.8, 4.6, 4.35))
    ]
    out = compared(tmp_path, base, cont)
    assert "what needs a look first: 1 noise." in out


def test_the_study_s_counters_are_read_at_a_glance_never_in_an_exponent(tmp_path, no_figures):
    """A whole default run: every study table's counters as a person reads them (33.6 MB, not 3.35544e+07)."""
    sample = Path(__file__).resolve().parents[2] / "benchmarks/results/h200/2026-12-03-turns/default_after1.json"
    out = tmp_path / "r"
    assert report.main([str(sample), "--out", str(out)]) == 0
    study = (out / "report.md").read_text().split("## The study on this GPU")[1].split("## The run")[0]
    rows = [line for line in study.splitlines() if line.startswith("| ")]
    assert len(rows) > 20
    assert not [r for r in rows if re.search(r"\de[+-]\d", r)]
    assert "dram_read_bytes 33.6 MB (67.1 MB)" in study  # one lane's sector: half the DRAM reads of the baseline
    assert report.counter_text({}, "sectors_per_request", 17.9983) == "17.9983"
    assert report.counter_text({}, "sectors_per_request", 9999.0) == "9999"  # as it is below 10,000
    assert report.counter_text({}, "sectors_per_request", 10000.0) == report.quantity(10000.0, "").strip()
    assert report.counter_text({}, "sectors_per_request", 10000.0) != "10000"
    # A count whose unit is its own name, or a flag, reads as the number: 65.5 k, not 65.5 k placements.
    catalog = {"membench": {"counters": {"placements": {"unit": "placements", "better": "neither", "kind": "model"}}}}
    assert report.counter_text(catalog, "placements", 65536) == report.quantity(65536, "").strip()
    assert not report.counter_text(catalog, "placements", 65536).endswith("s")


def test_the_page_and_the_markdown_are_laid_out_as_their_contents_say(tmp_path, write_json, monkeypatch, capsys):
    # One figure, by the family's title, in the markdown beside its own table and not beside another's.
    monkeypatch.setattr(report, "figures", lambda doc: [("hierarchy", base64.b64encode(b"png").decode())])
    doc = a_run()
    del doc["context"]["driver_version"]  # what the file does not say is left empty
    doc["benchmarks"].append(
        entry("stream/read/type:float/elements:2048/block:256", bytes_per_second=4e12, clock_event=1)
    )
    out = tmp_path / "r"
    assert report.main([write_json(doc), "--out", str(out)]) == 0
    assert capsys.readouterr().out.split() == [str(out / "report.html"), str(out / "report.md")]
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert md.startswith("# membench report: NVIDIA H200\n\nContents: The study on this GPU, The run, Every family.\n")
    assert "| driver |  |" in md
    assert "| health | 1 noisy, 1 contended, 0 throttled, 1 under a clock event |" in md
    hierarchy = md.split("### hierarchy\n", 1)[1].split("###", 1)[0]
    assert "![hierarchy](figures/hierarchy.png)" in hierarchy and md.count("](figures/") == 1
    assert "| case | measured | noise | repetitions | model | % of peak | marks |" in hierarchy
    assert (out / "figures" / "hierarchy.png").read_bytes() == b"png"
    assert (
        "<title>membench report: NVIDIA H200</title><style>" in page and "<h1>membench report: NVIDIA H200</h1>" in page
    )
    assert '<h2 id="run">The run</h2>' in page.splitlines()
    assert "#others" not in page and "</a></nav>" in page  # one run: nothing beside it, the contents end there
    assert page.count("<img ") == 1
    # Beside another run of the same GPU: the contents name the comparison, and its link has its heading.
    other = write_json(a_run(scale=1.5))
    assert report.main([write_json(a_run()), other, "--out", str(tmp_path / "two")]) == 0
    two_md, two_page = (tmp_path / "two" / "report.md").read_text(), (tmp_path / "two" / "report.html").read_text()
    assert "Contents: The study on this GPU, The run, Every family, Beside the others." in two_md
    # The markdown's comparison is cut to what needs a look, and says where the rest is.
    assert "\nThe cases judged the same are on report.html.\n" in two_md
    assert '<a href="#others">beside the others</a></nav>' in two_page and 'id="others"' in two_page


def test_a_comparison_says_which_file_is_the_baseline_and_warns_of_the_wrong_order(write_json):
    older, newer = copy.deepcopy(load("global_layout.json")), copy.deepcopy(load("global_layout.json"))
    older["context"]["date"] = "2026-12-01T10:00:00+00:00"
    newer["context"]["date"] = "2026-12-04T10:00:00+00:00"
    a, b = write_json(older), write_json(newer)
    right = report_others.several([a, b], [older, newer])
    assert f"The baseline is the first file, {a}; the contender, which this page reports, {b}." in right
    assert "Warning" not in right
    wrong = report_others.several([b, a], [newer, older])
    assert "**Warning: the baseline ran at 2026-12-04T10:00:00+00:00, after the contender" in wrong


def test_a_time_reads_in_the_largest_unit_it_fills():
    assert report_page.duration(16.5) == "16.5 ns"
    assert report_page.duration(133_000) == "133 us"
    assert report_page.duration(1_200_000) == "1.2 ms"
    assert report_page.duration(999_999_999) == "1e+03 ms"
    assert report_page.duration(2.5e9) == "2.5 s"
