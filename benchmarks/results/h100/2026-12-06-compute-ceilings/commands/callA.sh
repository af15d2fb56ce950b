#!/usr/bin/env bash
# Issue 61, part 1 (the compute pipes' ceilings): build the suite and mixbench-cuda side by side; every test (the
# compute family's GPU tests among them); the compute family alone, twice, and beside the tests' load;
# mixbench-cuda; ncu's pipe utilisation on each pipe's case; the sanitizers on the compute tests; the default run.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 14 > $L/build.log 2>&1 ) & b1=$!
( cmake -S .peers/mixbench/mixbench-cuda -B /tmp/mixbench -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > $L/mixbench_configure.log 2>&1 && cmake --build /tmp/mixbench -j 2 > $L/mixbench_build.log 2>&1 ) & b2=$!
( nvcc -O2 -arch=sm_90 .deps/cublaslt_gemm.cu -lcublasLt -o /tmp/cublaslt_gemm > $L/cublaslt_build.log 2>&1 ) & b3=$!
wait $b1; r1=$?; wait $b2; r2=$?; wait $b3; echo "cublaslt probe build: $?" 
echo "builds: membench $r1, mixbench $r2 in $(( $(date +%s) - t )) s"
[ $r1 = 0 ] || { tail -30 $L/build.log; tar czf $OUT/logsA.tgz -C $OUT logs; exit 3; }
M=build/h200/membench
run() { local name=$1; shift; local t=$(date +%s)
  timeout 150 $M --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  echo "$name: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/$name.log)"; }
run compute1 --benchmark_filter='^compute/'
MB=$(ls /tmp/mixbench/mixbench-cuda* 2>/dev/null | head -1)
[ -n "$MB" ] && { t=$(date +%s); timeout 120 $MB > $OUT/mixbench.txt 2>&1; echo "mixbench ($MB): exit $?, $(( $(date +%s) - t )) s"; }
t=$(date +%s); timeout 90 /tmp/cublaslt_gemm > $OUT/cublaslt.txt 2>&1; echo "cublaslt: exit $?, $(( $(date +%s) - t )) s"; cat $OUT/cublaslt.txt
run compute2 --benchmark_filter='^compute/.*occupancy:[48]' --benchmark_repetitions=3
build/h200/tests/membench_gpu_holder 45 load > $L/holder.log 2>&1 & h=$!
sleep 2
run compute_loaded --benchmark_filter='^compute/.*/occupancy:4'
kill $h 2>/dev/null; wait $h 2>/dev/null
t=$(date +%s)
MEMBENCH_PROFILE=1 timeout 120 ncu --profile-from-start off --clock-control none --section ComputeWorkloadAnalysis --section SpeedOfLight \
  --export $L/ncu_compute --force-overwrite $M --benchmark_filter='^compute/([^w][^/]*/chains:8/occupancy:4|wgmma_bf16/chains:1/occupancy:2)' > $L/ncu.log 2>&1
echo "ncu: exit $?, $(( $(date +%s) - t )) s"
ncu --import $L/ncu_compute.ncu-rep --csv --page raw --print-units base > $OUT/ncu_compute.csv 2>>$L/ncu.log
t=$(date +%s)
timeout 200 ctest --test-dir build/h200 -j 8 --timeout 180 --output-on-failure > $L/ctest.log 2>&1
echo "ctest: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest.log)"
grep -E "\*\*\*Failed|Timeout" $L/ctest.log | head
for tool in memcheck racecheck synccheck; do t=$(date +%s)
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 build/h200/tests/membench_tests --gtest_filter='Compute*' > $L/sanitizer_$tool.log 2>&1
  echo "compute-sanitizer $tool: exit $? in $(( $(date +%s) - t )) s: $(grep -E 'ERROR SUMMARY' $L/sanitizer_$tool.log | tail -1)"; done
run default
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/logsA.tgz -C $OUT logs
python3 .deps/summ.py $OUT/compute1.json $OUT/ncu_compute.csv $OUT/mixbench.txt
