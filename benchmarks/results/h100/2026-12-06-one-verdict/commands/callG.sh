#!/usr/bin/env bash
# Issue 62 on the GPU: build; the local, compute, check and health tests and the sanitizers on the local kernels
# (their input layout changed); local/unrolled/array:64 alone and after each family before it; the check's cases and
# three marked ones with --benchmark_repetitions=5, alone and beside the tests' load (the files the consumers'
# verdict table is made from); the default run; a sample of its cases, each alone in a process of its own.
set -u
T0=$(date +%s)
LIMIT=${1:-570}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
W=$OUT/w; L=$W/logs; mkdir -p $L $W/alone $W/neighbours
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 15 > $L/build.log 2>&1 ); r1=$?
echo "build: $r1 in $(( $(date +%s) - t )) s"
pack() { cp .deps/callG.sh $W/; tar czf $OUT/G.tgz -C $OUT w; }
[ $r1 = 0 ] || { tail -30 $L/build.log; pack; exit 3; }
M=build/h200/membench
t=$(date +%s)
timeout 120 build/h200/tests/membench_tests --gtest_filter='Local*:Compute*:Check*:ClockEvents*:Monitor*:MeasuredCounters*' > $L/tests.log 2>&1
echo "tests: exit $? in $(( $(date +%s) - t )) s: $(grep -E '^\[  (PASSED|FAILED)' $L/tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' $L/tests.log | head -5
for tool in memcheck racecheck synccheck; do t=$(date +%s)
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='LocalKernels.*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
C='local/unrolled/array:64/'
one() { local name=$1 filter=$2
  timeout 60 $M --benchmark_filter="$filter" --benchmark_out=$W/neighbours/$name.json --benchmark_out_format=json > /dev/null 2>&1
  python3 -c "
import json
d=json.load(open('$W/neighbours/$name.json'))
for b in d['benchmarks']:
  if b['name'].startswith('$C'): print(f\"{'$name':10s} {b['bytes_per_second']/1e9:8.1f} GB/s noise {b.get('noise_pct',0):.2f}% batches {b.get('batches',0):.0f}\")" 2>&1 | tail -1; }
for k in 1 2 3; do one alone$k "^$C"; done
for fam in async atomics compute constant dsmem global hierarchy indirect l2persist layout local; do one $fam "^($fam/|$C)"; done
T='^(atomics/add/word:u32/space:shared/shared_by:thread/updates:16/|atomics/red/word:u32/space:global/shared_by:thread/updates:16/|compute/fp32/chains:8/occupancy:8/|compute/mma_bf16/chains:8/occupancy:4/|compute/wgmma_e4m3/chains:1/occupancy:2/|hierarchy/bandwidth/working_set:(65536|16777216)/width:16/persistent:1/through_l1:1/|hierarchy/latency/working_set:(16384|16777216|1073741824)/chase_stride:128/|shared/conflict_degree/shared_stride:1/width:16/|stream/(read|write|copy)/type:float/elements:134217728/block:256/|stream/triad/type:double/elements:134217728/block:256/|transfer/(host_to_device|device_to_host|bidirectional)_memcpy_ce/host:pinned/bytes:67108864/|transfer/host_to_device_memcpy_ce/host:pageable/bytes:67108864/|local/unrolled/array:64/)'
t=$(date +%s)
timeout 120 $M --benchmark_filter="$T" --benchmark_repetitions=5 --benchmark_out=$W/marks_alone.json --benchmark_out_format=json > $L/marks_alone.log 2>&1
echo "marks alone: exit $?, $(( $(date +%s) - t )) s"
build/h200/tests/membench_gpu_holder 90 load > $L/holder.log 2>&1 & h=$!
sleep 2; t=$(date +%s)
timeout 120 $M --benchmark_filter="$T" --benchmark_repetitions=5 --benchmark_out=$W/marks_loaded.json --benchmark_out_format=json > $L/marks_loaded.log 2>&1
echo "marks beside the load: exit $?, $(( $(date +%s) - t )) s"
kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
timeout 150 $M --benchmark_out=$W/default.json --benchmark_out_format=json > $L/default.log 2>&1
echo "default: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/default.log | cut -c1-160)"
$M --benchmark_list_tests 2>/dev/null | awk 'NR % 9 == 4' > $L/alone_cases.txt
n=0
while read -r c; do
  [ $(left) -gt 45 ] || break
  f=$(echo "$c" | sed 's|/manual_time$||'); esc=$(printf '%s' "$f" | sed 's/[][\.*^$+?(){}|]/\\&/g')
  timeout 30 $M --benchmark_filter="^$esc/" --benchmark_out=$W/alone/$n.json --benchmark_out_format=json > /dev/null 2>&1
  n=$((n+1))
done < $L/alone_cases.txt
echo "alone: $n of $(wc -l < $L/alone_cases.txt) cases, each in a process of its own"
echo "elapsed $(( $(date +%s) - T0 )) s"
pack
