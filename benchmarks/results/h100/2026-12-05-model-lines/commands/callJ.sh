#!/usr/bin/env bash
# The same warm machine, today's tree (built by callH.sh): ctest (the GPU tests run); the CI set with three
# repetitions twice, for the consumers; the CI set beside another process's load; a default run stopped by timeout.
set -u
L=$OUT/logs; mkdir -p $L
[ -x build/h200/membench ] || { echo "no build here"; exit 3; }
nvidia-smi -L
t=$(date +%s)
timeout 250 ctest --test-dir build/h200 -j 8 --timeout 220 --output-on-failure > $L/ctest_after.log 2>&1
echo "ctest after: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest_after.log)"
grep -E "\*\*\*Failed|Timeout" $L/ctest_after.log | head
echo "skipped: $(grep -c '\*\*\*Skipped' $L/ctest_after.log)"
for n in 1 2; do t=$(date +%s)
  timeout 90 build/h200/membench --sweep=sweeps/ci.json --benchmark_repetitions=3 --benchmark_out=$OUT/ci_rep3_$n.json --benchmark_out_format=json > $L/ci$n.log 2>&1
  echo "ci x3 #$n: exit $?, $(( $(date +%s) - t )) s"; done
build/h200/tests/membench_gpu_holder 60 load > $L/holder.log 2>&1 & h=$!
sleep 2; t=$(date +%s)
timeout 90 build/h200/membench --sweep=sweeps/ci.json --benchmark_out=$OUT/ci_loaded.json --benchmark_out_format=json > $L/ci_loaded.log 2>&1
echo "ci beside a load: exit $?, $(( $(date +%s) - t )) s"; kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
timeout 15 build/h200/membench --benchmark_out=$OUT/default_timeout.json --benchmark_out_format=json > $L/default_timeout.log 2>&1
echo "default under timeout 15: exit $?, $(( $(date +%s) - t )) s"; tail -2 $L/default_timeout.log
python3 -c "import json;d=json.load(open('$OUT/default_timeout.json'));print('timeout file: whole JSON,',len(d['benchmarks']),'entries, context keys:',sorted(k for k in d['context'] if 'stop' in k or 'interrupt' in k or 'complete' in k))"
tar czf $OUT/logsJ.tgz -C $OUT logs && rm -rf $L
python3 .deps/summ.py $OUT/ci_rep3_1.json $OUT/ci_rep3_2.json $OUT/ci_loaded.json $OUT/default_timeout.json
