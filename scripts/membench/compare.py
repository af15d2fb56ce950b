"""Regression gate: compare two membench JSON files case by case.

    python scripts/compare.py BASELINE.json CONTENDER.json [--metric COUNTER]
                              [--threshold 5] [--alpha 0.05] [--ignore-missing] [--allow-untrusted]
                              [--changed-only] [--raw]

The baseline comes first: the output's first line names each file, and a
baseline that ran after its contender is warned of. That line counts the
cases of each verdict; the table shows values in their units (4.33 TB/s,
133 us), or as plain numbers with --raw, and only the cases whose verdict
is not 'same' with --changed-only.

Matches cases by name and compares the median of each case's measure: the
counter the files' catalog ranks first among those the case reports (its
bandwidth, else its latency, update rate or operation rate), so a latency
case is judged by its latency and a bandwidth case by its bytes a second. A
case that reports none is counted in the summary as not compared. --metric
judges every case by one counter instead (any measured counter the files
carry, or real_time per launch). Which way is better is what the files'
catalog says of the counter (latency_ns and real_time: lower; bandwidths and
update rates: higher); a metric the catalog gives no direction (a model's
prediction, configuration) is refused.
A case regresses when its median moves the wrong way by more than
--threshold percent and, where the repetitions allow, a two-sided exact
Mann-Whitney U test calls the difference significant at --alpha. With few
repetitions the test cannot reach --alpha at all (3 vs 3: the smallest
possible p is 0.1); the verdict then rests on the threshold alone and the
output says so, so the gate never passes a regression for want of samples.

A case is no evidence either way, and gets an UNTRUSTED verdict naming the
side and the reason, when on either side it failed or was skipped (in the
baseline), another process held the GPU (contended), a power, thermal or
hardware clock event slowed it (clock_event), batches were dropped for a low
clock (throttled_batches), or, where too few repetitions allow the
Mann-Whitney test, its noise_pct is at or above --threshold (a change the
size of the noise cannot be judged; where the test runs, it judges the
repetitions' spread itself); or the run was killed before its end. A
baseline recorded on a bad day would otherwise lower the bar for good.
These are the doubts every script shares (results.Case.doubts). A case the
host paces (its host_paced counter: pageable copies, small copies' round
trips, page faults) is doubted alike, and where it is trusted a change
counts only beyond three times its noise (or --threshold, if larger). A
clock event of the power limiter alone that dropped no batch is the case's
own power draw, and is judged as usual.

Exit status: 1 when a case regresses, fails in the contender, is missing or
skipped there (unless --ignore-missing), or is untrusted (unless
--allow-untrusted); 0 otherwise; 2 on bad input (an unreadable or malformed
file, a file without cases or without the metric, an unknown metric).
"""

from __future__ import annotations

import math
import statistics
import sys
from dataclasses import dataclass

from membench import cli
from membench import declarations as md
from membench import results as mr
from membench.report_page import duration, quantity

try:
    from scipy.stats import mannwhitneyu
except ModuleNotFoundError as error:
    cli.missing_package("compare.py", error)


@dataclass
class Row:
    name: str
    baseline: float | None
    contender: float | None
    change_pct: float | None
    p_value: float | None
    verdict: str
    tested: bool = True  # False: the samples cannot reach alpha; the threshold alone decided
    untrusted: bool = False
    metric: str = ""  # the counter judged ("": none)


def create_parser() -> cli.Parser:
    p = cli.Parser(prog="compare.py", description=__doc__.split("\n\n")[0])
    p.add_argument("baseline", help="Google Benchmark JSON written by membench")
    p.add_argument("contender", help="Google Benchmark JSON written by membench")
    p.add_argument(
        "--metric",
        help="judge every case by this counter, or real_time; without it, each case by its catalog's measure",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=mr.CHANGE_THRESHOLD,
        help=f"percent change that counts (default {mr.CHANGE_THRESHOLD:g})",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument(
        "--ignore-missing", action="store_true", help="cases missing or skipped in the contender do not fail"
    )
    p.add_argument(
        "--allow-untrusted",
        action="store_true",
        help="untrusted cases (contended, clock event, throttled, too noisy, a killed run, failed in the baseline) "
        "do not fail",
    )
    p.add_argument(
        "--changed-only",
        action="store_true",
        help="list only the cases whose verdict is not 'same' (the summary counts all)",
    )
    p.add_argument("--raw", action="store_true", help="values as plain numbers (4.325e+12), for a script to read back")
    return p


def unit_of(doc: dict, metric: str) -> str:
    """The unit compare.py shows a metric's values in: the file's, but "ns" for times (Case.values gives them in ns)."""
    return "ns" if metric in mr.TIMES else mr.meaning(doc, metric).unit


def summary(rows: list[Row], baseline: str, contender: str, metric: str | None) -> str:
    """One line: which file is which, what was judged, and how many cases got each verdict, the worst first."""
    counts: dict[str, int] = {}
    for r in rows:
        kind = r.verdict.split(":")[0].split(" (")[0]
        counts[kind] = counts.get(kind, 0) + 1
    order = ["ERROR in contender", "REGRESSION", "missing in contender", "SKIPPED in contender", "UNTRUSTED"]
    ranked = sorted(counts.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))
    said = ", ".join(f"{n} {kind}" for kind, n in ranked)
    if metric is None:
        measures: dict[str, int] = {}
        for r in rows:
            if r.metric:
                measures[r.metric] = measures.get(r.metric, 0) + 1
        metric = "each case's measure (" + ", ".join(f"{m} {n}" for m, n in measures.items()) + ")"
    return f"baseline {baseline}, contender {contender}, {metric}: {len(rows)} cases: {said}"


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact Mann-Whitney U test can give
    for samples of n1 and n2: 2 / C(n1 + n2, n1), when the samples do not overlap."""
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def testable_sizes(n1: int, n2: int, alpha: float) -> bool:
    """Whether samples of n1 and n2 can reach significance at alpha at all."""
    return min(n1, n2) >= 2 and smallest_p(n1, n2) < alpha


def judge(base: list[float], cont: list[float], better: str, threshold: float, alpha: float) -> Row:
    """Compares two samples of one case's metric, of which `better` ('higher' or 'lower') is better."""
    b, c = statistics.median(base), statistics.median(cont)
    change = (c - b) / b * 100.0 if b else math.inf
    worse = change > 0 if better == "lower" else change < 0
    tested = testable_sizes(len(base), len(cont), alpha)
    p_value = float(mannwhitneyu(base, cont, alternative="two-sided").pvalue) if tested else None
    if abs(change) <= threshold:
        verdict = "same"
    elif tested and p_value >= alpha:
        verdict = "noise"
    else:
        verdict = "REGRESSION" if worse else "improvement"
    return Row("", b, c, change, p_value, verdict, tested)


def compare(baseline: dict, contender: dict, metric: str | None, threshold: float, alpha: float) -> list[Row]:
    """Rows for every case of either file, in the baseline's order, then new ones, each judged by `metric`, or
    without one by its own measure (declarations.measure_of). Which way is better comes from the files' catalog;
    a metric without a direction is an InputError."""
    base_cases, cont_cases = mr.cases(baseline, contender), mr.cases(contender, baseline)
    directions: dict[str, str] = {}

    def row(name: str, base: mr.Case | None, cont: mr.Case | None) -> Row:
        m = metric or md.measure_of(contender, cont, base) or md.measure_of(baseline, base, cont) or ""
        if m and m not in directions:
            directions[m] = mr.require_direction([baseline, contender], m)
        made = verdict(name, base, cont, m, directions.get(m, ""), threshold, alpha)
        made.metric = m
        return made

    rows = [row(name, base, cont_cases.get(name)) for name, base in base_cases.items()]
    rows += [row(name, None, cont) for name, cont in cont_cases.items() if name not in base_cases]
    return rows


def verdict(
    name: str,
    base: mr.Case | None,
    cont: mr.Case | None,
    metric: str,
    better: str,
    threshold: float,
    alpha: float,
) -> Row:
    """One case's row for one metric ("": the case has no measure), of which `better` is better, from its two sides
    (None: not in that file)."""
    if base is None:
        return Row(name, None, cont.median(metric), None, None, "new in contender")
    if cont is None:
        return Row(name, base.median(metric), None, None, None, "missing in contender")
    if cont.error:
        return Row(name, base.median(metric), None, None, None, f"ERROR in contender: {cont.error}")
    if cont.skipped and base.skipped:
        return Row(name, None, None, None, None, f"skipped in both: {cont.skipped}")
    if cont.skipped:
        return Row(name, base.median(metric), None, None, None, f"SKIPPED in contender: {cont.skipped}")
    if base.error or base.skipped:
        why = f"baseline failed: {base.error}" if base.error else f"baseline skipped: {base.skipped}"
        return Row(name, None, cont.median(metric), None, None, f"UNTRUSTED: {why}", untrusted=True)
    if not base.values(metric) and not cont.values(metric):
        # A case with no measure (metric ""), or not the one --metric names (a latency case for a bandwidth).
        return Row(
            name, None, None, None, None, f"no '{metric}' (not compared)" if metric else "no measure (not compared)"
        )
    return judge_case(name, base, cont, metric, better, threshold, alpha)


def judge_case(
    name: str, base: mr.Case, cont: mr.Case, metric: str, better: str, threshold: float, alpha: float
) -> Row:
    """A case measured on both sides: judged, or untrusted with every reason (Case.doubts, the
    trust rule every consumer shares). A host-paced case is judged against its own noise:
    Case.gate_threshold widens the change it must show."""
    # Where the repetitions allow the Mann-Whitney test, it judges their spread, within-run noise included:
    # noise is then no doubt. With fewer, noise at or above the threshold is.
    testable = testable_sizes(len(base.values(metric)), len(cont.values(metric)), alpha)
    noise = math.inf if testable else threshold
    doubts = [f"baseline {d}" for d in base.doubts(noise)] + [f"contender {d}" for d in cont.doubts(noise)]
    doubts += [
        f"no '{metric}' in {side}"
        for side, case in (("baseline", base), ("contender", cont))
        if not case.values(metric)
    ]
    b, c = base.median(metric), cont.median(metric)
    if doubts:
        change = (c - b) / b * 100.0 if b and c is not None else None
        return Row(name, b, c, change, None, "UNTRUSTED: " + "; ".join(doubts), untrusted=True)
    gate = base.gate_threshold(cont, threshold)
    row = judge(base.values(metric), cont.values(metric), better, gate, alpha)
    row.name = name
    if gate > threshold:
        row.verdict += f" (host-paced: {gate:.3g}% needed)"
    return row


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def render(rows: list[Row], metric: str | None, alpha: float, unit: str | dict[str, str] | None = None) -> str:
    """The rows as a markdown table and its notes. Values as a person reads them (4.33 TB/s, 133 us) in the metric's
    unit, or with each case's measure (metric None) in the unit `unit` maps it to ("ns" for times, what Case.values
    gives them in); without units, as numbers a script reads back (4.325e+12)."""

    def value(x: float | None, r: Row) -> str:
        if x is None:
            return ""
        u = unit.get(r.metric) if isinstance(unit, dict) else unit
        if u is None:
            return format(x, ".4g")
        return duration(x) if u == "ns" else quantity(x, u)

    head = (
        ["case", "measure", "baseline", "contender"]
        if metric is None
        else ["case", f"baseline {metric}", f"contender {metric}"]
    )
    lines = ["| " + " | ".join([*head, "change %", "p-value", "verdict"]) + " |"]
    lines.append("| --- | " + "---: | " * (len(head) - 1 + 2) + "--- |")
    for r in rows:
        p_value = _fmt(r.p_value, ".3g") if r.tested else "untestable"
        verdict = r.verdict + ("" if r.tested or r.change_pct is None or r.untrusted else " (threshold only)")
        cells = [r.name, r.metric] if metric is None else [r.name]
        cells += [value(r.baseline, r), value(r.contender, r), _fmt(r.change_pct, "+.2f")]
        cells += [p_value if r.change_pct is not None else "", verdict]
        lines.append("| " + " | ".join(cells) + " |")
    untested = [r for r in rows if not r.tested and r.change_pct is not None and not r.untrusted]
    if untested:
        lines.append("")
        lines.append(
            f"Note: {len(untested)} case(s) have too few repetitions for the Mann-Whitney test to reach "
            f"p < {alpha:g} (3 vs 3 cannot go below 0.1; 4 vs 4 can); their verdicts rest on the "
            "threshold alone. Use --benchmark_repetitions=5 or more for a significance test."
        )
    untrusted = [r for r in rows if r.untrusted]
    if untrusted:
        lines.append("")
        lines.append(
            f"Untrusted: {len(untrusted)} case(s) are no evidence either way (another process on the GPU, a "
            "clock event, throttling, noise at or above the threshold, or a failed baseline); measure them "
            "again on a quiet GPU, or pass --allow-untrusted."
        )
    return "\n".join(lines)


def failed(rows: list[Row], ignore_missing: bool, allow_untrusted: bool) -> bool:
    for r in rows:
        if r.verdict.startswith("REGRESSION") or r.verdict.startswith("ERROR"):
            return True
        if (r.verdict == "missing in contender" or r.verdict.startswith("SKIPPED")) and not ignore_missing:
            return True
        if r.untrusted and not allow_untrusted:
            return True
    return False


@cli.command
def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if not (args.threshold >= 0 and math.isfinite(args.threshold)) or not 0 < args.alpha < 1:
            raise mr.InputError("--threshold must be >= 0 and --alpha within (0, 1)")
        baseline, contender = mr.load(args.baseline), mr.load(args.contender)
        if args.metric is not None:
            present = set(mr.metrics(baseline)) | set(mr.metrics(contender))
            if args.metric not in present and present:
                raise mr.InputError(
                    f"--metric {args.metric}: not in these files; they have: {', '.join(sorted(present))}"
                )
            mr.require_metric(baseline, args.baseline, args.metric)
            mr.require_metric(contender, args.contender, args.metric)
        for doc, path in ((baseline, args.baseline), (contender, args.contender)):
            if not mr.cases(doc):
                raise mr.InputError(f"{path}: no cases")
        if not set(mr.cases(baseline, contender)) & set(mr.cases(contender, baseline)):
            raise mr.InputError("the two files have no case in common")
        rows = compare(baseline, contender, args.metric, args.threshold, args.alpha)
    except mr.InputError as e:
        return cli.refused("compare.py", e)
    if mr.gpu_name(baseline) != mr.gpu_name(contender):
        print(
            f"compare.py: warning: different GPUs: '{mr.gpu_name(baseline)}' vs '{mr.gpu_name(contender)}'",
            file=sys.stderr,
        )
    if (order := mr.out_of_order(baseline, contender)) is not None:
        print(f"compare.py: warning: {order}; the baseline comes first", file=sys.stderr)
    shown = [r for r in rows if not r.verdict.startswith("same")] if args.changed_only else rows
    print(summary(rows, args.baseline, args.contender, args.metric) + "\n")
    units = None if args.raw else {m: unit_of(contender, m) for m in {r.metric for r in rows if r.metric}}
    print(render(shown, args.metric, args.alpha, units))
    return 1 if failed(rows, args.ignore_missing, args.allow_untrusted) else 0
