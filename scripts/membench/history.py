"""A history of membench runs, in SQLite or PostgreSQL: add runs, list them, draw a case's trend, gate a new run.

    python scripts/history.py [--db FILE|URL] add RUN.json...
    python scripts/history.py [--db FILE] list
    python scripts/history.py [--db FILE] trend CASE-REGEX --out DIR [--metric M]
    python scripts/history.py [--db FILE] check RUN.json [--metric M] [--last N] [--width K] [--threshold PCT]
                                                [--noise-threshold PCT] [--allow-untrusted]

--db: a SQLite file (default membench-history.sqlite: one machine's
history), or a PostgreSQL URL (postgresql://user@host/db: a fleet's, which
many nodes add to at once; psycopg from scripts/requirements.txt). Both
hold the same schema and give the same answers; each run is added in one
transaction, so processes adding at once never see half of another's.

add: each GPU of each file becomes one run, known by its host, GPU UUID,
start time and membench version, kept with its build, CUDA driver and
runtime, peak SM clock, sweep and repetitions; adding it again changes
nothing. Every measured counter the file's catalog gives a direction (and
real_time) is kept: a case's value is the median of its repetitions, with
whether it can be trusted and, where not, why (the doubts every script
shares: noise at or above --noise-threshold, contended, throttled, under a
clock event, a killed run). Only add creates a history file.

trend: DIR/trend.csv and DIR/trend.png, the metric of every matching case
over the runs, one line per GPU and case.

check: each case of RUN.json, by its own measure (the counter the file's
catalog ranks first among those it reports: bandwidth, latency, update or
operation rate; --metric: one counter for all), against the last N trusted
values of the same case on GPUs of the same model and driver: the band is their median +- K
scaled median absolute deviations, at least --threshold percent of the
median (compare.py's change that counts, 5 unless given) and for a
host-paced case at least three times its noise in the run. A value
outside it on the bad side (the file's catalog says which side that is) is
a regression; cases with fewer than 3 values in the history are reported,
not judged, and so are the run's untrusted cases. Exit status: 0 every
judged case within its band; 1 a regression, no case judged at all (also
with --allow-untrusted: a gate that judged nothing has passed nothing), or
a case of the run untrusted (unless --allow-untrusted); 2 unreadable input,
a history that does not exist (but for add) or a bad flag.
"""

from __future__ import annotations

import csv
import math
import statistics
import sys
from pathlib import Path

from membench import history_store
from membench import cli

try:
    import re2
except ModuleNotFoundError as error:
    cli.missing_package("history.py", error)
from membench import declarations as md
from membench import results as mr

MAD_SCALE = 1.4826  # a normal distribution's standard deviation per median absolute deviation
MIN_HISTORY = 3


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="history.py", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--db",
        default="membench-history.sqlite",
        help="a SQLite file or a postgresql:// URL (default membench-history.sqlite)",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=cli.Parser)
    add = sub.add_parser("add", help="add runs (again: nothing changes)")
    add.add_argument("results", nargs="+", help="Google Benchmark JSON written by membench")
    noise = {
        "type": float,
        "default": mr.NOISE_THRESHOLD,
        "help": f"noise (percent) at or above which a value is untrusted (default {mr.NOISE_THRESHOLD:g}, as "
        "compare.py)",
    }
    add.add_argument("--noise-threshold", **noise)
    sub.add_parser("list", help="the runs, oldest first")
    trend = sub.add_parser("trend", help="a CSV and a figure of matching cases over the runs")
    trend.add_argument("pattern", help="regular expression on case names")
    trend.add_argument("--out", required=True, help="directory for trend.csv and trend.png")
    trend.add_argument("--metric", default="bytes_per_second", help="counter (default bytes_per_second)")
    check = sub.add_parser("check", help="gate a run against the history of its GPU model and driver")
    check.add_argument("results", help="Google Benchmark JSON written by membench")
    check.add_argument(
        "--metric",
        help="one counter to judge every case by; without it, each case by its catalog's measure",
    )
    check.add_argument(
        "--last", type=int, default=10, help="trusted values of each case to keep in the band (default 10)"
    )
    check.add_argument("--width", type=float, default=3.0, help="band half-width in scaled MADs (default 3.0)")
    check.add_argument(
        "--threshold",
        type=float,
        default=mr.CHANGE_THRESHOLD,
        help=f"the band's least half-width, percent of its median (default {mr.CHANGE_THRESHOLD:g}, as compare.py)",
    )
    check.add_argument("--noise-threshold", **noise)
    check.add_argument(
        "--allow-untrusted",
        action="store_true",
        help="cases of this run that are noisy, contended or throttled do not fail",
    )
    return p


def connect(db: str, create: bool = False) -> history_store.Store:
    """The history in `db` (a file or a URL); only `create` (add) may make a new one."""
    return history_store.Store(db, create)


def runs_of(doc: dict, path: str, *others: dict) -> list[tuple[dict, dict[str, mr.Case]]]:
    """(run key, cases by untagged name) for each GPU of a file; `others` as mr.cases reads a file beside them."""
    ctx = doc.get("context", {})
    gpus = mr.devices(doc, path)
    by_gpu: dict[int, dict[str, mr.Case]] = {ordinal: {} for ordinal in gpus}
    first = next(iter(gpus))
    for case in mr.cases(doc, *others).values():
        ordinal = case.params.get("device", first)
        by_gpu.setdefault(ordinal, {})[case.name_without("device")] = case
    out = []
    for ordinal, cases in by_gpu.items():
        uuid, name = gpus.get(ordinal, ("unknown-uuid", mr.gpu_name(doc)))
        repetitions = max((len(c.runs) for c in cases.values()), default=0)
        out.append(
            (
                {
                    "host": str(ctx.get("host_name", "")),
                    "gpu_uuid": uuid,
                    "gpu_name": name,
                    "driver": str(ctx.get("driver_version", "")),
                    "started": str(ctx.get("date", "")),
                    "version": str(ctx.get("membench_version", "")),
                    "source": path,
                    "build": str(ctx.get("membench_build", "")),
                    "cuda_driver": str(ctx.get("cuda_driver_version", "")),
                    "runtime": str(ctx.get("runtime_version", "")),
                    "sm_clock_peak_mhz": str(ctx.get("sm_clock_peak_mhz", "")),
                    "sweep": str(ctx.get("sweep", "")),
                    "repetitions": repetitions,
                },
                cases,
            )
        )
    return out


def distrust(case: mr.Case, noise_threshold: float) -> str:
    """Why a measured case's value is no evidence ('' when it is): the doubts every script shares."""
    return "; ".join(case.doubts(noise_threshold))


def kept(doc: dict) -> list[str]:
    """The metrics a run keeps: every measured counter with a direction (real_time among them)."""
    return [m for m in mr.metrics(doc) if mr.meaning(doc, m).kind == "measured" and mr.better(doc, m) != "neither"]


def add(con: history_store.Store, paths: list[str], noise_threshold: float) -> int:
    added = 0
    for path in paths:
        doc = mr.load(path)
        metrics = {m: (mr.better(doc, m), mr.meaning(doc, m).unit) for m in kept(doc)}
        for key, cases in runs_of(doc, path):
            rows = []
            for name, case in cases.items():
                if case.error or case.skipped:
                    continue
                why = distrust(case, noise_threshold)
                for metric, (better, unit) in metrics.items():
                    value = case.median(metric)
                    if value is not None:
                        rows.append((name, metric, value, int(not why), why or None, better, unit))
            added += con.add_run(key, rows)  # False: this run is already there
    return added


def list_runs(con: history_store.Store) -> str:
    lines = [
        "| run | started | host | GPU | UUID | driver | membench | cases |",
        "| ---: | --- | --- | --- | --- | --- | --- | ---: |",
    ]
    for row in con.execute(
        "SELECT r.id, started, host, gpu_name, gpu_uuid, driver, version, "
        "(SELECT COUNT(DISTINCT name) FROM measurements m WHERE m.run = r.id) FROM runs r "
        "ORDER BY started, r.id"
    ):
        lines.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(lines)


def trend(con: history_store.Store, pattern: str, metric: str, out: Path) -> tuple[Path, Path]:
    # RE2, as the binary matches --benchmark_filter: time linear in the name whatever the pattern ("(.|.)*Q" would
    # keep Python's backtracking engine for minutes on one long name).
    try:
        regex = re2.compile(pattern)
    except re2.error as e:
        raise mr.InputError(f"{pattern[:80]}: not a regular expression RE2 takes ({e})") from e
    # Each case under today's name, however the run that stored it named it.
    named = (
        (*r[:4], history_store.today(r[4]), *r[5:])
        for r in con.execute(
            "SELECT started, host, gpu_uuid, gpu_name, name, value, trusted FROM measurements m "
            "JOIN runs r ON r.id = m.run WHERE metric = ? ORDER BY started, r.id",
            (metric,),
        )
    )
    rows = [r for r in named if regex.search(r[4])]
    if not rows:
        raise mr.InputError(f"no case matching '{pattern}' has '{metric}' in the history")
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "trend.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["started", "host", "gpu_uuid", "gpu_name", "case", metric, "trusted"])
        w.writerows(rows)
    fig = draw_trend(rows, metric)
    fig.savefig(out / "trend.png", dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return out / "trend.csv", out / "trend.png"


def draw_trend(rows: list[tuple], metric: str):
    """The metric over the runs (x: the runs in order of their start), a line per GPU and case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 5), layout="constrained")
    starts = sorted({r[0] for r in rows})
    for host, uuid, case in sorted({(r[1], r[2], r[4]) for r in rows}):
        points = sorted((starts.index(r[0]), r[5]) for r in rows if (r[1], r[2], r[4]) == (host, uuid, case))
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", ms=3, label=f"{host} {uuid[:12]}: {case}")
    ax.set_xticks(range(len(starts)), [s[:19] for s in starts], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} over {len(starts)} runs")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    return fig


def check(
    con: history_store.Store,
    path: str,
    metric: str | None,
    last: int,
    width: float,
    threshold: float,
    noise_threshold: float,
) -> tuple[str, int, int, int]:
    """The table, and how many cases regressed, were untrusted in this run, and were judged
    (trusted, with enough history) at all."""
    doc = mr.load(path)
    if metric is not None:
        mr.require_metric(doc, path, metric)
    elif not mr.cases(doc):
        raise mr.InputError(f"{path}: no cases")
    lines = [
        f"| case | GPU | {metric or 'measure'} | value | history median | band | verdict |",
        "| --- | --- | --- | ---: | ---: | --- | --- |",
    ]
    regressed = untrusted = judged = 0
    for key, cases in runs_of(doc, path):
        for name, case in cases.items():
            if case.error or case.skipped:
                continue
            counter = metric or md.measure_of(doc, case)
            value = case.median(counter) if counter else None
            if counter is None:
                lines.append(f"| {name} | {key['gpu_uuid']} | | | | | no measure (not judged) |")
            if value is None:
                continue
            lower_better = mr.require_direction([doc], counter) == "lower"
            stored = con.stored_names(name)
            history = [
                v
                for (v,) in con.execute(
                    f"SELECT value FROM measurements m JOIN runs r ON r.id = m.run WHERE name IN "
                    f"({history_store.placeholders(stored)}) AND metric = ? AND trusted = 1 AND gpu_name = ? AND "
                    "driver = ? AND NOT (host = ? AND gpu_uuid = ? AND started = ?) ORDER BY started DESC LIMIT ?",
                    (
                        *stored,
                        counter,
                        key["gpu_name"],
                        key["driver"],
                        key["host"],
                        key["gpu_uuid"],
                        key["started"],
                        last,
                    ),
                )
            ]
            if len(history) < MIN_HISTORY:
                lines.append(
                    f"| {name} | {key['gpu_uuid']} | {counter} | {value:.6g} | | | {len(history)} trusted values "
                    f"in the history, {MIN_HISTORY} needed: not judged |"
                )
                continue
            median = statistics.median(history)
            spread = max(
                width * MAD_SCALE * statistics.median(abs(v - median) for v in history), threshold / 100 * median
            )
            spread = max(spread, case.host_noise_pct() / 100 * median)  # the host's noise, as compare.py allows it
            low, high = median - spread, median + spread
            bad = value > high if lower_better else value < low
            why = distrust(case, noise_threshold)
            verdict = f"UNTRUSTED in this run: {why}" if why else ("REGRESSION" if bad else "ok")
            judged += not why
            regressed += bool(bad and not why)
            untrusted += bool(why)
            lines.append(
                f"| {name} | {key['gpu_uuid']} | {counter} | {value:.6g} | {median:.6g} | {low:.6g} .. {high:.6g} | "
                f"{verdict} |"
            )
    return "\n".join(lines), regressed, untrusted, judged


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if not 0 < getattr(args, "noise_threshold", 1.0) < math.inf:
            raise mr.InputError("--noise-threshold must be positive and finite")
        if args.command == "check" and (
            args.last < MIN_HISTORY or not 0 < args.width < math.inf or not 0 <= args.threshold < math.inf
        ):
            raise mr.InputError(
                f"--last must be at least {MIN_HISTORY}, --width positive and finite and --threshold finite, "
                "not negative"
            )
        con = connect(args.db, create=args.command == "add")
        if args.command == "add":
            print(f"{add(con, args.results, args.noise_threshold)} run(s) added to {args.db}")
        elif args.command == "list":
            print(list_runs(con))
        elif args.command == "trend":
            for path in trend(con, args.pattern, args.metric, Path(args.out)):
                print(path)
        else:
            text, regressed, untrusted, judged = check(
                con, args.results, args.metric, args.last, args.width, args.threshold, args.noise_threshold
            )
            print(text)
            if untrusted and not args.allow_untrusted:
                print(
                    f"history.py: {untrusted} case(s) of {args.results} are no evidence (noisy, contended, "
                    "throttled or under a clock event); --allow-untrusted accepts them",
                    file=sys.stderr,
                )
                return 1
            if not judged:  # a gate that judged nothing has passed nothing, --allow-untrusted or not
                print(
                    f"history.py: no trusted case of {args.results} has {MIN_HISTORY} trusted values of "
                    f"{repr(args.metric) if args.metric else 'its measure'} in the history of its GPU model and "
                    "driver: nothing judged",
                    file=sys.stderr,
                )
                return 1
            return 1 if regressed else 0
    except mr.InputError as e:
        return cli.refused("history.py", e)
    except history_store.DatabaseError as e:
        print(f"history.py: --db {history_store.shown(args.db)}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        return cli.refused("history.py", e)
    return 0
