#!/usr/bin/env bash
# The check's compute cases on the GPU: --check by the built-in reference of this model (an H100's, with its compute
# bands; on an H200 a reference reference.py makes from the committed H200 runs with compute cases, --check=FILE),
# alone and beside the tests' load; the tensor cases beside the best cuBLASLt bf16 GEMM in the same call.
set -u
T0=$(date +%s)
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader; } | tee $L/machine.txt
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 14 --target membench membench_gpu_holder > $L/build.log 2>&1 ) & b1=$!
( nvcc -O2 -arch=sm_90 .deps/cublaslt_gemm.cu -lcublasLt -o /tmp/cublaslt_gemm > $L/cublaslt_build.log 2>&1 ) & b2=$!
python3 -m pip install -q --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $L/pip.log 2>&1 &
wait $b1; r1=$?; wait $b2; r2=$?; wait
echo "builds: membench $r1, cublaslt $r2 in $(( $(date +%s) - T0 )) s"
pack() { cp .deps/callE.sh $W/; tar czf $OUT/E.tgz -C $OUT w; }
[ $r1 = 0 ] || { tail -20 $L/build.log; pack; exit 3; }
M=build/h200/membench
REF=""
if [ "$GPU" = "NVIDIA H200" ]; then
  H=benchmarks/results/h200
  PYTHONPATH=/tmp/pylib timeout 60 python3 scripts/reference.py $(python3 -c "import json; print(' '.join(r['file'] for r in json.load(open('benchmarks/references/nvidia-h200.json'))['runs']))") \
    $H/2026-12-06-every-ceiling/default.json $H/2026-12-06-every-ceiling/ceilings.json --membench $M --out $W/h200_with_compute.json > $W/reference.txt 2>&1
  echo "reference.py (H200 with compute): exit $?"; REF="=$W/h200_with_compute.json"
fi
timeout 60 $M --check$REF --check_metrics=$W/check.prom --benchmark_out=$W/check.json --benchmark_out_format=json > $W/check.txt 2>&1
echo "check: exit $?: $(grep -E 'FP32|tensor' $W/check.txt | cut -c1-150 | tr '\n' '|')"
grep -E "healthy|HEALTHY|inconclusive" $W/check.txt | tail -1 | cut -c1-300
build/h200/tests/membench_gpu_holder 30 load > $L/holder.log 2>&1 & h=$!
sleep 2
timeout 60 $M --check$REF --check_metrics=$W/check_loaded.prom --benchmark_out=$W/check_loaded.json --benchmark_out_format=json > $W/check_loaded.txt 2>&1
echo "check beside the load: exit $?: $(grep -E 'FP32|tensor' $W/check_loaded.txt | cut -c1-150 | tr '\n' '|')"
grep -E "healthy|HEALTHY|inconclusive" $W/check_loaded.txt | tail -1 | cut -c1-300
kill $h 2>/dev/null; wait $h 2>/dev/null
timeout 60 $M --benchmark_filter='^compute/(wgmma_bf16|mma_bf16)/' --benchmark_out=$W/tensor.json --benchmark_out_format=json > $L/tensor.log 2>&1; echo "tensor cases: exit $?"
timeout 90 /tmp/cublaslt_gemm > $W/cublaslt.txt 2>&1; echo "cublaslt: exit $?"; tail -4 $W/cublaslt.txt
python3 -c "
import json; d=json.load(open('$W/tensor.json'))
best={}
for b in d['benchmarks']:
  v=b['name'].split('/')[1]
  if 'ops_per_second' in b and b['ops_per_second']>best.get(v,(0,))[0]: best[v]=(b['ops_per_second'],b.get('pct_of_peak',0),b['name'])
for v,(o,p,n) in best.items(): print(f'{v}: {o/1e12:.1f} TFLOP/s, {p:.1f}% of its peak, {n}')"
echo "elapsed $(( $(date +%s) - T0 )) s"
pack
