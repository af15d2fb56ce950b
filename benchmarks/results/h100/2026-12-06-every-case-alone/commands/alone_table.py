"""The tables of this record's README, from alone.jsonl (and atomics_probe.json): every default-run case alone
against its value in the same call's default run, by its measure, as is and per SM clock.

    python benchmarks/results/h100/2026-12-06-every-case-alone/commands/alone_table.py
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
rows = [json.loads(line) for line in (HERE / "alone.jsonl").read_text().splitlines()]
measured = [r for r in rows if "alone" in r]
print(f"{len(rows)} cases alone: {len(measured)} measured in both, "
      f"{sum('skipped' in r for r in rows)} skipped as in the run, {sum('error' in r for r in rows)} failed")
for r in measured:
    r["d"] = 100 * (r["alone"] / r["in_run"] - 1)
    clocks = r.get("alone_mhz") and r.get("in_run_mhz")
    r["dc"] = 100 * ((r["alone"] / r["alone_mhz"]) / (r["in_run"] / r["in_run_mhz"]) - 1) if clocks else r["d"]
    r["tol"] = max(1.0, 2 * r["noise_pct"])
print("| within | as measured | per SM clock |\n| --- | ---: | ---: |")
for t in (0.5, 1, 2, 5):
    print(f"| {t}% | {sum(abs(r['d']) <= t for r in measured)} | {sum(abs(r['dc']) <= t for r in measured)} |")
out = [r for r in measured if abs(r["d"]) > r["tol"]]
clock = [r for r in out if abs(r["dc"]) <= r["tol"]]
rest = sorted((r for r in out if abs(r["dc"]) > r["tol"]), key=lambda r: -abs(r["dc"]))
print(f"\n{len(out)} beyond the larger of 1% and twice the noise; {len(clock)} of them within it per SM clock "
      f"(by family: {dict(sorted({f: sum(r['case'].split('/')[0] == f for r in clock) for f in {r['case'].split('/')[0] for r in clock}}.items()))})")
print("\n| case | measure | alone vs in the run | per SM clock | clocks alone / in the run, MHz | noise | host-paced |")
print("| --- | --- | ---: | ---: | --- | ---: | --- |")
for r in rest:
    print(f"| `{r['case']}` | {r['measure']} | {r['d']:+.2f}% | {r['dc']:+.2f}% | {r['alone_mhz']:.0f} / {r['in_run_mhz']:.0f} "
          f"| {r['noise_pct']:.2g}% | {'yes' if r['host_paced'] else ''} |")
probe = json.loads((HERE / "atomics_probe.json").read_text())["updates_per_second_and_sm_clock_mhz"]
print("\n| atomics case | alone, three runs (G/s) | after async, three runs | before compute | spread |\n| --- | --- | --- | --- | ---: |")
for case, runs in probe.items():
    v = lambda k: runs[k][0] / 1e9
    alone = [v(f"alone{k}") for k in (1, 2, 3)]
    after = [v(f"after_async{k}") for k in (1, 2, 3)]
    every = alone + after + [v("with_compute")]
    print(f"| `{case}` | {' '.join(f'{x:.4g}' for x in alone)} | {' '.join(f'{x:.4g}' for x in after)} | {v('with_compute'):.4g} "
          f"| {100 * (max(every) / min(every) - 1):.1f}% |")
