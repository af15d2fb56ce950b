#!/usr/bin/env bash
# The same warm machine: ncu_check.py on every pipe's ceiling case; the default run; --check alone and beside the
# tests' load; local/unrolled/array:64 where its input lies (the probe) and after each family before it.
set -u
T0=$(date +%s)
LIMIT=${1:-570}
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
nvidia-smi -L | tee $L/machine.txt
[ -x build/h200/membench ] || { cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 14 > $L/build.log 2>&1; echo "rebuilt: $?"; }
[ -x /tmp/local_probe ] || nvcc -O3 -arch=sm_90 .deps/local_probe.cu -o /tmp/local_probe
[ -d /tmp/pylib ] || python3 -m pip install -q --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $L/pip.log 2>&1
pack() { cp .deps/callF2.sh $W/; tar czf $OUT/F2.tgz -C $OUT w; }
export PYTHONPATH=/tmp/pylib
M=build/h200/membench
t=$(date +%s)
timeout 200 python3 scripts/ncu_check.py --membench $M --out $L/ncu_check -- \
  --benchmark_filter='^compute/((fp32|fp64|fp16x2|bf16x2|int32)/(l2:cold/)?chains:16/occupancy:4|wgmma_(bf16|tf32|e4m3)/(l2:cold/)?chains:1/occupancy:2|mma_bf16/(l2:cold/)?chains:8/occupancy:4)/' > $W/ncu_check.txt 2>&1
echo "ncu_check: exit $? in $(( $(date +%s) - t )) s: $(tail -1 $W/ncu_check.txt)"
t=$(date +%s)
timeout 150 $M --benchmark_out=$W/default.json --benchmark_out_format=json > $L/default.log 2>&1
echo "default: exit $?, $(( $(date +%s) - t )) s; $(tail -1 $L/default.log | cut -c1-160)"
timeout 40 $M --check --benchmark_out=$W/check.json --benchmark_out_format=json > $W/check.txt 2>&1
echo "check: exit $?: $(tail -2 $W/check.txt | head -1 | cut -c1-260)"
build/h200/tests/membench_gpu_holder 30 load > $L/holder.log 2>&1 & h=$!
sleep 2
timeout 40 $M --check --benchmark_out=$W/check_loaded.json --benchmark_out_format=json > $W/check_loaded.txt 2>&1
echo "check beside the load: exit $?: $(grep -E 'FP32|tensor' $W/check_loaded.txt | cut -c1-140 | tr '\n' '|')"
kill $h 2>/dev/null; wait $h 2>/dev/null
timeout 60 /tmp/local_probe > $W/local_probe.txt 2>&1; echo "local probe: exit $?"; cat $W/local_probe.txt
C='local/unrolled/array:64/'
one() { local name=$1 filter=$2
  timeout 60 $M --benchmark_filter="$filter" --benchmark_out=$L/n_$name.json --benchmark_out_format=json > /dev/null 2>&1
  python3 -c "
import json,sys
d=json.load(open('$L/n_$name.json'))
for b in d['benchmarks']:
  if b['name'].startswith('$C'): print(f\"{'$name':12s} {b['bytes_per_second']/1e9:8.1f} GB/s noise {b.get('noise_pct',0):.2f}%\")" 2>&1 | tail -1; }
for k in 1 2 3; do one alone$k "^$C"; done
for fam in async atomics compute constant dsmem global hierarchy indirect l2persist layout local; do
  [ $(left) -gt 40 ] || break; one $fam "^($fam/|$C)"; done
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $W/neighbours.tgz -C $L $(cd $L && ls n_*.json) 2>/dev/null
pack
tail -22 $W/ncu_check.txt
