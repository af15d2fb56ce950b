#!/usr/bin/env bash
# Issue 53's trial on the GPU: the tree with the trial axis (stream gains "trial", its cases had 0 before it),
# its default run and its check; the result files come back to be read beside ones written before the axis.
set -u
L=$OUT/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
nvidia-smi -L | tee $L/machine.txt
t=$(date +%s)
cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 16 --target membench > $L/build.log 2>&1
echo "build: $? in $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout 120 build/h200/membench --benchmark_out=$OUT/trial_default.json --benchmark_out_format=json > $L/default.log 2>&1
echo "trial default: exit $?, $(( $(date +%s) - t )) s"
timeout 60 build/h200/membench --check --benchmark_out=$OUT/trial_check.json --benchmark_out_format=json > $OUT/trial_check.txt 2>&1
echo "trial check: exit $? | $(tail -2 $OUT/trial_check.txt | head -1 | cut -c1-200)"
grep "DRAM" $OUT/trial_check.txt | cut -c1-160
python3 .deps/summ.py $OUT/trial_default.json
