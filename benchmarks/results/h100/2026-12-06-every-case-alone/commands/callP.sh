#!/usr/bin/env bash
# Issue 62 (item 6): why the atomics read 5-10% faster alone than in the default run: the atomics family alone,
# after async (which runs before it in the default run), after compute, three times each.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W
nvidia-smi -L | tee $W/machine.txt
B=build/dev
cmake -S . -B $B -DMEMBENCH_BUILD_TESTS=OFF -DMEMBENCH_PYTHON_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/configure.log 2>&1
cmake --build $B -j 16 --target membench > $W/build.log 2>&1; echo "built: $? at $(el) s"
M=$B/membench
for k in 1 2 3; do
  timeout 60 $M --benchmark_filter='^atomics/' --benchmark_out=$W/alone$k.json --benchmark_out_format=json > /dev/null 2>&1; echo "atomics alone $k: $? at $(el) s"
  timeout 90 $M --benchmark_filter='^(async|atomics)/' --benchmark_out=$W/after_async$k.json --benchmark_out_format=json > /dev/null 2>&1; echo "after async $k: $? at $(el) s"
done
timeout 90 $M --benchmark_filter='^(atomics|compute)/' --benchmark_out=$W/with_compute.json --benchmark_out_format=json > /dev/null 2>&1; echo "atomics then compute: $? at $(el) s"
tar czf $OUT/P.tgz -C $OUT w
python3 - $W <<'PY'
import json, sys, glob, os
w = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{w}/*.json")):
    for b in json.load(open(f))["benchmarks"]:
        if b["name"].startswith("atomics/") and "updates_per_second" in b:
            rows.setdefault(b["name"].replace("/manual_time", ""), {})[os.path.basename(f)[:-5]] = (b["updates_per_second"], b.get("sm_clock_mhz"))
for n, r in rows.items():
    print(n[8:60].ljust(52), " ".join(f"{k}={v/1e9:.1f}G@{c:.0f}" for k, (v, c) in sorted(r.items())))
PY
echo "elapsed $(el) s"
