"""How the scripts' mutants are judged: a mutant that changes only a message's text or an annotation is told apart
from one that changes behaviour, a module's kept chunks are scored from mutmut's caches, and a sample's score comes
with its Wilson interval. Used by scripts_mutants.py."""

from __future__ import annotations

import ast
import json
import math
import sqlite3
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

# A string mutant on a line with one of these only changes what a person reads.
MESSAGE_MARKS = (
    "help=",
    "description=",
    "prog=",
    "print(",
    "Error(",
    "raise ",
    "warnings.append(",
    "missing_package(",
    "file=sys.stderr",
    '"""',
)


@dataclass
class Outcome:
    module: str
    killed: int = 0
    survived: list[tuple[int, str, str]] = field(default_factory=list)  # (line, original, mutated) behavioural
    text_survived: list[tuple[int, str, str]] = field(default_factory=list)
    text_killed: int = 0
    annotations: int = 0  # mutants of a type annotation only: never evaluated (from __future__ import annotations)
    timeouts: int = 0  # the tests no longer finished: killed, counted among the killed
    not_run: int = 0  # left untested (a run cut short): counted nowhere, the run is incomplete


# CPython's parser is not safe to call from several threads at once (3.11 fails with "AST constructor recursion
# depth mismatch"), and the modules are scored on several.
PARSING = threading.Lock()


def parse(source: str) -> ast.Module:
    with PARSING:
        return ast.parse(source)


def docstring_lines(source: str) -> set[int]:
    """Line numbers (1-based) inside docstrings."""
    lines: set[int] = set()
    for node in ast.walk(parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(getattr(first, "value", None), ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def is_text(original: str, mutated: str, line: int, docstrings: set[int]) -> bool:
    """A mutant that only wraps a string in XX .. XX on a message line."""
    if line in docstrings:
        return True
    if "XX" not in mutated or mutated.replace("XX", "") != original.replace("XX", ""):
        return False
    return any(mark in original for mark in MESSAGE_MARKS)


def is_annotation_only(original: str, mutated: str) -> bool:
    """A mutant that changes only the annotation of an annotated assignment (`x: int | str = 1`)."""
    try:
        before, after = parse(original).body, parse(mutated).body
    except SyntaxError:
        return False
    if (
        len(before) != 1
        or len(after) != 1
        or not isinstance(before[0], ast.AnnAssign)
        or not isinstance(after[0], ast.AnnAssign)
    ):
        return False
    return (ast.dump(before[0].target), ast.dump(before[0].value) if before[0].value else None) == (
        ast.dump(after[0].target),
        ast.dump(after[0].value) if after[0].value else None,
    )


def mutated_line(folder: Path, mutant_id: int) -> str:
    shown = subprocess.run(
        [sys.executable, "-m", "mutmut", "show", str(mutant_id)], cwd=folder, capture_output=True, text=True
    ).stdout
    added = [l[1:] for l in shown.splitlines() if l.startswith("+") and not l.startswith("+++")]
    return added[0] if added else ""


def score(module: str, folders: list[Path], repo: Path) -> Outcome:
    """The outcome of a module's chunks (each folder's chunk.json names the mutants it was given), mutants
    untested so far counted as not run: a run cut short can be scored from the folders --keep kept."""
    source = (repo / "scripts" / "membench" / f"{module}.py").read_text()
    source_lines = source.splitlines()
    docstrings = docstring_lines(source)
    outcome = Outcome(module)
    for folder in folders:
        given = json.loads((folder / "chunk.json").read_text())["ids"]
        db = sqlite3.connect(folder / ".mutmut-cache")
        rows = db.execute(
            "select Mutant.id, Line.line_number, Mutant.status from Mutant join Line on Mutant.line = Line.id "
            f"where Mutant.id in ({','.join(map(str, given)) or 0}) order by Mutant.id"
        ).fetchall()
        for mutant_id, line_number, status in rows:
            line = line_number + 1
            original = source_lines[line_number] if line_number < len(source_lines) else ""
            # Only a line with a string on it can hold a message-text mutant; asking mutmut costs a process.
            maybe_text = line in docstrings or '"' in original or "'" in original
            mutated = mutated_line(folder, mutant_id) if maybe_text or status == "bad_survived" else ""
            text = maybe_text and is_text(original.strip(), mutated.strip(), line, docstrings)
            if status == "untested":
                outcome.not_run += 1
            elif status in ("ok_killed", "ok_suspicious", "bad_timeout"):  # suspicious: killed, slowly
                outcome.timeouts += status == "bad_timeout"
                if text:
                    outcome.text_killed += 1
                else:
                    outcome.killed += 1
            elif status == "bad_survived":
                if is_annotation_only(original.strip(), mutated.strip()):
                    outcome.annotations += 1
                else:
                    target = outcome.text_survived if text else outcome.survived
                    target.append((line, original.strip(), mutated.strip()))
    return outcome


def wilson(killed: int, total: int) -> tuple[float, float]:
    """The 95% Wilson interval of a share, in percent: what a sample of the mutants says of them all."""
    if total == 0:
        return (0.0, 100.0)
    z, p = 1.96, killed / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (100.0 * (centre - half), 100.0 * (centre + half))


def table(outcomes: list[Outcome]) -> str:
    """Per module and in all, the mutants killed (the score over the behavioural ones, with its 95% interval),
    then every surviving mutant, behavioural first."""
    lines = [
        "| module | behavioural mutants | killed | survived | score | message-text mutants (survived) "
        "| annotation-only (equivalent) | timeouts (killed) | not run |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    total_killed = total_survived = 0
    for o in outcomes:
        behavioural = o.killed + len(o.survived)
        total_killed += o.killed
        total_survived += len(o.survived)
        lines.append(
            f"| {o.module} | {behavioural} | {o.killed} | {len(o.survived)} | {100.0 * o.killed / max(behavioural, 1):.0f}% "
            f"| {o.text_killed + len(o.text_survived)} ({len(o.text_survived)}) | {o.annotations} | {o.timeouts} "
            f"| {o.not_run} |"
        )
    total = total_killed + total_survived
    low, high = wilson(total_killed, total)
    lines.append(
        f"| all | {total} | {total_killed} | {total_survived} | {100.0 * total_killed / max(total, 1):.1f}% "
        f"(95%: {low:.1f}-{high:.1f}) | | | | {sum(o.not_run for o in outcomes)} |"
    )
    for o in outcomes:
        for line, original, mutated in o.survived:
            lines.append(f"survived: scripts/{o.module}.py:{line}: {original}  ->  {mutated}")
    for o in outcomes:
        for line, _original, mutated in o.text_survived:
            lines.append(f"text survived: scripts/{o.module}.py:{line}: {mutated}")
    return "\n".join(lines)
