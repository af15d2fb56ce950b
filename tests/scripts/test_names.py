"""The one name parser of the scripts (membench_results.parse_name) against the binary's
--list_cases=json, for every case of the default run and of every sweep file."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import membench_results as mr
import pytest

EXE = os.environ.get("MEMBENCH_EXE")
SWEEPS = sorted((Path(__file__).parents[2] / "sweeps").glob("*.json"))


def listed(*args: str) -> list[dict]:
    done = subprocess.run([EXE, "--list_cases=json", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(not EXE or not Path(EXE).exists(), reason="MEMBENCH_EXE names no membench binary (run under ctest)")
@pytest.mark.parametrize("args", [[], ["--l2=both", "--device=0,1"], *([f"--sweep={s}"] for s in SWEEPS)],
                         ids=lambda a: " ".join(a) or "default")
def test_parse_name_reads_every_listed_case(args):
    cases = listed(*args)
    assert cases
    for case in cases:
        parsed = mr.parse_name(case["name"])
        assert parsed.format() == case["name"]
        assert (parsed.family, parsed.variant) == (case["family"], case["variant"])
        assert [(k, str(v)) for k, v in parsed.tags] == [(k, v) for k, v in case["tags"].items()]
        assert list(parsed.axes) == [(a["name"], a["value"]) for a in case["axes"]]
