#!/usr/bin/env bash
# What before local/unrolled/array:64 slows it (alone 1772 GB/s, after its family 1706): each neighbour alone before it.
set -u
M=build/h200/membench
[ -x $M ] || { echo "no build"; exit 3; }
nvidia-smi -L
one() { local name=$1 filter=$2
  for k in 1 2; do timeout 60 $M --benchmark_filter="$filter" --benchmark_out=$OUT/$name$k.json --benchmark_out_format=json > /dev/null 2>&1
  python3 - "$OUT/$name$k.json" "$name$k" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    if b.get("run_type") == "iteration" and "unrolled/array:64/" in b["name"]:
        print(f"{sys.argv[2]:14} {b['bytes_per_second']/1e9:7.1f} GB/s batches {int(b['batches']):4} noise {b['noise_pct']:.2f}%")
PY
  done; }
one alone '^local/unrolled/array:64/'
one dyn8 '^local/(dynamic/array:8|unrolled/array:64)/'
one dyn64 '^local/(dynamic/array:64|unrolled/array:64)/'
one dyn256 '^local/(dynamic/array:256|unrolled/array:64)/'
one unr8 '^local/(unrolled/array:8|unrolled/array:64)/'
one memcpy '^(global/memcpy/|local/unrolled/array:64/)'
one alone_again '^local/unrolled/array:64/'
rm -f $OUT/*.json
