#!/usr/bin/env bash
# Issue 61, the tensor types: build (membench with its tests, mixbench-cuda, gpu-roofline, the cuBLASLt probe); the
# compute tests; the compute, roofline and async families (now wgmma in bf16, tf32 and e4m3) beside mixbench and
# gpu-roofline, then cuBLASLt's best GEMM in each tensor type; ncu_check.py on every pipe's ceiling case; the three
# sanitizers on the compute tests. Everything goes back in one archive.
set -u
T0=$(date +%s)
LIMIT=${1:-570}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; git log --oneline -1; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 14 > $L/build.log 2>&1 ) & b1=$!
( cmake -S .peers/mixbench/mixbench-cuda -B /tmp/mixbench -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > $L/mixbench_configure.log 2>&1 && cmake --build /tmp/mixbench -j 2 > $L/mixbench_build.log 2>&1 ) & b2=$!
CH=$(dirname $(dirname $(readlink -f $(which nvcc))))
CUPTI=$(dirname $(find $CH / -name 'libcupti.so' 2>/dev/null | head -1))
mkdir -p /tmp/roof
for n in 0 8 32 64 128; do
  ( cd .peers/gpu-benches/gpu-roofline && nvcc -DPARN=$n -std=c++11 -O3 -arch=sm_90 -Xcompiler -fopenmp -o /tmp/roof/roof$n main.cu -L$CUPTI -lcupti -lcuda -lnvidia-ml -Xlinker -rpath,$CUPTI > $L/roof_build_$n.log 2>&1 ) &
done
( nvcc -O2 -arch=sm_90 .deps/cublaslt_gemm.cu -lcublasLt -o /tmp/cublaslt_gemm > $L/cublaslt_build.log 2>&1 ) &
( nvcc -O3 -arch=sm_90 .deps/local_probe.cu -o /tmp/local_probe > $L/local_probe_build.log 2>&1 ) &
python3 -m pip install -q --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $L/pip.log 2>&1 &
wait $b1; r1=$?; wait $b2; r2=$?; wait
echo "builds: membench $r1, mixbench $r2, gpu-roofline $(ls /tmp/roof | wc -l) of 5, cublaslt $([ -x /tmp/cublaslt_gemm ] && echo ok) in $(( $(date +%s) - t )) s"
pack() { cp .deps/callF1.sh .deps/cublaslt_gemm.cu $W/; tar czf $OUT/F1.tgz -C $OUT w; }
[ $r1 = 0 ] || { tail -30 $L/build.log; pack; exit 3; }
export PYTHONPATH=/tmp/pylib
M=build/h200/membench
t=$(date +%s)
timeout 100 build/h200/tests/membench_tests --gtest_filter='Compute*:Roofline*:Check*:ArchFacts*' > $L/tests.log 2>&1
echo "tests: exit $? in $(( $(date +%s) - t )) s: $(grep -E '^\[  (PASSED|FAILED)' $L/tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]|Failure' $L/tests.log | head -8
t=$(date +%s)
timeout 150 $M --benchmark_filter='^(compute|roofline|async)/' --benchmark_out=$W/ceilings.json --benchmark_out_format=json > $L/ceilings.log 2>&1
echo "ceilings: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/ceilings.log | cut -c1-160)"
timeout 60 /tmp/mixbench/mixbench-cuda > $W/mixbench.txt 2>&1; echo "mixbench: exit $?"
for n in 0 8 32 64 128; do [ -x /tmp/roof/roof$n ] && timeout 30 /tmp/roof/roof$n; done > $W/gpu_roofline.txt 2>&1; echo "gpu-roofline: exit $?"
t=$(date +%s)
timeout 150 /tmp/cublaslt_gemm > $W/cublaslt.txt 2>&1; echo "cublaslt: exit $? in $(( $(date +%s) - t )) s"
t=$(date +%s)
timeout $(( $(left) - 150 )) python3 scripts/ncu_check.py --membench $M --out $L/ncu_check -- \
  --benchmark_filter='^compute/((fp32|fp64|fp16x2|bf16x2|int32)/chains:16/occupancy:4|wgmma_(bf16|tf32|e4m3)/chains:1/occupancy:2|mma_bf16/chains:8/occupancy:4)/' > $W/ncu_check.txt 2>&1
echo "ncu_check: exit $? in $(( $(date +%s) - t )) s: $(tail -1 $W/ncu_check.txt)"
for tool in memcheck racecheck synccheck; do t=$(date +%s)
  [ $(left) -gt 40 ] || { echo "$tool: no time left"; continue; }
  timeout $(( $(left) - 30 )) compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='ComputeKernels.*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
echo "elapsed $(( $(date +%s) - T0 )) s"
pack
python3 .deps/summC.py $W 2>&1 | head -40
grep -E "cublaslt" $W/cublaslt.txt
tail -22 $W/ncu_check.txt
