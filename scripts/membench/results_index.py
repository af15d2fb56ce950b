"""An index of the committed results, made from each run's own context.

    python scripts/results_index.py [--root benchmarks/results] [--check]

Every membench result file under the root becomes one row: its folder and
file, the GPU, the day it ran, membench's version and build, the sweep, its
cases (measured, failed, skipped), whether its catalog says it is complete,
and the earlier file it repeats byte for byte, if any. Files that are not
membench results (a peer tool's output, a profile) are counted apart; a
file that says it is one and cannot be read, or a .json file that is not
JSON, is refused (exit 2) rather than left out of an index written over it.
Written to ROOT/INDEX.md; with --check, exit 1 when INDEX.md is not what
the files give (a test runs this), 0 when it is, 2 on bad input.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from membench import cli
from membench import results as mr

HEADER = [
    "folder",
    "file",
    "GPU",
    "day",
    "membench",
    "sweep",
    "cases",
    "failed",
    "skipped",
    "complete",
    "repeats",
]


@dataclass
class Row:
    folder: str
    file: str
    gpu: str
    day: str
    version: str
    sweep: str
    cases: int
    failed: int
    skipped: int
    complete: str
    repeats: str = ""

    def cells(self) -> list[str]:
        return [
            self.folder,
            f"[{self.file}]({self.folder}/{self.file})",
            self.gpu,
            self.day,
            self.version,
            self.sweep,
            str(self.cases),
            str(self.failed),
            str(self.skipped),
            self.complete,
            self.repeats,
        ]


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="results_index.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default="benchmarks/results", help="the results store (default benchmarks/results)")
    p.add_argument("--check", action="store_true", help="only say whether ROOT/INDEX.md is up to date (exit 1 if not)")
    return p


def cell(text: object, limit: int = 60) -> str:
    """A table cell: one line, no pipes, cut where long."""
    s = " ".join(str(text).split()).replace("|", "/")
    return s if len(s) <= limit else s[: limit - 3] + "..."


def row(root: Path, path: Path, doc: dict) -> Row:
    context = doc.get("context", {})
    cases = mr.cases(doc).values()
    membench = doc.get("membench") if isinstance(doc.get("membench"), dict) else {}
    written = membench.get("upgraded_from", membench.get("schema_version", 0))  # the schema it was written in
    complete = "no catalog" if written == 0 else ("yes" if membench.get("complete") else "no")
    build = str(context.get("membench_build", ""))[:8]
    return Row(
        folder=path.parent.relative_to(root).as_posix(),
        file=path.name,
        gpu=cell(context.get("gpu_name", "?"), 40),
        day=cell(str(context.get("date", ""))[:10]),
        version=cell(str(context.get("membench_version", "?")) + (f" ({build})" if build else ""), 30),
        sweep=cell(context.get("sweep", ""), 50),
        cases=sum(1 for c in cases if c.runs and not c.error and not c.skipped),
        failed=sum(1 for c in cases if c.error),
        skipped=sum(1 for c in cases if c.skipped),
        complete=complete,
    )


MAX_FILES = 100_000


def json_files(root: Path) -> list[Path]:
    """The regular .json files under root, in the order of their paths; links are not followed (a store holds
    none), and a folder that cannot be read is an InputError."""

    def refuse(error: OSError) -> None:
        raise mr.InputError(f"--root {root}: cannot read {error.filename} ({error.strerror})")

    found = []
    for folder, _, names in os.walk(root, onerror=refuse, followlinks=False):
        for name in names:
            path = Path(folder) / name
            if name.endswith(".json") and not path.is_symlink() and path.is_file():
                found.append(path)
        if len(found) > MAX_FILES:
            raise mr.InputError(f"--root {root}: more than {MAX_FILES} JSON files; not a results store")
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def claims_to_be_membench(path: Path) -> bool:
    """Whether a file that membench.results refused says it is a membench result, or is not JSON at all:
    either is a broken file in the store, where a peer tool's JSON is merely another kind of file."""
    try:
        doc = json.loads(mr.read_input(path))
    except (mr.InputError, ValueError, RecursionError):
        return True
    context = doc.get("context") if isinstance(doc, dict) else None
    return isinstance(context, dict) and "membench_version" in context


def index(root: Path) -> tuple[list[Row], int]:
    """The rows of every membench result under root (folders in order), and the count of other JSON files."""
    if not root.is_dir():
        raise mr.InputError(f"--root {root}: not a folder")
    rows, others, seen = [], 0, {}
    for path in json_files(root):
        try:
            doc = mr.load(path)
        except mr.InputError:
            if claims_to_be_membench(path):
                raise  # a result file of the store that cannot be read: no index over it
            others += 1
            continue
        r = row(root, path, doc)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in seen:
            r.repeats = seen[digest]
        else:
            seen[digest] = f"{r.folder}/{r.file}"
        rows.append(r)
    return rows, others


def render(rows: list[Row], others: int) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    out = [
        "# Index of the results",
        "",
        "Made by `scripts/results_index.py` from each file's own context (do not edit by hand; "
        "`tests/scripts/test_results_index.py` fails when it is out of date). One row per membench result file; "
        f"{others} other JSON file(s) (peer tools' output, profiles) are not listed.",
        "",
        line(HEADER),
        line(["---"] * 6 + ["---:"] * 3 + ["---"] * 2),
    ]
    out += [line(r.cells()) for r in rows]
    return "\n".join(out) + "\n"


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        root = Path(args.root)
        text = render(*index(root))
    except mr.InputError as e:
        return cli.refused("results_index.py", e)
    target = root / "INDEX.md"
    stale = f"results_index.py: {target} is out of date; run scripts/results_index.py"
    return cli.write_or_check(target, text, args.check, stale)
