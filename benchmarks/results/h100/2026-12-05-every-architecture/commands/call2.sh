#!/usr/bin/env bash
# Call B: the check by the reference reference.py made from a history of H100 runs (two GPUs); the compute_75-PTX
# default run again (its file did not come back from call A), everything in one archive.
set -u
L=$OUT/b; mkdir -p $L
export PIP_NO_INDEX=1
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
nvidia-smi -L | tee $L/machine.txt
t=$(date +%s)
[ -x build/h200/membench ] || { cmake --preset h200 -G Ninja $RE > $L/configure_h200.log 2>&1; cmake --build build/h200 -j 10 > $L/build_h200.log 2>&1; }
[ -x build/ptx75/membench ] || { cmake --preset ptx75 -G Ninja $RE > $L/configure_ptx75.log 2>&1; cmake --build build/ptx75 -j 10 --target membench > $L/build_ptx75.log 2>&1; }
echo "builds ready in $(( $(date +%s) - t )) s"
timeout 60 build/h200/membench --check=.deps/fleet_h100.json --check_metrics=$L/check_fleet.prom --benchmark_out=$L/check_fleet.json --benchmark_out_format=json > $L/check_fleet.txt 2>&1
echo "check_fleet: exit $? | $(grep -E 'healthy|HEALTHY|inconclusive' $L/check_fleet.txt | grep -v ': ok \|: better ' | tail -1 | cut -c1-200)"
timeout 60 build/h200/membench --check --check_metrics=$L/check_builtin2.prom > $L/check_builtin2.txt 2>&1
echo "check_builtin2: exit $?"
t=$(date +%s)
timeout 120 build/ptx75/membench --benchmark_out=$L/ptx75_default.json --benchmark_out_format=json > $L/ptx75_default.log 2>&1
echo "ptx75_default: exit $?, $(( $(date +%s) - t )) s"
python3 .deps/summ.py $L/ptx75_default.json
tar czf $OUT/callB.tgz -C $OUT b
