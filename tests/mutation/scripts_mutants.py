"""Mutation testing of scripts/ with mutmut: do the scripts' tests catch a wrong verdict?

    python tests/mutation/scripts_mutants.py [--modules compare fleet ...] [--jobs N] [--sample 0.3]

Copies scripts/ and tests/scripts/ (and what the tests read: the README,
the committed results and references, the sweeps) into scratch folders,
lists each module's mutants with mutmut, cuts them into chunks (one folder
each, so that one module's mutants are tested on several cores), tests
every mutant against the module's own tests (every test for the shared
modules), and prints, per module and in all, the mutants killed. A mutant
that only changes the text of a message (help, an error line, a docstring)
is counted apart: the score is over the behavioural mutants. The
surviving behavioural mutants are listed, so each can be killed by a test
or explained. With --sample, a share of each module's mutants drawn at
random is tested, and the score in all comes with its 95% interval: what
the sample says of every mutant.

Needs tests/mutation/requirements.txt and scripts/requirements.txt. Not
part of CI: every mutant of the package takes hours of one core.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import itertools
import json
import math
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import scoring

REPO = Path(__file__).resolve().parents[2]
# The tests that exercise each module; a module not named here gets every test. "CLI" is the
# command-line tests of the module's own command only (those whose name holds the module's):
# the whole file runs for 45 s, and a surviving mutant runs every test it is given.
CLI = "test_cli.py -k {module}"
OWN_TESTS = {
    "compare": ["test_compare.py", CLI],
    "fleet": ["test_fleet.py", "test_report.py", "test_pairs.py", CLI],  # the report draws the fleet
    "levels": ["test_levels.py", CLI],
    "ncu_check": ["test_ncu_check.py", CLI],
    "plot": ["test_plot.py", "test_model_lines.py", CLI],
    "export": ["test_export.py", CLI],
    "report": ["test_report.py", "test_history.py", CLI],
    "history": ["test_history.py", CLI],
    "history_store": ["test_history.py"],
    "reference": ["test_reference.py", CLI],
    # Old files read as new ones: the reader's tests and those of every script that reads old files.
    "compat": [
        "test_compat.py",
        "test_results.py",
        "test_package.py",
        "test_report.py",
        "test_compare.py",
        "test_history.py",
        "test_model_lines.py",
    ],
    "headline": ["test_headline.py", CLI],
    # The shared reader: its own tests and the gates' (the figures' tests add time, not kills).
    "results": ["test_results.py", "test_compare.py", "test_fleet.py", "test_levels.py", "test_names.py"],
    "case": ["test_results.py", "test_compare.py", "test_fleet.py", "test_history.py", "test_export.py"],
    "loading": ["test_results.py", "test_compare.py", "test_schema.py"],
    "compat_declarations": ["test_compat.py", "test_report.py", "test_model_lines.py"],
    # The declarations feed the figures, the report and the ncu check.
    "declarations": ["test_figures.py", "test_model_lines.py", "test_report.py", "test_ncu_check.py"],
    "figures": ["test_figures.py", "test_model_lines.py", "test_plot.py"],
    "report_page": ["test_report.py"],
    "report_marks": ["test_report.py"],
    "report_others": ["test_report.py", "test_fleet.py"],
    "pairs": ["test_pairs.py", "test_report.py"],
    "results_index": ["test_results_index.py"],
    "ncu_profile": ["test_ncu_check.py", "test_explain.py", "test_examples_profiled.py"],
    # membench-explain: the report read, the ceilings, the model, what it shows.
    "ncu_kernel": ["test_explain.py", "test_explain_decisions.py"],
    "ceilings": ["test_explain.py", "test_explain_decisions.py", "test_reference.py"],
    "explain_model": ["test_explain.py", "test_explain_decisions.py"],
    "explain_show": ["test_explain.py"],
    "explain": ["test_explain.py"],
    "cli": ["test_cli.py", "test_results.py", "test_report.py", "test_headline.py", "test_results_index.py"],
}


def create_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="scripts_mutants.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--modules", nargs="*", help="modules of scripts/membench/ to mutate (default: every one)")
    p.add_argument("--jobs", type=int, default=2, help="chunks of mutants tested at once, each in its own folder")
    p.add_argument("--chunk", type=int, default=40, help="mutants per chunk (default 40)")
    p.add_argument(
        "--sample",
        type=float,
        default=1.0,
        help="the share of each module's mutants to test, drawn at random with --seed (default 1: every one)",
    )
    p.add_argument("--seed", type=int, default=1, help="the draw of --sample (default 1)")
    p.add_argument(
        "--keep", type=Path, help="mutate in this folder and keep it: a run cut short can be scored with --score"
    )
    p.add_argument(
        "--score", type=Path, help="run nothing: score the chunks a --keep run left here (untested: not run)"
    )
    p.add_argument(
        "--retest",
        type=Path,
        help="test again, against today's tests, the mutants that survived in the chunks a --keep run left here",
    )
    p.add_argument(
        "--seconds",
        type=float,
        help="stop every chunk this long after the start (the listings included) and score what was tested (the rest: not run)",
    )
    p.add_argument(
        "--repo", type=Path, default=REPO, help="the checkout whose scripts and tests to mutate (default: this one)"
    )
    return p


def copy_tests(folder: Path, repo: Path) -> None:
    """The tests and what they read of the repository (the README's tables, the committed results and
    references, the result file's JSON Schema every load checks against), copied: a mutant that writes where it should read must not reach the checkout."""
    for tree in ("tests/scripts", "benchmarks/results", "benchmarks/references", "sweeps", "docs", "schema"):
        shutil.rmtree(folder / tree, ignore_errors=True)
        shutil.copytree(repo / tree, folder / tree, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("README.md", "pyproject.toml"):
        shutil.copy2(repo / name, folder / name)


def write_runner(module: str, folder: Path) -> None:
    """The folder's run_tests.py: the module's test files in one pytest run, then its command-line tests."""
    chosen = [t.format(module=module).split(" ", 1) for t in OWN_TESTS.get(module, ["."])]
    chosen = [t for t in chosen if (folder / "tests" / "scripts" / t[0]).exists()]
    groups = [[f"tests/scripts/{t[0]}" for t in chosen if len(t) == 1]]
    groups += [[f"tests/scripts/{t[0]}", *t[1].split(" ", 1)] for t in chosen if len(t) == 2]
    # mutmut counts only exit status 1 as a kill; a mutant that breaks the import makes pytest
    # exit 2 (a collection error), so every failing status is made 1, except 5: a selection that
    # holds no test has nothing to say. Killed at the first failure.
    (folder / "run_tests.py").write_text(
        "import subprocess, sys\n"
        f"groups = {[g for g in groups if g]!r}\n"
        "for group in groups:\n"
        "    status = subprocess.call([sys.executable, '-m', 'pytest', '-x', '-q', '-p', 'no:cacheprovider', *group])\n"
        "    if status not in (0, 5):\n"
        "        sys.exit(1)\n"
    )


def no_bytecode(folder: Path) -> None:
    """No compiled copy of a module can be kept in the folder: a file where Python would make its __pycache__.
    A .pyc is trusted by its source's size and mtime in whole seconds, and mutmut writes a mutant and puts the
    original back within one second: a test that runs a script in a Python of its own (whose environment need not
    carry PYTHONDONTWRITEBYTECODE) would leave a mutant's bytecode that every later import runs, which fails the
    tests of every mutant after it (killed, falsely) and of the unmutated source."""
    cache = folder / "scripts" / "membench" / "__pycache__"
    if cache.is_dir():
        shutil.rmtree(cache)
    cache.write_text("")


def refresh(module: str, folder: Path, repo: Path) -> None:
    """A folder's tests, what they read and its runner as the checkout has them today; no bytecode kept."""
    no_bytecode(folder)
    copy_tests(folder, repo)
    write_runner(module, folder)


def unmutated_pass(module: str, folder: Path, repo: Path) -> bool:
    """Whether the module's tests pass in the folder with no mutant. Tests that fail unmutated would kill every
    mutant: such a module is left out, and says so."""
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if subprocess.call([sys.executable, "run_tests.py"], cwd=folder, env=test_env(repo), **quiet) == 0:
        return True
    print(f"scripts_mutants.py: {module}: its tests fail with no mutant; left out", file=sys.stderr)
    return False


def prepare(module: str, folder: Path, repo: Path) -> list[int]:
    """A folder holding what the module's tests need and a mutmut cache listing its mutants; their ids."""
    shutil.copytree(repo / "scripts", folder / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    refresh(module, folder, repo)
    # mutmut's own listing, without running anything: the ids are the same in every copy of this folder.
    listing = (
        "from mutmut import add_mutations_by_file; from mutmut.cache import update_line_numbers; "
        f"f = 'scripts/membench/{module}.py'; update_line_numbers(f); add_mutations_by_file({{}}, f, [], None)"
    )
    subprocess.run([sys.executable, "-c", listing], cwd=folder, check=True)
    if not unmutated_pass(module, folder, repo):
        return []
    return [row[0] for row in sqlite3.connect(folder / ".mutmut-cache").execute("select id from Mutant order by id")]


def test_env(repo: Path) -> dict[str, str]:
    """The tests' environment: no bytecode (two mutants of the same size written within one second would
    otherwise run the first one's stale .pyc), no display, and the checkout's membench binary where one is
    built (the tests that run it skip without it, and would let its callers' mutants through)."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
    built = [repo / "build" / tree / "membench" for tree in ("release", "h200", "debug")]
    exe = next((b for b in built if b.is_file()), None)
    if exe is not None and "MEMBENCH_EXE" not in env:
        env["MEMBENCH_EXE"] = str(exe)
    return env


def run_chunk(
    module: str, folder: Path, ids: list[int], deadline: float | None, repo: Path, record: bool = True
) -> None:
    """Test the mutants `ids` one by one in `folder` (a copy of the module's prepared folder) until the deadline;
    `record`: the folder's chunk.json names them (a retest keeps the chunk's own)."""
    if record:
        (folder / "chunk.json").write_text(json.dumps({"module": module, "ids": ids}))
    env = test_env(repo)
    for mutant_id in ids:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return
        command = [sys.executable, "-m", "mutmut", "run", str(mutant_id), "--no-progress"]
        command += ["--paths-to-mutate", f"scripts/membench/{module}.py", "--tests-dir", "tests/scripts"]
        command += ["--runner", f"{sys.executable} run_tests.py"]
        # Its own session, so that at the deadline mutmut and the tests it started go together.
        run = subprocess.Popen(
            command, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True
        )
        try:
            run.wait(timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)  # this mutant and those after it are counted as not run
            run.wait()
            return


def survivors(folder: Path) -> list[int]:
    """The mutants of a chunk that survived its tests."""
    given = json.loads((folder / "chunk.json").read_text())["ids"]
    rows = sqlite3.connect(folder / ".mutmut-cache").execute("select id, status from Mutant").fetchall()
    return [i for i, status in rows if i in given and status == "bad_survived"]


def untested(folder: Path, ids: list[int]) -> list[int]:
    """These mutants marked untested in the chunk's cache, so that mutmut runs them again (it passes over a
    mutant whose status it has, whatever the tests are now); the ids."""
    with sqlite3.connect(folder / ".mutmut-cache") as cache:
        cache.executemany("update Mutant set status = 'untested' where id = ?", [(i,) for i in ids])
    return ids


def retest(args: argparse.Namespace, folders: dict[str, list[Path]]) -> None:
    """Each kept chunk's survivors tested again against today's tests (and today's copies of what they read).
    The module's source must be the one its mutants were listed from: a mutant is a line number and an index."""
    chunks: list[tuple[str, Path, list[int]]] = []
    for module, kept in folders.items():
        name = f"scripts/membench/{module}.py"
        if any((f / name).read_text() != (args.repo / name).read_text() for f in kept):
            print(
                f"scripts_mutants.py: {module}: its source changed since these mutants were listed; left out",
                file=sys.stderr,
            )
            continue
        for folder in kept:
            refresh(module, folder, args.repo)
        if kept and not unmutated_pass(module, kept[0], args.repo):
            continue
        chunks += [(module, f, untested(f, survivors(f))) for f in kept]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(lambda c: run_chunk(*c, None, args.repo, record=False), chunks))


def mutate(args: argparse.Namespace, modules: list[str], scratch: Path) -> dict[str, list[Path]]:
    """Every module's mutants (or --sample of them) in chunks, --jobs at a time (the modules' listings too, each
    with its unmutated tests); each module's folders."""
    deadline = None if args.seconds is None else time.monotonic() + args.seconds

    def listed(module: str) -> tuple[str, Path, list[int]]:
        template = scratch / module / "listing"
        ids = prepare(module, template, args.repo)
        if args.sample < 1.0:
            ids = sorted(random.Random(f"{args.seed}:{module}").sample(ids, math.ceil(args.sample * len(ids))))
        return module, template, ids

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        listings = list(pool.map(listed, modules))
    per_module: list[list[tuple[str, Path, list[int]]]] = []
    for module, template, ids in listings:
        per_module.append([])
        for k in range(0, len(ids), args.chunk):
            folder = scratch / module / f"chunk-{k // args.chunk}"
            shutil.copytree(template, folder)
            per_module[-1].append((module, folder, ids[k : k + args.chunk]))
        shutil.rmtree(template)
    # Every module's first chunk, then every module's second, ...: a run cut short by --seconds has tested some
    # of every module, not all of the first modules and none of the last.
    chunks = [c for round_ in itertools.zip_longest(*per_module) for c in round_ if c is not None]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(lambda c: run_chunk(*c, deadline, args.repo), chunks))
    return {m: [c[1] for c in chunks if c[0] == m] for m in modules}


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        import mutmut  # noqa: F401
    except ModuleNotFoundError:
        print(
            "scripts_mutants.py: needs mutmut: python -m pip install -r tests/mutation/requirements.txt",
            file=sys.stderr,
        )
        return 2
    modules = args.modules or sorted(
        p.stem for p in (args.repo / "scripts" / "membench").glob("*.py") if p.stem != "__init__"
    )
    kept = args.score or args.retest
    if kept:
        # A chunk still being made (no chunk.json yet) has tested nothing.
        folders = {m: sorted(f.parent for f in (kept / m).glob("chunk-*/chunk.json")) for m in modules}
        if args.retest:
            retest(args, folders)
    else:
        scratch = args.keep or Path(tempfile.mkdtemp(prefix="membench-mutmut-"))
        scratch.mkdir(parents=True, exist_ok=True)
        folders = mutate(args, modules, scratch)
    # Scoring asks mutmut for each mutated line that may be a message's: a process each, --jobs at a time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        outcomes = list(pool.map(lambda m: scoring.score(m, folders[m], args.repo), [m for m in folders if folders[m]]))
    print(scoring.table(outcomes))
    if not args.keep and not kept:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
