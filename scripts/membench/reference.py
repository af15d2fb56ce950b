"""The expected results of one GPU model, for membench --check: a band per case of the check sweep.

    python scripts/reference.py RUN.json... [--membench PATH] [--margin PCT] [--out FILE]
    python scripts/reference.py --history DB --model NAME [--min-runs N] [--min-gpus N] [--margin PCT] [--out FILE]

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
that GPU measured: the table marks it. Where the runs report a case's
pct_of_peak (its rate over the peak the GPU's own attributes give), its
band goes beside the value's as the case's efficiency: membench --check
judges a model no reference names by the efficiencies of those that have
one (a provisional check).

With --history (history.py's SQLite file or PostgreSQL URL) the runs are a
fleet's own: every run of GPU model --model the history holds, its trusted
values only (history.py add judged each when it was added), so a model no
reference ships gets one from its GPUs' quiet runs. A band resting on fewer
than --min-runs runs (default 3) or --min-gpus GPUs (default 2) is refused:
the spread of one GPU, or of two runs, says little of the next.

The reference goes to --out (default benchmarks/references/<model>.json,
which the next build puts into the binary; `membench --check=FILE` reads
any). Exit status: 0 written; 2 bad input: an unreadable file or history,
runs of several models, no run holding a check case, too few runs or GPUs,
a binary that cannot list the check.
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

from membench import ceilings
from membench import compat
from membench import history
from membench import history_store
from membench import cli
from membench import results as mr

SCHEMA = "membench.reference/1"
ROOT = Path(__file__).resolve().parents[2]


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="reference.py", description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="*", help="Google Benchmark JSON written by membench, all of one GPU model")
    p.add_argument("--history", help="instead of files: history.py's database (a SQLite file or a postgresql:// URL)")
    p.add_argument("--model", help="with --history: the GPU model, as the runs name it (e.g. 'NVIDIA A100-SXM4-80GB')")
    p.add_argument(
        "--min-runs", type=int, default=3, help="with --history: the fewest runs a band may rest on (default 3)"
    )
    p.add_argument(
        "--min-gpus", type=int, default=2, help="with --history: the fewest GPUs a band may rest on (default 2)"
    )
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
    exe = cli.membench_binary(exe, ROOT)
    try:
        done = subprocess.run([exe, "--check", "--list_cases=json"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise mr.InputError(f"--membench {exe}: cannot run it ({e.strerror}); build it or name it") from e
    if done.returncode != 0:
        raise mr.InputError(f"--membench {exe}: --check --list_cases=json exited {done.returncode}")
    try:
        listed = json.loads(done.stdout)
        return [
            {
                "case": c["name"].removesuffix("/manual_time"),
                "level": c["check"]["level"],
                "metric": c["check"]["metric"],
                "listed": c,
            }
            for c in listed
        ]
    except (ValueError, KeyError, TypeError) as e:
        raise mr.InputError(f"--membench {exe}: its check listing is not what this script reads ({e})") from e


def listing_catalog(sweep: list[dict]) -> dict:
    """The binary's listing of the check's cases as a catalog mr.cases reads a file beside (their axes, each
    one added later with its value before)."""
    return {"membench": {"cases": [c["listed"] for c in sweep]}}


def slug(model: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")


def make(paths: list[str], exe: str | None, margin: float, partial: bool = False) -> dict:
    docs = {path: mr.load(path) for path in paths}  # every file read before the binary is asked
    sweep = check_sweep(exe)
    wanted = {c["case"]: c for c in sweep}
    listing = listing_catalog(sweep)  # runs from before an axis was added read as today's cases beside it
    values: dict[str, list[tuple[float, str, str]]] = {name: [] for name in wanted}  # (value, run, uuid)
    efficiencies: dict[str, list[float]] = {name: [] for name in wanted}  # pct_of_peak
    meanings: dict[str, mr.Meaning] = {}
    models: set[str] = set()
    runs = []
    for path, doc in docs.items():
        used = False
        for key, cases in history.runs_of(doc, path, listing):
            for name, case in cases.items():
                plain = name.removesuffix("/manual_time")
                if plain not in wanted or case.error or case.skipped or case.doubts(math.inf):
                    continue
                metric = wanted[plain]["metric"]
                value = case.median(metric)
                if value is None:
                    continue
                models.add(key["gpu_name"])
                meanings.setdefault(plain, mr.meaning(doc, metric))
                values[plain].append((value, path, key["gpu_uuid"]))
                if (pct := case.median("pct_of_peak")) is not None:
                    efficiencies[plain].append(pct)
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
    model = models.pop()
    ref = bands(
        wanted,
        values,
        {n: (m.unit, m.better) for n, m in meanings.items()},
        model,
        runs,
        margin,
        partial,
        efficiencies,
    )
    # The ceilings membench-explain places a kernel of this model under, where no run of the user's is given.
    same = {p: d for p, d in docs.items() if mr.gpu_name(d) == model}
    roofs = ceilings.reference_roofs(same)
    if roofs:
        ref["roofs"] = roofs
        # ... and the cases an anomaly is matched to, whose fixed twins say how near a fixed kernel comes to a roof
        ref["explain_cases"] = ceilings.measured_cases(list(same.values()))
    return ref


def bands(
    wanted: dict[str, dict],
    values: dict[str, list[tuple[float, object, str]]],
    meanings: dict[str, tuple[str, str]],
    model: str,
    runs: list[dict],
    margin: float,
    partial: bool,
    efficiencies: dict[str, list[float]],
) -> dict:
    """The reference: per check case its (value, run, GPU) values made a band; meanings gives each case's
    (unit, better); efficiencies its pct_of_peak values, made a band of their own where it has any."""
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
        unit, better = meanings[name]
        if better not in ("higher", "lower"):
            raise mr.InputError(f"{name}: the runs' catalog gives {case['metric']} no better direction")
        numbers = [v for v, _, _ in seen]
        pct = efficiencies.get(name, [])
        efficiency = (
            {
                "median": statistics.median(pct),
                "low": min(pct) * (1 - margin / 100),
                "high": max(pct) * (1 + margin / 100),
                "seen": [min(pct), max(pct)],
            }
            if pct
            else None
        )
        listed = case["listed"]
        cases.append(
            {
                # The case by its parts, as the families declare theirs: an axis added later leaves it the same case.
                "family": listed["family"],
                "variant": listed["variant"],
                "axes": {a["name"]: a["value"] for a in listed["axes"]},
                "level": case["level"],
                "metric": case["metric"],
                "unit": unit,
                "better": better,
                "median": statistics.median(numbers),
                "low": min(numbers) * (1 - margin / 100),
                "high": max(numbers) * (1 + margin / 100),
                "seen": [min(numbers), max(numbers)],
                "runs": len({r for _, r, _ in seen}),
                "gpus": len({u for _, _, u in seen}),
                **({"efficiency": efficiency} if efficiency else {}),
            }
        )
    return {
        "schema": SCHEMA,
        "gpu_name": model,
        "made_by": "scripts/reference.py --margin " + f"{margin:g}",
        "margin_pct": margin,
        "gpus": len({r["gpu_uuid"] for r in runs}),
        "runs": runs,
        "cases": cases,
    }


def from_history(
    db: str, model: str, exe: str | None, margin: float, partial: bool, min_runs: int, min_gpus: int
) -> dict:
    """The reference of a GPU model from a history's trusted values of its runs."""
    con = history_store.Store(db, create=False, read_only=True)
    sweep = check_sweep(exe)
    wanted = {c["case"]: c for c in sweep}
    listing = listing_catalog(sweep)
    values: dict[str, list[tuple[float, object, str]]] = {name: [] for name in wanted}
    efficiencies: dict[str, list[float]] = {name: [] for name in wanted}
    meanings: dict[str, tuple[str, str]] = {}
    used: dict[object, dict] = {}
    for name, case in wanted.items():
        metric = case["metric"]
        stored = con.stored_names(name + "/manual_time", listing)
        rows = con.execute(
            "SELECT m.value, r.id, r.gpu_uuid, m.better, m.unit, r.host, r.started, r.driver, r.build, r.source "
            f"FROM measurements m JOIN runs r ON r.id = m.run WHERE m.name IN ({history_store.placeholders(stored)}) "
            "AND m.metric = ? AND m.trusted = 1 AND r.gpu_name = ? ORDER BY r.started",
            (*stored, metric, model),
        )
        for value, run, uuid, better, unit, host, started, driver, build, source in rows:
            values[name].append((float(value), run, str(uuid)))
            # Rows added before the history kept units read them as the compatibility module says.
            meanings.setdefault(name, (unit or compat.old_meaning(metric)[0], better or "neither"))
            used[run] = {
                "file": str(source or ""),
                "date": str(started or ""),
                "host": str(host or ""),
                "gpu_uuid": str(uuid),
                "membench_build": str(build or ""),
                "driver": str(driver or ""),
            }
        efficiencies[name] = [
            float(v)
            for (v,) in con.execute(
                "SELECT m.value FROM measurements m JOIN runs r ON r.id = m.run "
                f"WHERE m.name IN ({history_store.placeholders(stored)}) AND m.metric = 'pct_of_peak' "
                "AND m.trusted = 1 AND r.gpu_name = ? ORDER BY r.started",
                (*stored, model),
            )
        ]
    if not used:
        raise mr.InputError(f"--history {history_store.shown(db)}: no trusted value of a check case on a {model}")
    gpus = {r["gpu_uuid"] for r in used.values()}
    if len(used) < min_runs or len(gpus) < min_gpus:
        raise mr.InputError(
            f"{len(used)} run{'s' if len(used) != 1 else ''} of {len(gpus)} GPU{'s' if len(gpus) != 1 else ''} of "
            f"{model} in the history; a reference rests on at least {min_runs} runs of {min_gpus} GPUs "
            "(--min-runs, --min-gpus)"
        )
    thin = [n for n, seen in values.items() if seen and len({r for _, r, _ in seen}) < min_runs]
    if thin:
        raise mr.InputError(
            f"{len(thin)} check case(s) have trusted values in fewer than {min_runs} runs (first: {thin[0]}); "
            "a band needs --min-runs of them"
        )
    ref = bands(
        wanted, values, meanings, model, sorted(used.values(), key=lambda r: r["date"]), margin, partial, efficiencies
    )
    ref["made_by"] = f"scripts/reference.py --history --margin {margin:g} --min-runs {min_runs} --min-gpus {min_gpus}"
    return ref


def band_name(band: dict) -> str:
    """The name of the case a band names: made from its parts, or an older reference's own "case"."""
    if "family" not in band:
        return band["case"]
    return mr.CaseName(band["family"], band["variant"], tuple(band["axes"].items())).format("")


def table(ref: dict) -> str:
    lines = [
        f"{ref['gpu_name']}: {len(ref['runs'])} runs on {ref['gpus']} GPUs, margin {ref['margin_pct']:g}%",
        "",
        "| level | case | median | band | % of peak | runs | GPUs |",
        "| --- | --- | ---: | --- | --- | ---: | ---: |",
    ]
    for c in ref["cases"]:
        factor, prefix = cli.prefix(c["median"])
        unit = c["unit"]

        def show(v: float, factor: float = factor, prefix: str = prefix, unit: str = unit) -> str:
            return f"{v / factor:.4g} {prefix}{' ' if unit[0].isalpha() and unit[0] != 'B' and prefix else ''}{unit}"

        one = " (one GPU)" if c["gpus"] == 1 else ""
        e = c.get("efficiency")
        pct = f"{e['median']:.1f} ({e['low']:.1f} to {e['high']:.1f})" if e else "-"
        lines.append(
            f"| {c['level']} | {band_name(c)} | {show(c['median'])} | {show(c['low'])} to {show(c['high'])} | {pct} | "
            f"{c['runs']} | {c['gpus']}{one} |"
        )
    return "\n".join(lines)


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if not 0 <= args.margin < 100:
            raise mr.InputError("--margin must be at least 0 and under 100")
        if bool(args.runs) == bool(args.history) or bool(args.history) != bool(args.model):
            raise mr.InputError("give run files, or --history with --model")
        if args.min_runs < 1 or args.min_gpus < 1:
            raise mr.InputError("--min-runs and --min-gpus must be at least 1")
        if args.history:
            ref = from_history(
                args.history, args.model, args.membench, args.margin, args.partial, args.min_runs, args.min_gpus
            )
        else:
            ref = make(args.runs, args.membench, args.margin, args.partial)
        out = Path(args.out) if args.out else ROOT / "benchmarks" / "references" / f"{slug(ref['gpu_name'])}.json"
        if out.exists() and not out.is_file():  # a FIFO would block the write until a reader came
            raise mr.InputError(f"--out {out}: not a regular file")
        out.write_text(json.dumps(ref, indent=1) + "\n")
    except (mr.InputError, OSError) as e:
        return cli.refused("reference.py", e)
    print(table(ref))
    print(f"\nreference.py: wrote {out}")
    return 0
