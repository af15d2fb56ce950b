"""Every script as a person runs it: `--help` from the command line shows its summary, and each
default is the one its help names."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).parents[2] / "scripts"
SUMMARIES = {
    "compare": "Regression gate: compare two membench JSON files case by case.",
    "fleet": "Many GPUs measured the same way, merged: which one is slow?",
    "levels": "The memory levels a hierarchy sweep shows, against the device's sizes.",
    "ncu_check": "Model vs hardware counters: every model membench reports, checked with Nsight Compute.",
    "plot": "Figures for every experiment present in a membench JSON file.",
    "export": "Export a membench run to the formats regression trackers and monitoring read.",
    "report": "A report of membench runs to look at: one self-contained HTML page and a markdown summary.",
    "history": "A history of membench runs, in SQLite or PostgreSQL: add runs, list them, draw a case's trend, gate a new run.",
    "headline": "The README's table of results, made from the committed runs each cell names.",
    "reference": "The expected results of one GPU model, for membench --check: a band per case of the check sweep.",
}
WITH_DEFAULTS = [name for name in SUMMARIES if name not in ("export", "report")]  # their flags have no default


@pytest.mark.parametrize("name, summary", SUMMARIES.items())
def test_help_from_the_command_line_starts_with_the_summary(name, summary):
    done = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), "--help"], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith(f"usage: {name}.py ")
    assert summary in " ".join(done.stdout.split())  # argparse wraps the text


@pytest.mark.parametrize("name", [*SUMMARIES, "results_index"])
def test_version_from_the_command_line_is_one_line_of_the_package_and_the_schema(name):
    from membench import __version__

    done = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), "--version"], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{name}.py (membench scripts {__version__}, result schema 1, 2, 3 and 4)\n"


def test_the_package_version_is_pyprojects():
    from membench import __version__

    pyproject = (SCRIPTS.parent / "pyproject.toml").read_text()
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == __version__


@pytest.mark.parametrize("name", SUMMARIES)
def test_a_bad_flag_from_the_command_line_is_one_line_and_exit_2(name):
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / f"{name}.py"), "x.json", "--no-such-flag"], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr == f"{name}.py: unrecognized arguments: --no-such-flag\n" or done.stderr.startswith(
        f"{name}.py: "
    )
    assert len(done.stderr.splitlines()) == 1 and done.stdout == ""


@pytest.mark.parametrize("name", WITH_DEFAULTS)
def test_each_default_is_the_one_the_help_names(name):
    parser = importlib.import_module(f"membench.{name}").create_parser()
    named = 0
    for action in parser._actions:
        said = re.search(r"\(default:? ([^;)]+)", action.help or "")
        if not said:
            continue
        named += 1
        value = said.group(1).split()[0]  # "ncu on PATH" names the command ncu
        if action.type in (float, int):
            assert action.default == action.type(value), action.dest
        else:
            assert action.default == value, action.dest
    assert named >= 1


# Hostile files, as a CI job or a fleet might hand them over: every script says
# one line naming the file, exits 2, and never shows a traceback.
HOSTILE = {
    "deep": "[" * 100_000,
    "huge_int": '{"context": {"membench_version": "0.1.0"}, "benchmarks": [{"name": "a/b", "real_time": '
    + "9" * 5000
    + "}]}",
    "other_program": '{"context": {"executable": "./bm", "library_version": "v1.8.3"}, "benchmarks": '
    '[{"name": "BM_memcpy/8", "run_type": "iteration", "real_time": 5.0, "time_unit": "ns"}]}',
    "fast": '{"context": {"membench_version": "0.1.0"}, "benchmarks": [{"name": "a/b/manual_time", '
    '"real_time": "fast", "time_unit": "us"}]}',
    "fortnight": '{"context": {"membench_version": "0.1.0"}, "benchmarks": [{"name": "a/b/manual_time", '
    '"real_time": 1.0, "time_unit": "fortnight"}]}',
    "empty": '{"context": {"membench_version": "0.1.0"}, "benchmarks": []}',
    "binary": "\x00\xff\xfe",
    "nan": '{"context": {"membench_version": "0.1.0"}, "benchmarks": [{"name": "a/b/manual_time", '
    '"real_time": NaN, "time_unit": "us"}]}',
}
INVOCATIONS = {
    "report": ["{f}", "--out", "{tmp}/r"],
    "compare": ["{f}", "{f}"],
    "export-bmf": ["{f}", "--format", "bmf"],
    "export-prometheus": ["{f}", "--format", "prometheus"],
    "fleet": ["{f}"],
    "history-add": ["--db", "{tmp}/h.sqlite", "add", "{f}"],
    "reference": ["{f}", "--out", "{tmp}/ref.json"],
    "levels": ["{f}"],
    "plot": ["{f}", "--out", "{tmp}/p"],
}


@pytest.mark.parametrize("invocation", INVOCATIONS)
@pytest.mark.parametrize("content", HOSTILE)
def test_a_hostile_file_is_one_line_and_exit_2(tmp_path, invocation, content):
    path = tmp_path / f"{content}.json"
    path.write_text(HOSTILE[content], encoding="latin-1" if content == "binary" else "utf-8")
    script = invocation.split("-")[0]
    args = [a.format(f=path, tmp=tmp_path) for a in INVOCATIONS[invocation]]
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / f"{script}.py"), *args],
        capture_output=True,
        text=True,
        env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"{script}.py: "), done.stderr[:300]
    assert str(path) in done.stderr and len(done.stderr) < 400


@pytest.mark.parametrize(
    "error, line",
    [
        (FileNotFoundError(2, "No such file or directory", "run.json"), "x.py: run.json: No such file or directory\n"),
        (PermissionError(13, "Permission denied"), "x.py: [Errno 13] Permission denied\n"),
        (ValueError("--out: exists and is not a directory"), "x.py: --out: exists and is not a directory\n"),
    ],
)
def test_an_input_a_command_cannot_use_is_one_line_and_exit_2(capsys, error, line):
    from membench import cli

    assert cli.refused("x.py", error) == 2
    assert capsys.readouterr().err == line


def test_a_missing_package_is_one_line_naming_it_and_the_pinned_set_and_exit_2(capsys):
    from membench import cli

    with pytest.raises(SystemExit) as stopped:
        cli.missing_package("plot.py", ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib"))
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "plot.py: needs the Python package 'matplotlib': python -m pip install -r scripts/requirements.txt\n"
    )


def test_a_replaced_file_is_written_whole_and_a_special_file_is_never_opened(tmp_path, monkeypatch):
    from membench import cli as membench_cli

    new = tmp_path / "new.prom"
    membench_cli.replace_file(new, "a 1\n")  # not there yet: made
    assert new.read_text() == "a 1\n"
    membench_cli.replace_file(new, "a 2\n")  # there: replaced whole
    assert new.read_text() == "a 2\n" and [p.name for p in tmp_path.iterdir()] == ["new.prom"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        membench_cli.replace_file(fifo, "x")

    def no_room(self, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", no_room)  # the partial file is never made: the first error is told
    with pytest.raises(OSError, match="No space left"):
        membench_cli.replace_file(new, "a 3\n")
    monkeypatch.undo()

    def refused(src, dst):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "replace", refused)  # the partial is made, the rename fails: nothing is left behind
    with pytest.raises(OSError, match="not permitted"):
        membench_cli.replace_file(new, "a 4\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "new.prom"] and new.read_text() == "a 2\n"


FIXTURE = Path(__file__).parent / "fixtures" / "schema4" / "hierarchy.json"
PRINTING = {  # a script and arguments that print more than a pipe holds
    "compare": [str(FIXTURE), str(FIXTURE)],
    "export": [str(FIXTURE), "--format", "prometheus"],
    "fleet": [str(FIXTURE)],
    "levels": [str(FIXTURE)],
}


@pytest.mark.parametrize("name", sorted(PRINTING))
def test_a_reader_that_goes_away_ends_the_script_quietly(name):
    # `compare.py a b | head`: the reader closes the pipe before the script has printed; the script stops with
    # 141 (as a shell's tools do on SIGPIPE) and no traceback, in-flight output or at exit.
    read, write = os.pipe()
    os.close(read)  # a reader already gone: the first write breaks
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / f"{name}.py"), *PRINTING[name]],
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )
    os.close(write)
    assert (done.returncode, done.stderr) == (141, "")
    # A reader that stays: the same command prints and ends as it always did.
    whole = subprocess.run(
        [sys.executable, str(SCRIPTS / f"{name}.py"), *PRINTING[name]], capture_output=True, text=True, timeout=120
    )
    assert whole.returncode in (0, 1) and whole.stdout and "Traceback" not in whole.stderr


def test_every_script_s_main_ends_quietly_when_its_reader_goes_away():
    # The commands pyproject.toml installs are the mains the shims run: each one wrapped once, by cli.command.
    text = (SCRIPTS.parent / "pyproject.toml").read_text()  # tomllib is Python 3.11's; the scripts run on 3.10
    section = text.split("[project.scripts]\n", 1)[1].split("\n[", 1)[0]
    installed = re.findall(r'^membench-[\w-]+ = "([\w.:]+)"$', section, re.M)
    assert len(installed) == 12
    for entry in installed:
        module, _, function = entry.partition(":")
        main = getattr(importlib.import_module(module), function)
        assert getattr(main, "__wrapped__", None) is not None and main.__name__ == "main", entry
