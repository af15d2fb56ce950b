"""Prints the call's table: the compute family's best case of each pipe, ncu's pipe utilisation, mixbench's peaks."""
import csv, json, re, sys
from collections import defaultdict

def compute_table(path):
    d = json.load(open(path))
    best = {}
    for b in d["benchmarks"]:
        n = b.get("name", "")
        if not n.startswith("compute/") or b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        v = n.split("/")[1]
        ops = b.get("ops_per_second", 0)
        if ops and (v not in best or ops > best[v]["ops_per_second"]):
            best[v] = b
    print("| pipe | best case | op/s (T) | model at clock (T) | % of peak | clock MHz | contended | clock_event |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for v, b in best.items():
        print(f"| {v} | {b['name'].split('/',2)[2].replace('/manual_time','')} | {b['ops_per_second']/1e12:.2f} | "
              f"{b.get('model_ops_per_second',0)/1e12:.2f} | {b.get('pct_of_peak',0):.1f} | {b.get('sm_clock_mhz',0):.0f} | "
              f"{b.get('contended','-')} | {b.get('clock_event','-')} |")
    errs = [b["name"] for b in d["benchmarks"] if b.get("error_occurred")]
    print("errors:", errs[:5], "skipped:", sum(1 for b in d["benchmarks"] if b.get("skipped") or "skip" in str(b.get("error_message",""))))

def ncu_table(path):
    try:
        rows = list(csv.DictReader(open(path)))
    except Exception as e:
        print("ncu csv:", e); return
    if not rows: print("ncu: no rows"); return
    cols = [c for c in rows[0] if "pipe" in c and "pct_of_peak_sustained_active" in c]
    for r in rows[1:] if rows[0].get("Kernel Name","") == "" else rows:
        k = r.get("Kernel Name", "?")[:60]
        vals = sorted(((float(r[c]) if r[c].replace('.','',1).isdigit() else 0, c) for c in cols), reverse=True)[:3]
        print(f"ncu {k}: " + ", ".join(f"{c.split('__')[1].split('.')[0]} {v:.1f}%" for v, c in vals))

def mixbench(path):
    try: text = open(path).read()
    except OSError: print("no mixbench"); return
    best = defaultdict(float); bw = 0.0
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 17 and parts[0].isdigit():
            f = [float(p) for p in parts[1:]]
            for i, name in enumerate(["SP", "DP", "HP", "INT"]):
                best[name] = max(best[name], f[4 * i + 2]); bw = max(bw, f[4 * i + 3])
    print("mixbench peaks (G): " + ", ".join(f"{k} {v:.0f}" for k, v in best.items()) + f"; DRAM {bw:.0f} GB/s")

for p in sys.argv[1:]:
    try:
        if p.endswith(".json"): compute_table(p)
        elif p.endswith(".csv"): ncu_table(p)
        else: mixbench(p)
    except Exception as e:
        print(p, "unreadable:", e)
