#!/usr/bin/env bash
# Issue 62 after global's catalog change: the GPU tests (global, the declarations, the command line, the suite) and
# compute-sanitizer on global's; the global family with --benchmark_repetitions=3 alone and beside the tests' load
# (the files the consumers read); a run stopped by timeout.
set -u
T0=$(date +%s)
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 15 > $L/build.log 2>&1 ); r1=$?
echo "build: $r1 in $(( $(date +%s) - t )) s"
pack() { cp .deps/callT.sh $W/; tar czf $OUT/T.tgz -C $OUT w; }
[ $r1 = 0 ] || { tail -30 $L/build.log; pack; exit 3; }
M=build/h200/membench
t=$(date +%s)
timeout 200 build/h200/tests/membench_tests --gtest_filter='Global*:SectorsModel*:DramModel*:Declarations*:CounterCatalog*:CheckCli*:CommandLine*:Usage*:Listing*:ResultFile*:ResultSchema*:Suite*:CaseRef*:CaseId*:CaseList*:FamiliesOnTheCpu*' > $L/tests.log 2>&1
echo "tests: exit $? in $(( $(date +%s) - t )) s: $(grep -E '^\[  (PASSED|FAILED)|tests ran' $L/tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' $L/tests.log | head -5
for tool in memcheck racecheck synccheck; do t=$(date +%s)
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='Global*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
F='^global/'
t=$(date +%s)
timeout 150 $M --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_out=$W/global_alone.json --benchmark_out_format=json > $L/alone.log 2>&1
echo "global alone: exit $?, $(( $(date +%s) - t )) s"
build/h200/tests/membench_gpu_holder 150 load > $L/holder.log 2>&1 & h=$!
sleep 2; t=$(date +%s)
timeout 150 $M --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_out=$W/global_loaded.json --benchmark_out_format=json > $L/loaded.log 2>&1
echo "global beside the load: exit $?, $(( $(date +%s) - t )) s"
kill $h 2>/dev/null; wait $h 2>/dev/null
timeout 8 $M --benchmark_filter="$F" --benchmark_out=$W/timeout.json --benchmark_out_format=json > $L/timeout.log 2>&1
echo "stopped by timeout: exit $?; $(python3 -c "import json; d=json.load(open('$W/timeout.json')); print('whole JSON:', d['membench'].get('complete'), d['membench'].get('end',{}).get('stopped'), len(d['benchmarks']), 'entries')" 2>&1)"
echo "elapsed $(( $(date +%s) - T0 )) s"
pack
