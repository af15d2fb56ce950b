#!/usr/bin/env bash
# Issue 61 (the ceilings and the ridge): build; the tests of the suite's runs, the result file and the families
# touched; the compute and roofline families with three
# repetitions; mixbench-cuda in the same call; the default run (its file carries the roofs
# and ridges); a run beside the tests' load; one stopped by timeout; ncu's warp states for the async pipeline
# around the ridge; the sanitizers on the compute and roofline tests.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 14 > $L/build.log 2>&1 ) & b1=$!
( cmake -S .peers/mixbench/mixbench-cuda -B /tmp/mixbench -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > $L/mixbench_configure.log 2>&1 && cmake --build /tmp/mixbench -j 2 > $L/mixbench_build.log 2>&1 ) & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
echo "builds: membench $r1, mixbench $r2 in $(( $(date +%s) - t )) s"
[ $r1 = 0 ] || { tail -30 $L/build.log; tar czf $OUT/logsB.tgz -C $OUT logs; exit 3; }
M=build/h200/membench
run() { local name=$1; shift; local t=$(date +%s)
  timeout 150 $M --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  echo "$name: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/$name.log)"; }
run rf3 --benchmark_filter='^(compute|roofline)/' --benchmark_repetitions=3
timeout 60 /tmp/mixbench/mixbench-cuda > $OUT/mixbench.txt 2>&1; echo "mixbench: exit $?"
build/h200/tests/membench_gpu_holder 40 load > $L/holder.log 2>&1 & h=$!
sleep 2
run loaded --benchmark_filter='^(compute/(fp32|wgmma_bf16)/chains:[12]/occupancy:1|roofline/(dram|l1)/fmas:(0|64))/'
kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
timeout 8 $M --benchmark_filter='^(compute|roofline)/' --benchmark_repetitions=3 --benchmark_out=$OUT/timeout.json --benchmark_out_format=json > $L/timeout.log 2>&1
echo "timeout 8: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/timeout.log)"
t=$(date +%s)
MEMBENCH_PROFILE=1 timeout 120 ncu --profile-from-start off --clock-control none --section WarpStateStats --section SpeedOfLight \
  --export $L/ncu_async --force-overwrite $M --benchmark_filter='^async/(sync|pipeline)/n:67108864/tile:1024/(stages:(1|4)/)?flops:(128|512)/persistent:1/' > $L/ncu.log 2>&1
echo "ncu: exit $?, $(( $(date +%s) - t )) s"
ncu --import $L/ncu_async.ncu-rep --csv --page raw --print-units base > $OUT/ncu_async.csv 2>>$L/ncu.log
for tool in memcheck racecheck synccheck; do t=$(date +%s)
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='Compute*:Roofline*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
t=$(date +%s)
timeout 150 ctest --test-dir build/h200 -j 8 --timeout 120 -R 'Suite|Compute|Roofline|ResultFile|CaseRef|Resume|Signals|Async' --output-on-failure > $L/ctest.log 2>&1
echo "ctest: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest.log)"
grep -E "\*\*\*Failed|Timeout" $L/ctest.log | head
for k in 1; do build/h200/tests/membench_tests --gtest_filter='Suite.AtomicsReportUpdatesPerSecondBesideTheModel' > $L/atomics_alone_$k.log 2>&1; echo "atomics test alone #$k: exit $?"; done
run default
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/logsB.tgz -C $OUT logs
python3 .deps/summB.py $OUT/rf3.json $OUT/default.json $OUT/loaded.json $OUT/timeout.json $OUT/mixbench.txt
