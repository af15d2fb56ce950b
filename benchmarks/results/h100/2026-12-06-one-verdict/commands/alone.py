"""Each sampled case alone (a process of its own) against its value in the same call's default run, by its measure."""

import glob
import os
import sys

sys.path.insert(0, "scripts")
from membench import results as mr, declarations

D = sys.argv[1]
run = mr.load(f"{D}/default.json")
in_run = mr.cases(run)
rows = []
for f in sorted(glob.glob(f"{D}/alone/*.json"), key=lambda p: int(os.path.basename(p)[:-5])):
    doc = mr.load(f)
    for name, case in mr.cases(doc).items():
        other = in_run.get(name)
        if case.skipped or case.error or other is None or other.skipped or other.error:
            rows.append((name, None, None, None, case.skipped or case.error or "-"))
            continue
        metric = declarations.measure_of(doc, case)
        a, b = case.median(metric), other.median(metric)
        noise = max(case.most("noise_pct") or 0, other.most("noise_pct") or 0)
        rows.append((name, metric, a, b, (a / b - 1) * 100 if a and b else None, noise))
measured = [r for r in rows if r[1]]
print(f"{len(rows)} cases sampled (every 9th of the default run's list), {len(measured)} measured in both")
big = sorted((r for r in measured if r[4] is not None and abs(r[4]) > 1), key=lambda r: -abs(r[4]))
within = sum(1 for r in measured if r[4] is not None and abs(r[4]) <= 1)
print(f"within 1%: {within}; outside: {len(big)}")
print("| case | measure | alone | in the run | alone vs in the run | noise (larger) |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for name, metric, a, b, d, noise in big:
    print(f"| `{name.removesuffix('/manual_time')}` | {metric} | {a:.4g} | {b:.4g} | {d:+.2f}% | {noise:.2g}% |")
