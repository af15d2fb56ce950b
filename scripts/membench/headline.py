"""The README's table of results, made from the committed runs each cell names.

    python scripts/headline.py [--spec benchmarks/results/headline.json] [--readme README.md] [--check]

The spec lists the rows: what a row shows, its unit, its cells (a result
file under benchmarks/results/ and a case in it, named by its family,
variant and the axes it fixes, never by its name; the metric
bytes_per_second unless named), whether the cases' pct_of_peak goes beside
them, and the peers beside it, as text in which {K} stands for the K-th
of its beside cells' bytes per second in the row's unit; and, under
"energy", a level per row with the file and case of a --energy run (its
bandwidth, the board's power, picojoules per byte, and above the idle
board). A reference that names no case of its file, or several, is an
error. Each value is the case's
median over its repetitions, read through the same reader as every script
(old names under today's). The tables replace what stands between
<!-- headline --> and <!-- /headline -->, and <!-- energy --> and
<!-- /energy -->, in the README; with --check, exit
1 when the README's table is not what the files give (a test runs this), 0
when it is, 2 on bad input (a file or case the spec names is not there).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from membench import cli
from membench import results as mr

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
UNITS = {"GB/s": 1e9, "TB/s": 1e12, "ns": 1.0, "G updates/s": 1e9}
BLOCKS = {"rows": ("<!-- headline -->\n", "<!-- /headline -->"), "energy": ("<!-- energy -->\n", "<!-- /energy -->")}


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="headline.py", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--spec", default="benchmarks/results/headline.json", help="the rows (default benchmarks/results/headline.json)"
    )
    p.add_argument("--readme", default="README.md", help="the page the table goes into (default README.md)")
    p.add_argument("--check", action="store_true", help="only say whether the README's table is up to date")
    return p


def four(value: float) -> str:
    """Four significant digits, trailing zeros kept: 4552.3 -> 4552, 32.599 -> 32.60, 9.8908 -> 9.891."""
    if value == 0:
        return "0"
    return f"{value:.{max(0, 3 - math.floor(math.log10(abs(value))))}f}"


def described(ref: dict) -> str:
    """A reference as a person reads it: stream read (type float, elements 134217728)."""
    axes = ", ".join(f"{k} {v}" for k, v in ref.get("axes", {}).items())
    return f"{ref['family']} {ref['variant']}" + (f" ({axes})" if axes else "")


class Files:
    """The committed files, each read once, and the case a reference names in one."""

    def __init__(self) -> None:
        self.cases: dict[str, dict[str, mr.Case]] = {}

    def case(self, ref: dict) -> mr.Case:
        file = ref["file"]
        if file not in self.cases:
            self.cases[file] = mr.cases(mr.load(RESULTS / file))
        fixed = ref.get("axes", {})
        found = [
            c
            for c in self.cases[file].values()
            if (c.family, c.variant) == (ref["family"], ref["variant"])
            and all(c.params.get(k) == v for k, v in fixed.items())
        ]
        if len(found) != 1:
            raise mr.InputError(f"{file}: {described(ref)} names {len(found)} cases, not one")
        return found[0]

    def value(self, ref: dict, metric: str) -> float:
        value = self.case(ref).median(metric)
        if value is None:
            raise mr.InputError(f"{ref['file']}: no {metric} of {described(ref)}")
        return value


def row(files: Files, spec: dict) -> str:
    unit = spec["unit"]
    if unit not in UNITS:
        raise mr.InputError(f"{spec['what']}: unit {unit!r} is not one of {', '.join(UNITS)}")
    cells = spec["cells"]
    values = [files.value(c, c.get("metric", "bytes_per_second")) / UNITS[unit] for c in cells]
    pcts = [files.value(c, "pct_of_peak") for c in cells] if spec.get("pct") else []
    others = spec.get("beside_cells", [])

    def own(match: re.Match) -> str:
        k = int(match.group(1))
        if k >= len(others):
            raise mr.InputError(f"{spec['what']}: its beside text names cell {k} of {len(others)}")
        return four(files.value(others[k], "bytes_per_second") / UNITS[unit])

    beside = re.sub(r"\{(\d+)\}", own, spec.get("beside", ""))
    measured = " / ".join(four(v) for v in values) + f" {unit}"
    return f"| {spec['what']} | {measured} | {' / '.join(f'{p:.1f}' for p in pcts)} | {beside} |"


def energy_row(files: Files, spec: dict) -> str:
    """A level's energy: its bandwidth, the board's power, picojoules per byte, and above the idle board."""
    got = [files.value(spec, m) for m in ("bytes_per_second", "power_w", "pj_per_byte", "pj_per_byte_above_idle")]
    case = files.case(spec).name.removesuffix("/manual_time")  # the name as the file holds it: output
    return f"| {spec['level']} | `{case}` | {four(got[0] / 1e9)} | {got[1]:.0f} | {four(got[2])} | {four(got[3])} |"


def tables(spec_path: Path) -> dict[str, str]:
    """Each block's table: the results (rows) and, where the spec has them, the energy per level."""
    try:
        spec = json.loads(mr.read_input(spec_path))
        rows = spec["rows"]
    except RecursionError as e:
        raise mr.InputError(f"{spec_path}: not a headline spec (nested too deep to read)") from e
    except (ValueError, KeyError, TypeError) as e:
        raise mr.InputError(f"{spec_path}: not a headline spec ({str(e)[:120]})") from e
    files = Files()
    out = {}
    try:
        lines = ["| what | measured | % of peak | beside it |", "| --- | ---: | ---: | --- |"]
        out["rows"] = "\n".join(lines + [row(files, r) for r in rows]) + "\n"
        if "energy" in spec:
            lines = [
                "| level | case | GB/s | board W | pJ/B | pJ/B above idle |",
                "| --- | --- | ---: | ---: | ---: | ---: |",
            ]
            out["energy"] = "\n".join(lines + [energy_row(files, r) for r in spec["energy"]]) + "\n"
    except (KeyError, TypeError) as e:
        raise mr.InputError(f"{spec_path}: a row lacks {e}") from e
    return out


def replaced(readme: str, made: dict[str, str]) -> str:
    for block, text in made.items():
        begin, end = BLOCKS[block]
        start, stop = readme.find(begin), readme.find(end)
        if start < 0 or stop < start:
            raise mr.InputError(f"the README has no {begin.strip()} ... {end} block")
        readme = readme[: start + len(begin)] + text + readme[stop:]
    return readme


def located(path: str) -> Path:
    """A path as given, or, relative and not there, in the repository (a default from any folder)."""
    given = Path(path)
    return given if given.is_absolute() or given.exists() else ROOT / given


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        readme_path = located(args.readme)
        readme = mr.read_input(readme_path)
        new = replaced(readme, tables(located(args.spec)))
    except (mr.InputError, OSError) as e:
        return cli.refused("headline.py", e)
    stale = f"headline.py: the table in {readme_path} is not what the files give; run scripts/headline.py"
    return cli.write_or_check(readme_path, new, args.check, stale)
