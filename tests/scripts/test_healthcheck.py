"""membench-healthcheck run as Slurm runs a HealthCheckProgram or a prolog: a bare environment (PATH and
SLURMD_NODENAME), root, no terminal; its exit status, the drain it asks of scontrol, and the textfile it leaves
for Prometheus."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "membench-healthcheck"
SLOW = "membench --check: GPU 0: SLOW DRAM read: stream/read/type:float/elements:134217728/block:256: 3100 GB/s"

# A stand-in for membench: prints what the real one prints for the verdict it is told to give (Google
# Benchmark's context first, whose gpu_health line names ECC), writes
# --check_metrics' file as it does, and exits with that verdict's status (or sleeps past the timeout).
FAKE = """#!/bin/sh
for a in "$@"; do case "$a" in --check_metrics=*) f=${a#--check_metrics=};; esac; done
echo "$@" > "$(dirname "$0")/membench.args"
[ "$FAKE_STATUS" = hang ] && exec sleep 30
echo "gpu_health: NVML: other processes, clock event reasons, ECC"
[ "$FAKE_STATUS" = 1 ] && echo "SLOW_LINE"
[ -n "$f" ] && printf '# HELP membench_check_status verdict\\n# TYPE membench_check_status gauge\\nmembench_check_status{host="node7",gpu="0"} %s\\n' "$FAKE_STATUS" > "$f"
exit "$FAKE_STATUS"
""".replace("SLOW_LINE", SLOW)


@pytest.fixture
def slurm(tmp_path):
    """A bin folder with the fake membench and an scontrol that records its arguments; run(status, *args)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "membench").write_text(FAKE)
    (bin_dir / "scontrol").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/scontrol.log\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)

    def run(status: str, *args: str, membench: str | None = None, timeout: str = "20"):
        env = {
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "SLURMD_NODENAME": "node7",
            "MEMBENCH": membench or str(bin_dir / "membench"),
            "FAKE_STATUS": status,
            "MEMBENCH_TIMEOUT": timeout,
        }
        done = subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        log = tmp_path / "scontrol.log"
        drained = log.read_text() if log.exists() else ""
        return done, drained

    run.tmp = tmp_path
    return run


def test_healthy_exits_zero_and_drains_nothing(slurm):
    done, drained = slurm("0", "--drain")
    assert done.returncode == 0 and drained == ""
    assert (slurm.tmp / "bin" / "membench.args").read_text().split() == ["--check", "--device=all"]


def test_a_slow_gpu_exits_one_and_drains_the_node_naming_the_case(slurm):
    done, drained = slurm("1", "--drain")
    assert done.returncode == 1
    assert drained.startswith("update NodeName=node7 State=DRAIN Reason=membench --check: GPU 0: SLOW DRAM read:")
    assert SLOW in done.stdout


def test_without_drain_a_prolog_only_exits_one(slurm):
    done, drained = slurm("1")
    assert done.returncode == 1 and drained == ""


def test_provisionally_healthy_exits_zero_and_drains_nothing(slurm):
    done, drained = slurm("5", "--drain")
    assert done.returncode == 0, done.stdout
    assert not drained


@pytest.mark.parametrize("status", ["3", "4", "6"])
def test_inconclusive_no_reference_or_provisionally_unhealthy_pass_unless_strict(slurm, status):
    done, drained = slurm(status, "--drain")
    assert done.returncode == 0 and drained == ""
    done, drained = slurm(status, "--drain", "--strict")
    assert done.returncode == 1 and "State=DRAIN" in drained


def test_a_check_that_hangs_is_unhealthy(slurm):
    done, drained = slurm("hang", "--drain", timeout="1")
    assert done.returncode == 1
    assert "Reason=membench --check: timed out after 1 s" in drained


def test_bad_usage_is_status_two_and_drains_nothing(slurm):
    for args in (["--frobnicate"], ["--textfile-dir", "/no/such/dir"]):
        done, drained = slurm("0", "--drain", *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and drained == ""
    done, drained = slurm("2", "--drain")  # membench refused its flags
    assert done.returncode == 2 and drained == ""


def test_flags_after_the_separator_reach_membench_once_each(slurm):
    """membench refuses a flag given twice: a reference or GPUs named after -- stand in for the script's own."""
    args = slurm.tmp / "bin" / "membench.args"
    assert slurm("0", "--", "--check=/etc/membench/h200.json")[0].returncode == 0
    assert args.read_text().split() == ["--device=all", "--check=/etc/membench/h200.json"]
    assert slurm("0", "--", "--device=0,1", "--max_time=1")[0].returncode == 0
    assert args.read_text().split() == ["--check", "--device=0,1", "--max_time=1"]


def test_a_reference_named_after_the_separator_is_what_the_real_binary_judges_by(slurm, tmp_path):
    exe = os.environ.get("MEMBENCH_EXE") or str(ROOT / "build" / "release" / "membench")
    if not Path(exe).is_file():
        pytest.skip(f"no membench binary at {exe}")
    reference = ROOT / "benchmarks" / "references" / "nvidia-h200.json"
    done, _ = slurm("0", "--", f"--check={reference}", membench=exe)
    assert "given twice" not in done.stdout and done.returncode in (0, 1), done.stdout  # 1: no GPU here


@pytest.mark.parametrize("status", ["0", "1", "hang"])
def test_the_textfile_is_whole_and_promtool_accepts_it(slurm, status):
    out = slurm.tmp / "textfile"
    out.mkdir()
    slurm(status, "--textfile-dir", str(out), timeout="1")
    assert [p.name for p in out.iterdir()] == ["membench.prom"]  # no temporary file left for the collector
    text = (out / "membench.prom").read_text()
    membench_status = {"0": "0", "1": "1", "hang": "124"}[status]
    assert f'membench_check_exit_status{{host="node7"}} {membench_status}\n' in text
    # What the script itself exits with (a hang is a GPU in trouble: 1), not membench's status.
    assert f'membench_healthcheck_exit_status{{host="node7"}} {"0" if status == "0" else "1"}\n' in text
    if status != "hang":
        assert f'membench_check_status{{host="node7",gpu="0"}} {status}' in text
    if not shutil.which("promtool"):
        pytest.skip("promtool is not installed")
    checked = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_real_binary_on_a_node_without_a_gpu_drains_it(slurm):
    exe = os.environ.get("MEMBENCH_EXE") or str(ROOT / "build" / "release" / "membench")
    if not Path(exe).is_file():
        pytest.skip(f"no membench binary at {exe}")
    done, drained = slurm("0", "--drain", membench=exe)
    if "no CUDA device visible" not in done.stdout:
        pytest.skip("a GPU is visible here")
    assert done.returncode == 1
    assert "Reason=membench --check: no CUDA device visible" in drained


@pytest.mark.parametrize("flag", ["--help", "-h", "--version"])
def test_help_and_version_answer_without_a_gpu(slurm, flag):
    done = subprocess.run(["bash", str(SCRIPT), flag], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stderr == ""
    if flag == "--version":
        assert done.stdout.startswith("membench-healthcheck, of membench") and done.stdout.count("\n") == 1
    else:
        assert (
            "membench-healthcheck [--drain] [--textfile-dir DIR]" in done.stdout
            and "Exit status: 0 healthy" in done.stdout
        )
        assert not any(line.startswith("#") for line in done.stdout.splitlines())


def test_the_inconclusive_status_is_the_scripts_zero_where_the_script_exits_zero(slurm):
    out = slurm.tmp / "textfile3"
    out.mkdir()
    done, _ = slurm("3", "--textfile-dir", str(out))
    assert done.returncode == 0
    text = (out / "membench.prom").read_text()
    assert 'membench_check_exit_status{host="node7"} 3\n' in text
    assert 'membench_healthcheck_exit_status{host="node7"} 0\n' in text


@pytest.mark.parametrize("timeout", ["abc", "0", "-5", "1.5", " 3", "99999999"])
def test_a_bad_timeout_is_usage_and_drains_nothing(slurm, timeout):
    # timeout(1) would refuse it with status 125, which read as an unhealthy GPU and drained a healthy node.
    done, drained = slurm("0", "--drain", timeout=timeout)
    assert done.returncode == 2 and drained == ""
    assert done.stderr == f"membench-healthcheck: MEMBENCH_TIMEOUT='{timeout}': expects whole seconds above 0\n"
    assert not (slurm.tmp / "bin" / "membench.args").exists()  # membench never ran
