#!/usr/bin/env bash
# Issue 53, item 3 (model lines declared): the tree before (.deps/before, git archive dc3a38a) and today's, built
# side by side; the default run of each, one after the other on the same GPU, twice (the order swapped); today's
# tests. No kernel's device code changed: the binaries differ in the figures their result files declare.
set -u
T0=$(date +%s)
L=$OUT/logs; mkdir -p $L
export PIP_NO_INDEX=1
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } | tee $L/machine.txt
t=$(date +%s)
( cd .deps/before && cmake --preset h200 -G Ninja $RE > $L/configure_before.log 2>&1 && cmake --build build/h200 -j 6 --target membench > $L/build_before.log 2>&1 ) & b1=$!
( cmake --preset h200 -G Ninja $RE > $L/configure_after.log 2>&1 && cmake --build build/h200 -j 10 > $L/build_after.log 2>&1 ) & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
echo "builds: before $r1, after $r2 in $(( $(date +%s) - t )) s"
tail -3 $L/build_after.log
RCS=""
run() { local exe=$1 name=$2; shift 2; local t=$(date +%s)
  timeout 120 $exe --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  local rc=$?; echo "$name: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/$name.json:$rc"; }
run .deps/before/build/h200/membench default_before
run build/h200/membench default_after
run build/h200/membench default_after2
run .deps/before/build/h200/membench default_before2
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/logsH.tgz -C $OUT logs
python3 .deps/summ.py $RCS
