"""A line per result file: cases, measured, skipped, failed, contended, noisy, exit status."""
import json, sys
print(f"{'file':28} {'cases':>5} {'meas':>5} {'skip':>5} {'fail':>5} {'cont':>5} {'noisy':>5} {'exit':>4}")
for arg in sys.argv[1:]:
    path, rc = arg.split(":") if ":" in arg else (arg, "?")
    try:
        d = json.load(open(path))
    except Exception as e:
        print(f"{path.split('/')[-1]:28} unreadable: {e}")
        continue
    runs = {}
    for b in d["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        runs.setdefault(b["run_name"], []).append(b)
    skip = fail = meas = cont = noisy = 0
    for name, rs in runs.items():
        msg = rs[0].get("error_message", "") or rs[0].get("skip_message", "")
        if rs[0].get("skipped") or msg.startswith("skipped"):
            skip += 1
        elif rs[0].get("error_occurred"):
            fail += 1
            print("   FAILED", name, msg[:160])
        else:
            meas += 1
            cont += any(r.get("contended", 0) >= 1 for r in rs)
            noisy += any(r.get("noisy", 0) >= 1 for r in rs)
    print(f"{path.split('/')[-1]:28} {len(runs):5} {meas:5} {skip:5} {fail:5} {cont:5} {noisy:5} {rc:>4}")
