#!/usr/bin/env bash
# The last changes on the GPU: the check's one noise rule and marks: build, the check and marks tests, --check alone
# and beside the tests' load, a short run's marks read back.
set -u
T0=$(date +%s)
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 15 --target membench membench_tests membench_gpu_holder > $L/build.log 2>&1 ); r=$?
echo "build: $r in $(( $(date +%s) - t )) s"
[ $r = 0 ] || { tail -20 $L/build.log; tar czf $OUT/H.tgz -C $OUT w; exit 3; }
M=build/h200/membench
timeout 120 build/h200/tests/membench_tests --gtest_filter='Check*:ClockEvents*:Monitor*:MeasuredCounters*:Contention*' > $L/tests.log 2>&1
echo "tests: exit $?: $(grep -E '^\[  (PASSED|FAILED)' $L/tests.log | tr '\n' ' ')"; grep -E '^\[  FAILED  \]' $L/tests.log | head
$M --version
timeout 60 $M --check --benchmark_out=$W/check.json --benchmark_out_format=json > $W/check.txt 2>&1
echo "check alone: exit $?: $(tail -2 $W/check.txt | head -1 | cut -c1-300)"
grep -v ": ok " $W/check.txt | grep "GPU 0: " | cut -c1-220
build/h200/tests/membench_gpu_holder 40 load > $L/holder.log 2>&1 & h=$!
sleep 2
timeout 60 $M --check --benchmark_out=$W/check_loaded.json --benchmark_out_format=json > $W/check_loaded.txt 2>&1
echo "check beside the load: exit $?: $(tail -2 $W/check_loaded.txt | head -1 | cut -c1-300)"
kill $h 2>/dev/null; wait $h 2>/dev/null
python3 -c "
import json
for f in ['$W/check.json','$W/check_loaded.json']:
  d=json.load(open(f)); print(f.split('/')[-1], 'schema', d['membench']['schema_version'], 'power_capped', sum(1 for b in d['benchmarks'] if b.get('power_capped')), 'clock_event', sum(1 for b in d['benchmarks'] if b.get('clock_event')), 'contended', sum(1 for b in d['benchmarks'] if b.get('contended')), 'noise_target_pct', sorted({b.get('noise_target_pct') for b in d['benchmarks'] if 'noise_target_pct' in b}))"
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/H.tgz -C $OUT w
