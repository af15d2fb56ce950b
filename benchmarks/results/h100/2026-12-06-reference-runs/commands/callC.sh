#!/usr/bin/env bash
# Issue 61, one call: build (membench, mixbench-cuda, gpu-benches' gpu-roofline); the compute, roofline and async
# families beside mixbench and gpu-roofline; the fp16 probe and its warp states; ncu_check.py on the compute
# ceilings; three quiet --check runs and one beside the tests' load; the tests of what changed; a run under timeout;
# the sanitizers; the default run.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
LIMIT=${1:-575}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 12 > $L/build.log 2>&1 ) & b1=$!
( cmake -S .peers/mixbench/mixbench-cuda -B /tmp/mixbench -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > $L/mixbench_configure.log 2>&1 && cmake --build /tmp/mixbench -j 2 > $L/mixbench_build.log 2>&1 ) & b2=$!
CH=$(dirname $(dirname $(readlink -f $(which nvcc))))
CUPTI=$(dirname $(find $CH / -name 'libcupti.so' 2>/dev/null | head -1))
mkdir -p /tmp/roof
for n in 0 8 32 64 128 256; do
  ( cd .peers/gpu-benches/gpu-roofline && nvcc -DPARN=$n -std=c++11 -O3 -arch=sm_90 -Xcompiler -fopenmp -o /tmp/roof/roof$n main.cu -L$CUPTI -lcupti -lcuda -lnvidia-ml -Xlinker -rpath,$CUPTI > $L/roof_build_$n.log 2>&1 ) &
done
nvcc -O3 -arch=sm_90 -o /tmp/hfma_probe .deps/hfma_probe.cu > $L/probe_build.log 2>&1 & b3=$!
wait $b1; r1=$?; wait $b2; r2=$?; wait
echo "builds: membench $r1, mixbench $r2, gpu-roofline $(ls /tmp/roof | wc -l) of 6, probe $(ls /tmp/hfma_probe 2>/dev/null | wc -l) in $(( $(date +%s) - t )) s"
[ $r1 = 0 ] || { tail -30 $L/build.log; tar czf $OUT/logsC.tgz -C $OUT logs; exit 3; }
M=build/h200/membench
run() { local name=$1; shift; local t=$(date +%s)
  timeout 150 $M --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  echo "$name: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/$name.log | cut -c1-160)"; }
t=$(date +%s)
timeout 100 build/h200/tests/membench_tests --gtest_filter='Roofline*:Compute*:Check*:ResultFile*:CaseRef*' > $L/tests.log 2>&1
echo "tests: exit $? in $(( $(date +%s) - t )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $L/tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' $L/tests.log | head -5
run ceilings --benchmark_filter='^(compute|roofline|async)/'
timeout 60 /tmp/mixbench/mixbench-cuda > $OUT/mixbench.txt 2>&1; echo "mixbench: exit $?"
for n in 0 8 32 64 128 256; do [ -x /tmp/roof/roof$n ] && timeout 20 /tmp/roof/roof$n; done > $OUT/gpu_roofline.txt 2>&1; echo "gpu-roofline: exit $?"
timeout 30 /tmp/hfma_probe > $OUT/hfma_probe.txt 2>&1; echo "probe: exit $?"
t=$(date +%s)
python3 -m pip install -q --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $L/pip.log 2>&1; echo "jsonschema for the scripts: exit $?"
PYTHONPATH=/tmp/pylib timeout 150 python3 scripts/ncu_check.py --membench $M --out $L/ncu_check -- \
  --benchmark_filter='^compute/((fp32|fp64|fp16x2|bf16x2|int32)/chains:8/occupancy:8|wgmma_bf16/chains:1/occupancy:2|mma_bf16/chains:8/occupancy:4)/' > $OUT/ncu_check.txt 2>&1
echo "ncu_check: exit $? in $(( $(date +%s) - t )) s: $(tail -1 $OUT/ncu_check.txt)"
t=$(date +%s)
MEMBENCH_PROFILE=1 timeout 60 ncu --profile-from-start off --clock-control none --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  --export $L/ncu_fp16 --force-overwrite $M --benchmark_filter='^compute/(fp16x2|fp32)/chains:8/occupancy:8/' > $L/ncu_fp16.log 2>&1
echo "ncu fp16: exit $? in $(( $(date +%s) - t )) s"
ncu --import $L/ncu_fp16.ncu-rep --csv --page raw --print-units base > $OUT/ncu_fp16.csv 2>>$L/ncu_fp16.log
for k in 1 2 3; do timeout 40 $M --check --check_metrics=$OUT/check_$k.prom --benchmark_out=$OUT/check_$k.json --benchmark_out_format=json > $OUT/check_$k.txt 2>&1
  echo "check $k: exit $?: $(tail -1 $OUT/check_$k.txt | cut -c1-200)"; done
build/h200/tests/membench_gpu_holder 30 load > $L/holder.log 2>&1 & h=$!
sleep 2
timeout 40 $M --check --check_metrics=$OUT/check_loaded.prom --benchmark_out=$OUT/check_loaded.json --benchmark_out_format=json > $OUT/check_loaded.txt 2>&1
echo "check beside the load: exit $?: $(grep -E 'FP32|tensor' $OUT/check_loaded.txt | cut -c1-120 | tr '\n' '|')"
kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
timeout 8 $M --benchmark_filter='^(compute|roofline)/' --benchmark_out=$OUT/timeout.json --benchmark_out_format=json > $L/timeout.log 2>&1
echo "timeout 8: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/timeout.log)"
for tool in memcheck racecheck synccheck; do t=$(date +%s); lim=$(( $(left) - 70 )); [ $lim -gt 100 ] && lim=100; [ $lim -lt 10 ] && { echo "no time for $tool"; continue; }
  timeout $lim compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='Compute*:Roofline*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
[ $(left) -gt 65 ] && run default || echo "no time for the default run"
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/logsC.tgz -C $OUT logs
python3 .deps/summC.py $OUT
