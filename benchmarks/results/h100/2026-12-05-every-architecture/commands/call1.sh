#!/usr/bin/env bash
# Call A: the native (sm_90) and compute_75-PTX trees built side by side; the native default run; the check by
# the built-in reference, with the H200's hidden (only an H100 reference in use: provisional), and on the default
# run made a fifth slower; the compute_75-PTX default run; the native tree's tests; the PTX tree's where time is left.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
export PIP_NO_INDEX=1
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log --oneline -1; } | tee $L/machine.txt
t=$(date +%s)
cmake --preset h200 -G Ninja $RE > $L/configure_h200.log 2>&1 && cmake --preset ptx75 -G Ninja $RE > $L/configure_ptx75.log 2>&1
cmake --build build/h200 -j 10 > $L/build_h200.log 2>&1 & b1=$!
cmake --build build/ptx75 -j 6 > $L/build_ptx75.log 2>&1 & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
echo "builds: h200 $r1, ptx75 $r2 in $(( $(date +%s) - t )) s"
RCS=""
run() { local tree=$1 name=$2; shift 2; local t=$(date +%s)
  timeout 120 build/$tree/membench --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  local rc=$?; echo "$name: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/$name.json:$rc"; }
run h200 default
chk() { local name=$1; shift; timeout 60 build/h200/membench "$@" --check_metrics=$OUT/$name.prom > $OUT/$name.txt 2>&1
  echo "$name: exit $? | $(grep -E 'healthy|HEALTHY|inconclusive|no reference' $OUT/$name.txt | grep -v ': ok \|: better ' | tail -1 | cut -c1-230)"; }
chk check_builtin --check --benchmark_out=$OUT/check_builtin.json --benchmark_out_format=json
chk check_hidden --check=.deps/h100_ref.json --benchmark_out=$OUT/check_hidden.json --benchmark_out_format=json
python3 .deps/slower.py $OUT/default.json $OUT/default_fifth_slower.json
chk judge_default_hidden --check=.deps/h100_ref.json --judge=$OUT/default.json
chk judge_slower_hidden --check=.deps/h100_ref.json --judge=$OUT/default_fifth_slower.json
chk judge_slower_builtin --check --judge=$OUT/default_fifth_slower.json
run ptx75 ptx75_default
t=$(date +%s)
timeout 200 ctest --test-dir build/h200 -j 8 --timeout 190 --output-on-failure > $L/ctest_h200.log 2>&1
echo "ctest h200: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest_h200.log)"
grep -E "\*\*\*Failed|Timeout" $L/ctest_h200.log | head
left=$(( 560 - ($(date +%s) - T0) ))
echo "time left for the PTX tree's tests: $left s"
if [ $left -gt 60 ]; then
  t=$(date +%s)
  timeout $left ctest --test-dir build/ptx75 -j 8 --timeout $left -E '^(Contention|Signals)\.' --output-on-failure > $L/ctest_ptx75.log 2>&1
  echo "ctest ptx75 (less the load and signal tests): exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest_ptx75.log)"
  grep -E "\*\*\*Failed|Timeout" $L/ctest_ptx75.log | head
fi
tar czf $OUT/logsA.tgz -C $OUT logs && rm -rf $L
python3 .deps/summ.py $RCS
python3 -c "
import json
for f in ('default','ptx75_default'):
    d=json.load(open('$OUT/'+f+'.json'))['context']; print(f, '|', d.get('cuda_architectures'), '|', d.get('code_ran_as'), '|', json.loads(d.get('arch_facts','{}')).get('compute_capability'))"
