"""The examples (examples/examples.cu) as ncu profiled them on an H100 (`ncu --set full`, each one's verified
launch; benchmarks/results/h100/2026-12-06-explain/): each shows the anomaly it was written to have, in the counters
membench-explain reads, and its fixed twin does not."""

from __future__ import annotations

from pathlib import Path

import pytest
from membench.ncu_profile import parse_csv

FIXTURES = Path(__file__).parent / "fixtures" / "explain"


def profiled(name: str) -> dict:
    (row,) = parse_csv((FIXTURES / f"{name}.csv").read_text())
    return row


def per_request(row: dict, op: str) -> float:
    return (
        row[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum"]
        / row[f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum"]
    )


@pytest.mark.parametrize(
    "name, op, sectors",
    [
        ("contiguous", "ld", 4),  # 32 floats a warp: 128 bytes, 4 sectors
        ("stride2", "ld", 8),
        ("stride32", "ld", 32),
        ("aos_one_field", "ld", 16),  # one float of every 16 bytes
        ("soa_one_field", "ld", 4),
        ("gather_sorted", "ld", 4),
        ("transpose_naive", "st", 32),  # a warp's stores down a column
        ("transpose_padded", "st", 4),
    ],
)
def test_each_example_touches_the_sectors_its_access_implies(name, op, sectors):
    assert per_request(profiled(name), op) == pytest.approx(sectors, rel=0.01)


def test_a_random_gather_touches_more_sectors_than_its_sorted_twin():
    assert per_request(profiled("gather_random"), "ld") > 2 * per_request(profiled("gather_sorted"), "ld")


def test_the_unpadded_tile_reads_shared_memory_in_about_32_wavefronts_where_the_padded_one_takes_one():
    wavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    ratio = profiled("transpose_conflicts")[wavefronts] / profiled("transpose_padded")[wavefronts]
    assert 25 < ratio <= 33


def test_stride32_reads_dram_for_every_sector_it_touches_and_the_fma_kernel_is_bound_by_its_sms():
    # 2^25 useful floats (128 MiB): at stride 32 each sits in a sector of its own, and DRAM reads 64 bytes for
    # each (its fetch a miss on this GPU): 16x the useful bytes ...
    assert profiled("stride32")["dram__bytes_read.sum"] == pytest.approx(16 * 2**27, rel=0.02)
    assert profiled("contiguous")["dram__bytes_read.sum"] == pytest.approx(2**27, rel=0.02)
    # ... and 2048 multiply-adds a float leave the memory idle and the SMs busy.
    fma = profiled("fma_bound")
    assert fma["sm__throughput.avg.pct_of_peak_sustained_elapsed"] > 90
    assert fma["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"] < 10
