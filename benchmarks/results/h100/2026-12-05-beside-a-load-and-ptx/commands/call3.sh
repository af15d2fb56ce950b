#!/usr/bin/env bash
# The final call: the native (sm_90) and compute_80-PTX trees built side by side; every test of the native tree;
# the changed families' models against Nsight Compute; the default run of each tree alone; the PTX tree's tests.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
export PIP_NO_INDEX=1
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
cmake --preset h200 -G Ninja $RE > $L/configure_h200.log 2>&1 && cmake --preset ptx80 -G Ninja $RE > $L/configure_ptx80.log 2>&1
cmake --build build/h200 -j 10 > $L/build_h200.log 2>&1 & b1=$!
cmake --build build/ptx80 -j 6 > $L/build_ptx80.log 2>&1 & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
echo "builds: h200 $r1, ptx80 $r2 in $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 200 ctest --test-dir build/h200 -j 8 --timeout 190 --output-on-failure > $L/ctest_h200.log 2>&1
echo "ctest h200: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest_h200.log)"
grep -E "\*\*\*Failed|Timeout" $L/ctest_h200.log | head
t=$(date +%s)
PYTHONPATH=scripts timeout 60 python3 scripts/ncu_check.py --membench build/h200/membench --out $L/ncu -- \
  --benchmark_filter='^indirect/lookup/' --indirect.entries=2^24 > $OUT/ncu_check.md 2> $L/ncu_check.err
echo "ncu_check: exit $? in $(( $(date +%s) - t )) s: $(tail -1 $OUT/ncu_check.md)"
RCS=""
run() { local tree=$1 name=$2; shift 2; local t=$(date +%s)
  timeout 100 build/$tree/membench --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  local rc=$?; echo "$name: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/$name.json:$rc"; }
run h200 default_alone
run ptx80 ptx80_default_alone
left=$(( 540 - ($(date +%s) - T0) ))
echo "time left for the PTX tree's tests: $left s"
if [ $left -gt 40 ]; then
  t=$(date +%s)
  timeout $left ctest --test-dir build/ptx80 -j 8 --timeout $left -E '^(Contention|Signals)\.' --output-on-failure > $L/ctest_ptx80.log 2>&1
  echo "ctest ptx80 (less the load and signal tests the native tree ran): exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest_ptx80.log)"
  grep -E "\*\*\*Failed|Timeout" $L/ctest_ptx80.log | head
fi
tar czf $OUT/logsF.tgz -C $OUT logs && rm -rf $L
python3 .deps/summ.py $RCS
python3 -c "
import json
for f in ('ptx80_default_alone','default_alone'):
    d=json.load(open('$OUT/'+f+'.json'))['context']; print(f, '|', d.get('cuda_architectures'), '|', d.get('code_ran_as'))"
