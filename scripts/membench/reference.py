"""The expected results of one GPU model, for membench --check: a band per case of the check sweep.

    python scripts/reference.py RUN.json... [--membench PATH] [--margin PCT] [--out FILE]

Reads runs of one GPU model (any that hold the check sweep's cases: default
runs, check runs, --device=all files) and writes the reference membench
--check judges that model by. The check sweep's cases, the level of the
hierarchy each tests and the metric judged come from the binary (`membench
--check --list_cases=json`: --membench, else $MEMBENCH_EXE, else
build/release/membench); what each metric's unit is and which way is better
comes from the runs' own catalog. Per case, the values are the median of
each GPU's repetitions in each run, trusted ones only (not contended,
throttled or under a clock event; a case noisy by the stopping rule counts,
its spread is in the band); the band
runs from the lowest value less --margin percent to the highest plus
--margin percent (default 5), and the file says how many runs and distinct
GPUs (UUIDs) each band rests on. A band resting on one GPU says only what
that GPU measured: the table marks it.

The reference goes to --out (default benchmarks/references/<model>.json,
which the next build puts into the binary). Exit status: 0 written; 2 bad
input: an unreadable file, runs of several models, no run holding a check
case, a binary that cannot list the check.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from membench import history
from membench import cli
from membench import results as mr

SCHEMA = "membench.reference/1"
ROOT = Path(__file__).resolve().parents[2]


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="reference.py", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="Google Benchmark JSON written by membench, all of one GPU model")
    p.add_argument(
        "--membench",
        help="the binary whose check sweep to cover; where not given, $MEMBENCH_EXE, else build/release/membench",
    )
    p.add_argument(
        "--margin", type=float, default=5.0, help="percent beyond the lowest and highest value seen (default 5)"
    )
    p.add_argument("--out", help="the reference file; where not given, benchmarks/references/<model>.json")
    p.add_argument(
        "--partial",
        action="store_true",
        help="a reference of the check cases the runs hold (without it, a case with no trusted value is refused: "
        "a check would call a GPU healthy on cases it never judged)",
    )
    return p


def check_sweep(exe: str | None) -> list[dict]:
    """The check sweep's cases as the binary lists them: name, level, metric."""
    exe = exe or os.environ.get("MEMBENCH_EXE") or str(ROOT / "build" / "release" / "membench")
    try:
        done = subprocess.run([exe, "--check", "--list_cases=json"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise mr.InputError(f"--membench {exe}: cannot run it ({e.strerror}); build it or name it") from e
    if done.returncode != 0:
        raise mr.InputError(f"--membench {exe}: --check --list_cases=json exited {done.returncode}")
    try:
        listed = json.loads(done.stdout)
        return [
            {"case": mr.parse_name(c["name"]).format(""), "level": c["check"]["level"], "metric": c["check"]["metric"]}
            for c in listed
        ]
    except (ValueError, KeyError, TypeError) as e:
        raise mr.InputError(f"--membench {exe}: its check listing is not what this script reads ({e})") from e


def slug(model: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")


def make(paths: list[str], exe: str | None, margin: float, partial: bool = False) -> dict:
    docs = {path: mr.load(path) for path in paths}  # every file read before the binary is asked
    sweep = check_sweep(exe)
    wanted = {c["case"]: c for c in sweep}
    values: dict[str, list[tuple[float, str, str]]] = {name: [] for name in wanted}  # (value, run, uuid)
    meanings: dict[str, mr.Meaning] = {}
    models: set[str] = set()
    runs = []
    for path, doc in docs.items():
        used = False
        for key, cases in history.runs_of(doc, path):
            for name, case in cases.items():
                plain = mr.parse_name(name).format("")
                if plain not in wanted or case.error or case.skipped or case.doubts(math.inf):
                    continue
                metric = wanted[plain]["metric"]
                value = case.median(metric)
                if value is None:
                    continue
                models.add(key["gpu_name"])
                meanings.setdefault(plain, mr.meaning(doc, metric))
                values[plain].append((value, path, key["gpu_uuid"]))
                used = True
            if used:
                ctx = doc.get("context", {})
                runs.append(
                    {
                        "file": os.path.relpath(path, ROOT) if Path(path).resolve().is_relative_to(ROOT) else path,
                        "date": str(ctx.get("date", "")),
                        "host": key["host"],
                        "gpu_uuid": key["gpu_uuid"],
                        "membench_build": key["build"],
                        "driver": key["driver"],
                    }
                )
                used = False
    if len(models) > 1:
        raise mr.InputError(f"the runs are of several GPU models ({', '.join(sorted(models))}): one reference each")
    if not models:
        raise mr.InputError("no run holds a trusted value of a check case: run membench --check or a default run")
    missing = [name for name in wanted if not values[name]]
    for name in missing if partial else []:
        print(f"reference.py: {name}: no trusted value in these runs; left out (--partial)", file=sys.stderr)
    if missing and not partial:
        # A reference of some of the check's cases would call a GPU healthy on the rest unseen.
        raise mr.InputError(
            f"{len(missing)} of the check's {len(wanted)} cases have no trusted value in these runs (first: "
            f"{missing[0]}); a reference needs every one (run membench --check or a default run), or --partial"
        )
    cases = []
    for name, case in wanted.items():
        seen = values[name]
        if not seen:
            continue
        meaning = meanings[name]
        if meaning.better not in ("higher", "lower"):
            raise mr.InputError(f"{name}: the runs' catalog gives {case['metric']} no better direction")
        numbers = [v for v, _, _ in seen]
        cases.append(
            {
                "case": name,
                "level": case["level"],
                "metric": case["metric"],
                "unit": meaning.unit,
                "better": meaning.better,
                "median": statistics.median(numbers),
                "low": min(numbers) * (1 - margin / 100),
                "high": max(numbers) * (1 + margin / 100),
                "seen": [min(numbers), max(numbers)],
                "runs": len({r for _, r, _ in seen}),
                "gpus": len({u for _, _, u in seen}),
            }
        )
    return {
        "schema": SCHEMA,
        "gpu_name": models.pop(),
        "made_by": "scripts/reference.py --margin " + f"{margin:g}",
        "margin_pct": margin,
        "gpus": len({r["gpu_uuid"] for r in runs}),
        "runs": runs,
        "cases": cases,
    }


def table(ref: dict) -> str:
    lines = [
        f"{ref['gpu_name']}: {len(ref['runs'])} runs on {ref['gpus']} GPUs, margin {ref['margin_pct']:g}%",
        "",
        "| level | case | median | band | runs | GPUs |",
        "| --- | --- | ---: | --- | ---: | ---: |",
    ]
    for c in ref["cases"]:
        factor, prefix = cli.prefix(c["median"])
        unit = c["unit"]

        def show(v: float, factor: float = factor, prefix: str = prefix, unit: str = unit) -> str:
            return f"{v / factor:.4g} {prefix}{' ' if unit[0].isalpha() and unit[0] != 'B' and prefix else ''}{unit}"

        one = " (one GPU)" if c["gpus"] == 1 else ""
        lines.append(
            f"| {c['level']} | {c['case']} | {show(c['median'])} | {show(c['low'])} to {show(c['high'])} | "
            f"{c['runs']} | {c['gpus']}{one} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if not 0 <= args.margin < 100:
            raise mr.InputError("--margin must be at least 0 and under 100")
        ref = make(args.runs, args.membench, args.margin, args.partial)
        out = Path(args.out) if args.out else ROOT / "benchmarks" / "references" / f"{slug(ref['gpu_name'])}.json"
        out.write_text(json.dumps(ref, indent=1) + "\n")
    except (mr.InputError, OSError) as e:
        return cli.refused("reference.py", e)
    print(table(ref))
    print(f"\nreference.py: wrote {out}")
    return 0
