#!/usr/bin/env bash
# After the last change (the run program in run/, the references by their parts, registration's counter check):
# build, every GPU test, --check by the built-in reference, --judge of this call's check, a run under timeout 5.
set -u
T0=$(date +%s)
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
nvidia-smi -L | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 15 > $L/build.log 2>&1 ); r=$?
echo "build: $r in $(( $(date +%s) - t )) s"
[ $r = 0 ] || { tail -20 $L/build.log; tar czf $OUT/I.tgz -C $OUT w; exit 3; }
M=build/h200/membench
t=$(date +%s)
timeout 300 build/h200/tests/membench_tests > $L/tests.log 2>&1
echo "all tests: exit $? in $(( $(date +%s) - t )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/tests.log | head -3 | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' $L/tests.log | head -8
timeout 60 $M --check --benchmark_out=$W/check.json --benchmark_out_format=json > $W/check.txt 2>&1
echo "check: exit $?: $(tail -2 $W/check.txt | head -1 | cut -c1-260)"
grep "GPU 0: " $W/check.txt | grep -v ": ok " | cut -c1-200
$M --check --judge=$W/check.json > $W/judge.txt 2>&1; echo "judge of it: exit $?: $(tail -2 $W/judge.txt | head -1 | cut -c1-200)"
t=$(date +%s)
timeout 5 $M --benchmark_filter='^(compute|roofline|async)/' --benchmark_out=$W/timeout.json --benchmark_out_format=json > $L/timeout.log 2>&1
echo "timeout 5: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/timeout.log)"
python3 -c "import json; d=json.load(open('$W/timeout.json')); print('timeout.json whole:', d['membench'].get('end',{}).get('stopped'), len(d['benchmarks']), 'entries, schema', d['membench']['schema_version'])"
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/I.tgz -C $OUT w
