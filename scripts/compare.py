"""Regression gate: compare two membench JSON files case by case.

    python scripts/compare.py BASELINE.json CONTENDER.json [--metric bytes_per_second]
                              [--threshold 5] [--alpha 0.05] [--ignore-missing]

Matches cases by name and compares the median of a metric (bytes_per_second
by default; any counter the files carry, or real_time / cpu_time per launch).
A case regresses when its median moves the wrong way by more than
--threshold percent and, where the repetitions allow, a two-sided exact
Mann-Whitney U test calls the difference significant at --alpha. With few
repetitions the test cannot reach --alpha at all (3 vs 3: the smallest
possible p is 0.1); the verdict then rests on the threshold alone and the
output says so, so the gate never passes a regression for want of samples.

Exit status: 1 when a case regresses, fails in the contender, or is missing
or skipped there (unless --ignore-missing); 0 otherwise; 2 on bad input (an
unreadable or malformed file, an unknown metric).
"""
from __future__ import annotations

import math
import statistics
import sys
from dataclasses import dataclass

import membench_results as mr

try:
    from scipy.stats import mannwhitneyu
except ModuleNotFoundError as error:
    mr.missing_package("compare.py", error)

LOWER_IS_BETTER = set(mr.TIMES)


@dataclass
class Row:
    name: str
    baseline: float | None
    contender: float | None
    change_pct: float | None
    p_value: float | None
    verdict: str
    tested: bool = True  # False: the samples cannot reach alpha; the threshold alone decided


def create_parser() -> mr.Parser:
    p = mr.Parser(prog="compare.py", description=__doc__.split("\n\n")[0])
    p.add_argument("baseline", help="Google Benchmark JSON written by membench")
    p.add_argument("contender", help="Google Benchmark JSON written by membench")
    p.add_argument("--metric", default="bytes_per_second", help="counter, or real_time / cpu_time")
    p.add_argument("--threshold", type=float, default=5.0, help="percent change that counts (default 5)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--ignore-missing", action="store_true",
                   help="cases missing or skipped in the contender do not fail")
    return p


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact Mann-Whitney U test can give
    for samples of n1 and n2: 2 / C(n1 + n2, n1), when the samples do not overlap."""
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def judge(base: list[float], cont: list[float], metric: str, threshold: float, alpha: float) -> Row:
    """Compares two samples of one case's metric."""
    b, c = statistics.median(base), statistics.median(cont)
    change = (c - b) / b * 100.0 if b else math.inf
    worse = change > 0 if metric in LOWER_IS_BETTER else change < 0
    tested = min(len(base), len(cont)) >= 2 and smallest_p(len(base), len(cont)) < alpha
    p_value = float(mannwhitneyu(base, cont, alternative="two-sided").pvalue) if tested else None
    if abs(change) <= threshold:
        verdict = "same"
    elif tested and p_value >= alpha:
        verdict = "noise"
    else:
        verdict = "REGRESSION" if worse else "improvement"
    return Row("", b, c, change, p_value, verdict, tested)


def compare(baseline: dict, contender: dict, metric: str, threshold: float, alpha: float) -> list[Row]:
    """Rows for every case of either file, in the baseline's order, then new ones."""
    base_cases, cont_cases = mr.cases(baseline), mr.cases(contender)
    rows = []
    for name, base in base_cases.items():
        cont = cont_cases.get(name)
        if cont is None:
            rows.append(Row(name, base.median(metric), None, None, None, "missing in contender"))
        elif cont.error:
            rows.append(Row(name, base.median(metric), None, None, None, f"ERROR in contender: {cont.error}"))
        elif cont.skipped and not base.skipped:
            rows.append(Row(name, base.median(metric), None, None, None, f"SKIPPED in contender: {cont.skipped}"))
        elif base.error or base.skipped:
            why = f"error in baseline: {base.error}" if base.error else f"skipped in baseline: {base.skipped}"
            rows.append(Row(name, None, cont.median(metric), None, None, why if not cont.skipped else "skipped in both"))
        elif not base.values(metric) or not cont.values(metric):
            rows.append(Row(name, base.median(metric), cont.median(metric), None, None, f"no '{metric}'"))
        else:
            row = judge(base.values(metric), cont.values(metric), metric, threshold, alpha)
            row.name = name
            rows.append(row)
    for name, cont in cont_cases.items():
        if name not in base_cases:
            rows.append(Row(name, None, cont.median(metric), None, None, "new in contender"))
    return rows


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def render(rows: list[Row], metric: str, alpha: float) -> str:
    lines = [
        f"| case | baseline {metric} | contender {metric} | change % | p-value | verdict |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        p_value = _fmt(r.p_value, ".3g") if r.tested else "untestable"
        verdict = r.verdict + ("" if r.tested or r.change_pct is None else " (threshold only)")
        lines.append(f"| {r.name} | {_fmt(r.baseline, '.4g')} | {_fmt(r.contender, '.4g')} | "
                     f"{_fmt(r.change_pct, '+.2f')} | {p_value if r.change_pct is not None else ''} | {verdict} |")
    untested = [r for r in rows if not r.tested and r.change_pct is not None]
    if untested:
        lines.append("")
        lines.append(f"Note: {len(untested)} case(s) have too few repetitions for the Mann-Whitney test to reach "
                     f"p < {alpha:g} (3 vs 3 cannot go below 0.1; 4 vs 4 can); their verdicts rest on the "
                     "threshold alone. Use --benchmark_repetitions=5 or more for a significance test.")
    return "\n".join(lines)


def failed(rows: list[Row], ignore_missing: bool) -> bool:
    for r in rows:
        if r.verdict == "REGRESSION" or r.verdict.startswith("ERROR"):
            return True
        if (r.verdict == "missing in contender" or r.verdict.startswith("SKIPPED")) and not ignore_missing:
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if not (args.threshold >= 0 and math.isfinite(args.threshold)) or not 0 < args.alpha < 1:
            raise mr.InputError("--threshold must be >= 0 and --alpha within (0, 1)")
        baseline, contender = mr.load(args.baseline), mr.load(args.contender)
        if not set(mr.cases(baseline)) & set(mr.cases(contender)):
            raise mr.InputError("the two files have no case in common")
        present = set(mr.metrics(baseline)) | set(mr.metrics(contender))
        if args.metric not in present:
            raise mr.InputError(f"--metric {args.metric}: not in these files; they have: {', '.join(sorted(present))}")
        rows = compare(baseline, contender, args.metric, args.threshold, args.alpha)
    except mr.InputError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    if mr.gpu_name(baseline) != mr.gpu_name(contender):
        print(f"compare.py: warning: different GPUs: '{mr.gpu_name(baseline)}' vs '{mr.gpu_name(contender)}'",
              file=sys.stderr)
    print(render(rows, args.metric, args.alpha))
    return 1 if failed(rows, args.ignore_missing) else 0


if __name__ == "__main__":
    sys.exit(main())
