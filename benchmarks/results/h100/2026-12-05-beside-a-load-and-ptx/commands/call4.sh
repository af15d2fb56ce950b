#!/usr/bin/env bash
# On the warm machine of the final call: the CI set x5 alone and beside the tests' own load, and the sanitizers on
# the async kernels (their launch bounds changed for sm_120) and the code probe.
set -u
L=$OUT/logs; mkdir -p $L
B=build/h200
[ -x $B/membench ] || { echo "no build here"; exit 3; }
RCS=""
t=$(date +%s); timeout 70 $B/membench --sweep=sweeps/ci.json --benchmark_repetitions=5 --benchmark_out=$OUT/ci_rep5_alone.json --benchmark_out_format=json > $L/alone.log 2>&1
rc=$?; echo "ci_rep5_alone: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/ci_rep5_alone.json:$rc"
$B/tests/membench_gpu_holder 300 load > $L/holder.log 2>&1 & holder=$!
sleep 3
t=$(date +%s); timeout 200 $B/membench --sweep=sweeps/ci.json --benchmark_repetitions=5 --benchmark_out=$OUT/ci_rep5_load.json --benchmark_out_format=json > $L/load.log 2>&1
rc=$?; echo "ci_rep5_load: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/ci_rep5_load.json:$rc"
kill $holder; wait $holder 2>/dev/null
for tool in memcheck racecheck synccheck; do
  t=$(date +%s)
  timeout 25 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/membench_tests --gtest_filter='AsyncKernels.Tma*:CodeRanAs.*' > $L/san_$tool.log 2>&1
  echo "sanitizer $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/san_$tool.log | tail -1); $(grep -E '^\[  PASSED' $L/san_$tool.log)) $(( $(date +%s) - t )) s"
done
tar czf $OUT/logsG.tgz -C $OUT logs && rm -rf $L
python3 .deps/summ.py $RCS
