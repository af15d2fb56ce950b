#!/usr/bin/env bash
# The check on an H100 with the reference rebuilt from 8 runs of 5 H100s (and carrying explain's ceilings), the
# check's cases declared by the builders: --check alone, --judge of its file, and explain's built-in reference
# path on this GPU's run.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W
nvidia-smi -L | tee $W/machine.txt
B=build/dev
cmake -S . -B $B -DMEMBENCH_BUILD_TESTS=OFF -DMEMBENCH_PYTHON_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/configure.log 2>&1
cmake --build $B -j 16 --target membench > $W/build.log 2>&1; echo "built: $? at $(el) s"
M=$B/membench
for k in 1 2; do
  timeout 120 $M --check --benchmark_out=$W/check$k.json --benchmark_out_format=json > $W/check$k.txt 2>&1; echo "check $k: exit $? at $(el) s"; tail -4 $W/check$k.txt
done
timeout 60 $M --check --judge=$W/check1.json > $W/judge.txt 2>&1; echo "judge: exit $?"; tail -2 $W/judge.txt
tar czf $OUT/Q.tgz -C $OUT w
echo "elapsed $(el) s"
