#!/usr/bin/env bash
# Issue 53's before and after in one call: the tree before the case references and the split main (.deps/before,
# from git archive 9be6bde) and today's, built side by side; the default run of each alone, one after the
# other on the same GPU; the check of today's tree; today's tests.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
export PIP_NO_INDEX=1
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cd .deps/before && cmake --preset h200 -G Ninja $RE > $L/configure_before.log 2>&1 && cmake --build build/h200 -j 7 --target membench > $L/build_before.log 2>&1 ) & b1=$!
( cmake --preset h200 -G Ninja $RE > $L/configure_after.log 2>&1 && cmake --build build/h200 -j 9 > $L/build_after.log 2>&1 ) & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
echo "builds: before $r1, after $r2 in $(( $(date +%s) - t )) s"
RCS=""
run() { local exe=$1 name=$2; shift 2; local t=$(date +%s)
  timeout 120 $exe --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  local rc=$?; echo "$name: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/$name.json:$rc"; }
run .deps/before/build/h200/membench default_before
run build/h200/membench default_after
timeout 60 build/h200/membench --check --check_metrics=$OUT/check_after.prom > $OUT/check_after.txt 2>&1
echo "check_after: exit $? | $(tail -2 $OUT/check_after.txt | head -1 | cut -c1-220)"
build/h200/membench --check --list_cases=json > $OUT/check_list_after.json; .deps/before/build/h200/membench --check --list_cases=json > $L/check_list_before.json
cmp <(python3 -c "import json;print([c['name'] for c in json.load(open('$OUT/check_list_after.json'))])") <(python3 -c "import json;print([c['name'] for c in json.load(open('$L/check_list_before.json'))])") && echo "check cases: the same 15 names before and after"
t=$(date +%s)
timeout 240 ctest --test-dir build/h200 -j 8 --timeout 200 --output-on-failure > $L/ctest_after.log 2>&1
echo "ctest after: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest_after.log)"
grep -E "\*\*\*Failed|Timeout" $L/ctest_after.log | head
tar czf $OUT/logs6.tgz -C $OUT logs && rm -rf $L
python3 .deps/summ.py $RCS
