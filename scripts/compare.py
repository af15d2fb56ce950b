"""Regression gate: compare two membench JSON files case by case.

    python scripts/compare.py BASELINE.json CONTENDER.json [--metric bytes_per_second]
                              [--threshold 5] [--alpha 0.05]

Matches cases by name and compares the median of a counter (bytes_per_second
by default; any counter, or real_time / cpu_time). With two or more
repetitions on each side a two-sided Mann-Whitney U test decides whether a
difference is significant. Prints a Markdown table. Exit status: 1 when a case
regresses past the threshold (significantly, where repetitions allow), errors
in the contender, or disappears from it; 0 otherwise; 2 on bad input.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass

from scipy.stats import mannwhitneyu

import membench_results as mr

LOWER_IS_BETTER = {"real_time", "cpu_time"}


@dataclass
class Row:
    name: str
    baseline: float | None
    contender: float | None
    change_pct: float | None
    p_value: float | None
    verdict: str


def create_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("baseline", help="Google Benchmark JSON written by membench")
    p.add_argument("contender", help="Google Benchmark JSON written by membench")
    p.add_argument("--metric", default="bytes_per_second", help="counter, or real_time / cpu_time")
    p.add_argument("--threshold", type=float, default=5.0, help="percent change that counts (default 5)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--ignore-missing", action="store_true", help="cases absent from the contender do not fail")
    return p


def judge(base: list[float], cont: list[float], metric: str, threshold: float, alpha: float) -> Row:
    """Compares two samples of one case's metric."""
    b, c = statistics.median(base), statistics.median(cont)
    change = (c - b) / b * 100.0 if b else float("inf")
    better = -change if metric in LOWER_IS_BETTER else change
    p_value = None
    if len(base) >= 2 and len(cont) >= 2:
        p_value = float(mannwhitneyu(base, cont, alternative="two-sided").pvalue)
    significant = p_value is None or p_value < alpha
    if abs(change) <= threshold:
        verdict = "same"
    elif not significant:
        verdict = "noise"
    elif better < 0:
        verdict = "REGRESSION"
    else:
        verdict = "improvement"
    return Row("", b, c, change, p_value, verdict)


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
        elif base.error:
            rows.append(Row(name, None, cont.median(metric), None, None, f"error in baseline: {base.error}"))
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


def render(rows: list[Row], metric: str) -> str:
    lines = [
        f"| case | baseline {metric} | contender {metric} | change % | p-value | verdict |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | {_fmt(r.baseline, '.4g')} | {_fmt(r.contender, '.4g')} | {_fmt(r.change_pct, '+.2f')} "
            f"| {_fmt(r.p_value, '.3g')} | {r.verdict} |"
        )
    return "\n".join(lines)


def failed(rows: list[Row], ignore_missing: bool) -> bool:
    for r in rows:
        if r.verdict == "REGRESSION" or r.verdict.startswith("ERROR"):
            return True
        if r.verdict == "missing in contender" and not ignore_missing:
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    args = create_parser().parse_args(argv)
    try:
        if args.threshold < 0 or not 0 < args.alpha < 1:
            raise mr.InputError("--threshold must be >= 0 and --alpha within (0, 1)")
        baseline, contender = mr.load(args.baseline), mr.load(args.contender)
        if not set(mr.cases(baseline)) & set(mr.cases(contender)):
            raise mr.InputError("the two files have no case in common")
    except mr.InputError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    if mr.gpu_name(baseline) != mr.gpu_name(contender):
        print(
            f"compare.py: warning: different GPUs: '{mr.gpu_name(baseline)}' vs '{mr.gpu_name(contender)}'",
            file=sys.stderr,
        )
    rows = compare(baseline, contender, args.metric, args.threshold, args.alpha)
    print(render(rows, args.metric))
    return 1 if failed(rows, args.ignore_missing) else 0


if __name__ == "__main__":
    sys.exit(main())
