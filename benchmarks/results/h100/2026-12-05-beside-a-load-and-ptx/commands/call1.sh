#!/usr/bin/env bash
# Call 1: build, the default run and the CI set (x5) alone and beside the tests' own load, the sanitizers on
# the kernels this change touched.
set -u
L=$OUT/logs; mkdir -p $L
export PIP_NO_INDEX=1
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2; git log --oneline -1; git status --short | head; } > $L/machine.txt 2>&1
cat $L/machine.txt
t0=$(date +%s)
cmake --preset h200 -G Ninja -DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include \
  -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a > $L/configure.log 2>&1 && \
  cmake --build build/h200 -j 16 > $L/build.log 2>&1
echo "build rc $? in $(( $(date +%s) - t0 )) s"; tail -3 $L/build.log
B=build/h200
run() { # name, args...
  local name=$1; shift
  local t=$(date +%s)
  timeout 200 $B/membench --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  local rc=$?; echo "$name: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/$name.json:$rc"
}
RCS=""
run default_alone
$B/tests/membench_gpu_holder 400 load > $L/holder1.log 2>&1 & holder=$!
sleep 3
run default_load
kill $holder; wait $holder 2>/dev/null
run ci_rep5_alone --sweep=sweeps/ci.json --benchmark_repetitions=5
$B/tests/membench_gpu_holder 400 load > $L/holder2.log 2>&1 & holder=$!
sleep 3
run ci_rep5_load --sweep=sweeps/ci.json --benchmark_repetitions=5
kill $holder; wait $holder 2>/dev/null
for tool in memcheck racecheck synccheck; do
  t=$(date +%s)
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/membench_tests \
    --gtest_filter='IndirectKernels.*:GlobalKernels.*:IndirectLookup.*' > $L/sanitizer_$tool.log 2>&1
  echo "sanitizer $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)) $(( $(date +%s) - t )) s"
done
tar czf $OUT/logs.tgz -C $OUT logs && rm -rf $L
python3 .deps/summ.py $RCS
