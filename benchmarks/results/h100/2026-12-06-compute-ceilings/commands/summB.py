"""The call's table: each pipe's and level's roof and the ridges (default run), the roofline sweep's turn, the loaded
and timeout files' state, mixbench's peaks."""
import json, sys
rf3, default, loaded, timeout, mix = sys.argv[1:6]
def load(p):
    try: return json.load(open(p))
    except Exception as e: print(p, "unreadable:", e); return None
for name, p in (("rf3", rf3), ("default", default)):
    d = load(p)
    if not d: continue
    m = d["membench"]
    print(f"== {name}: {len(d['benchmarks'])} entries, complete {m.get('complete')}")
    for r in m.get("roofs", []):
        print(f"  roof {r['name']:24s} {r['gpu'][:12]:12s} {r['value']:.4g} {r['unit']}  {r['case']}")
    for r in m.get("ridges", []):
        if r["compute"] in ("fp32 FMA",) or r["gpu"]:
            print(f"  ridge {r['compute']} / {r['memory']} ({r['gpu'][:12] or 'here'}): {r['ops_per_byte']:.3g} op/B")
d = load(rf3)
if d:
    rows = {}
    for b in d["benchmarks"]:
        if b["name"].startswith("roofline/") and "bytes_per_second" in b and b.get("run_type") != "aggregate":
            rows[b["run_name"]] = b
    print("| roofline case | FLOP/B | GB/s | GFLOP/s | % of level peak | model GB/s |")
    for n, b in rows.items():
        print(f"| {n.replace('/manual_time','')} | {b.get('flops_per_byte',0):.3g} | {b.get('bytes_per_second',0)/1e9:.0f} | "
              f"{b.get('gflops_per_second',0):.0f} | {b.get('pct_of_peak',0):.1f} | {b.get('model_bytes_per_second',0)/1e9:.0f} |")
for name, p in (("loaded", loaded), ("timeout", timeout)):
    d = load(p)
    if not d: continue
    bs = d["benchmarks"]
    print(f"{name}: {len(bs)} entries, complete {d['membench'].get('complete')}, end {d['membench'].get('end', {}).get('stopped', '')!r}, "
          f"contended {sum(1 for b in bs if b.get('contended') == 1)}, errors {sum(1 for b in bs if b.get('error_occurred') and 'interrupted' not in b.get('error_message',''))}")
best = {}
try:
    for line in open(mix):
        parts = [x.strip() for x in line.split(",")]
        if len(parts) == 17 and parts[0].isdigit():
            f = [float(x) for x in parts[1:]]
            for i, k in enumerate(["SP", "DP", "HP", "INT"]):
                best[k] = max(best.get(k, 0), f[4 * i + 2]); best["DRAM GB/s"] = max(best.get("DRAM GB/s", 0), f[4 * i + 3])
    print("mixbench:", {k: round(v) for k, v in best.items()})
except OSError:
    print("no mixbench")
