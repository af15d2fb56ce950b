#!/usr/bin/env bash
# Issue 62's GPU items again at the final tree, in this session: --check by the built-in H100 reference;
# local/unrolled/array:64 alone and after each family; the check's cases and three marked ones with
# --benchmark_repetitions=5, alone and beside the tests' load, and the default run (the files the one-verdict
# table is made from, by the one-verdict record's commands/verdicts.py).
set -u
T0=$(date +%s)
W=$OUT/w; L=$W/logs; mkdir -p $L $W/neighbours
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 15 --target membench membench_gpu_holder > $L/build.log 2>&1 ); r1=$?
echo "build: $r1 in $(( $(date +%s) - t )) s"
pack() { cp .deps/callU.sh $W/; tar czf $OUT/U.tgz -C $OUT w; }
[ $r1 = 0 ] || { tail -30 $L/build.log; pack; exit 3; }
M=build/h200/membench
t=$(date +%s)
timeout 60 $M --check --benchmark_out=$W/check.json --benchmark_out_format=json > $W/check.txt 2>&1
echo "check: exit $? in $(( $(date +%s) - t )) s: $(tail -1 $W/check.txt | cut -c1-200)"
C='local/unrolled/array:64/'
one() { local name=$1 filter=$2
  timeout 60 $M --benchmark_filter="$filter" --benchmark_out=$W/neighbours/$name.json --benchmark_out_format=json > /dev/null 2>&1
  python3 -c "
import json
d=json.load(open('$W/neighbours/$name.json'))
for b in d['benchmarks']:
  if b['name'].startswith('$C'): print(f\"{'$name':10s} {b['bytes_per_second']/1e9:8.1f} GB/s noise {b.get('noise_pct',0):.2f}% sm {b.get('sm_clock_mhz',0):.0f} MHz\")" 2>&1 | tail -1; }
t=$(date +%s)
{ for k in 1 2 3; do one alone$k "^$C"; done
  for fam in async atomics compute constant dsmem global hierarchy indirect l2persist layout local; do one $fam "^($fam/|$C)"; done; } | tee $W/neighbours.txt
echo "neighbours: $(( $(date +%s) - t )) s"
T='^(atomics/add/word:u32/space:shared/shared_by:thread/updates:16/|atomics/red/word:u32/space:global/shared_by:thread/updates:16/|compute/fp32/chains:8/occupancy:8/|compute/mma_bf16/chains:8/occupancy:4/|compute/wgmma_e4m3/chains:1/occupancy:2/|hierarchy/bandwidth/working_set:(65536|16777216)/width:16/persistent:1/through_l1:1/|hierarchy/latency/working_set:(16384|16777216|1073741824)/chase_stride:128/|shared/conflict_degree/shared_stride:1/width:16/|stream/(read|write|copy)/type:float/elements:134217728/block:256/|stream/triad/type:double/elements:134217728/block:256/|transfer/(host_to_device|device_to_host|bidirectional)_memcpy_ce/host:pinned/bytes:67108864/|transfer/host_to_device_memcpy_ce/host:pageable/bytes:67108864/|local/unrolled/array:64/)'
t=$(date +%s)
timeout 120 $M --benchmark_filter="$T" --benchmark_repetitions=5 --benchmark_out=$W/marks_alone.json --benchmark_out_format=json > $L/marks_alone.log 2>&1
echo "marks alone: exit $?, $(( $(date +%s) - t )) s"
build/h200/tests/membench_gpu_holder 120 load > $L/holder.log 2>&1 & h=$!
sleep 2; t=$(date +%s)
timeout 120 $M --benchmark_filter="$T" --benchmark_repetitions=5 --benchmark_out=$W/marks_loaded.json --benchmark_out_format=json > $L/marks_loaded.log 2>&1
echo "marks beside the load: exit $?, $(( $(date +%s) - t )) s"
kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
timeout 120 $M --benchmark_out=$W/default.json --benchmark_out_format=json > $L/default.log 2>&1
echo "default: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/default.log | cut -c1-160)"
echo "elapsed $(( $(date +%s) - T0 )) s"
pack
