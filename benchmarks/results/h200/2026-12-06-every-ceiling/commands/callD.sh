#!/usr/bin/env bash
# Issue 61 and 62, one call: build (membench, mixbench-cuda, gpu-benches' gpu-roofline); the compute family
# (chains up to 16), roofline and async beside mixbench and gpu-roofline; ncu_check.py on the compute ceilings; ncu's
# warp states on fp16x2 at 8 and 16 chains; the compute tests and their sanitizers; the default run; three --check
# runs; an H100 reference made by reference.py from those and the recorded H100 runs, built in; --check by it, alone
# and beside the tests' load; a run under timeout. Everything goes back in one archive.
set -u
T0=$(date +%s)
LIMIT=${1:-560}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 12 > $L/build.log 2>&1 ) & b1=$!
( cmake -S .peers/mixbench/mixbench-cuda -B /tmp/mixbench -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > $L/mixbench_configure.log 2>&1 && cmake --build /tmp/mixbench -j 2 > $L/mixbench_build.log 2>&1 ) & b2=$!
CH=$(dirname $(dirname $(readlink -f $(which nvcc))))
CUPTI=$(dirname $(find $CH / -name 'libcupti.so' 2>/dev/null | head -1))
mkdir -p /tmp/roof
for n in 0 8 32 64 128; do
  ( cd .peers/gpu-benches/gpu-roofline && nvcc -DPARN=$n -std=c++11 -O3 -arch=sm_90 -Xcompiler -fopenmp -o /tmp/roof/roof$n main.cu -L$CUPTI -lcupti -lcuda -lnvidia-ml -Xlinker -rpath,$CUPTI > $L/roof_build_$n.log 2>&1 ) &
done
python3 -m pip install -q --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $L/pip.log 2>&1 &
wait $b1; r1=$?; wait $b2; r2=$?; wait
echo "builds: membench $r1, mixbench $r2, gpu-roofline $(ls /tmp/roof | wc -l) of 5 in $(( $(date +%s) - t )) s"
pack() { cp .deps/callD.sh $W/; tar czf $OUT/D.tgz -C $OUT w; }
[ $r1 = 0 ] || { tail -30 $L/build.log; pack; exit 3; }
export PYTHONPATH=/tmp/pylib
M=build/h200/membench
run() { local name=$1; shift; local t=$(date +%s)
  timeout 150 $M --benchmark_out=$W/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  echo "$name: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/$name.log | cut -c1-160)"; }
t=$(date +%s)
timeout 100 build/h200/tests/membench_tests --gtest_filter='Compute*:Roofline*:Check*:ResultFile*:ResultSchema*:Resume*' > $L/tests.log 2>&1
echo "tests: exit $? in $(( $(date +%s) - t )) s: $(grep -E '^\[  (PASSED|FAILED)' $L/tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' $L/tests.log | head -5
run ceilings --benchmark_filter='^(compute|roofline|async)/'
timeout 60 /tmp/mixbench/mixbench-cuda > $W/mixbench.txt 2>&1; echo "mixbench: exit $?"
for n in 0 8 32 64 128; do [ -x /tmp/roof/roof$n ] && timeout 30 /tmp/roof/roof$n; done > $W/gpu_roofline.txt 2>&1; echo "gpu-roofline: exit $?"
t=$(date +%s)
timeout 150 python3 scripts/ncu_check.py --membench $M --out $L/ncu_check -- \
  --benchmark_filter='^compute/((fp32|fp64|fp16x2|bf16x2|int32)/(l2:cold/)?chains:16/occupancy:4|wgmma_bf16/(l2:cold/)?chains:1/occupancy:2|mma_bf16/(l2:cold/)?chains:8/occupancy:4)/' > $W/ncu_check.txt 2>&1
echo "ncu_check: exit $? in $(( $(date +%s) - t )) s: $(tail -1 $W/ncu_check.txt)"
t=$(date +%s)
MEMBENCH_PROFILE=1 timeout 60 ncu --profile-from-start off --clock-control none --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  --export $L/ncu_fp16 --force-overwrite $M --benchmark_filter='^compute/fp16x2/chains:(8|16)/occupancy:8/' > $L/ncu_fp16.log 2>&1
echo "ncu fp16: exit $? in $(( $(date +%s) - t )) s"
ncu --import $L/ncu_fp16.ncu-rep --csv --page raw --print-units base > $W/ncu_fp16.csv 2>>$L/ncu_fp16.log
for tool in memcheck racecheck synccheck; do t=$(date +%s)
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='Compute*:Roofline*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
run default
for k in 1 2 3; do timeout 40 $M --check --benchmark_out=$W/check_$k.json --benchmark_out_format=json > $W/check_$k.txt 2>&1; echo "check $k (provisional): exit $?"; done
Rh=benchmarks/results/h100
timeout 60 python3 scripts/reference.py $W/check_1.json $W/check_2.json $W/check_3.json $W/default.json $W/ceilings.json \
  .deps/callC_out/check_1.json .deps/callC_out/check_2.json .deps/callC_out/check_3.json .deps/callC_out/ceilings.json \
  $Rh/2026-12-05-beside-a-load-and-ptx/default_alone.json $Rh/2026-12-05-every-architecture/default.json $Rh/2026-12-05-model-lines/default_after.json \
  --membench $M --out benchmarks/references/nvidia-h100-80gb-hbm3.json > $W/reference.txt 2>&1
echo "reference.py: exit $?: $(tail -1 $W/reference.txt)"
cp benchmarks/references/nvidia-h100-80gb-hbm3.json $W/ 2>/dev/null
( cmake --preset h200 -G Ninja $RE > $L/configure2.log 2>&1 && cmake --build build/h200 -j 12 --target membench > $L/build2.log 2>&1 ); echo "rebuilt with the H100 reference: $?"
timeout 40 $M --check --check_metrics=$W/check_h100.prom --benchmark_out=$W/check_h100.json --benchmark_out_format=json > $W/check_h100.txt 2>&1
echo "check by the H100 reference: exit $?: $(tail -2 $W/check_h100.txt | head -1 | cut -c1-240)"
build/h200/tests/membench_gpu_holder 30 load > $L/holder.log 2>&1 & h=$!
sleep 2
timeout 40 $M --check --check_metrics=$W/check_loaded.prom --benchmark_out=$W/check_loaded.json --benchmark_out_format=json > $W/check_loaded.txt 2>&1
echo "check beside the load: exit $?: $(grep -E 'FP32|tensor' $W/check_loaded.txt | cut -c1-140 | tr '\n' '|')"
kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
timeout 5 $M --benchmark_filter="^(compute|roofline|async)/" --benchmark_out=$W/timeout.json --benchmark_out_format=json > $L/timeout.log 2>&1
echo "timeout 5: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/timeout.log)"
echo "elapsed $(( $(date +%s) - T0 )) s"
pack
python3 .deps/summC.py $W 2>&1 | head -60
tail -25 $W/ncu_check.txt
grep -v "^membench --check: GPU 0: ok" $W/check_h100.txt | cut -c1-250
