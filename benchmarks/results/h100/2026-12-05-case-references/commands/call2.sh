#!/usr/bin/env bash
# Issue 53's before and after again, the order turned (after first): the spread between two runs of one
# binary, beside the spread between the binaries.
set -u
L=$OUT/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
nvidia-smi -L | tee $L/machine.txt
t=$(date +%s)
( cd .deps/before && { [ -x build/h200/membench ] || { cmake --preset h200 -G Ninja $RE > $L/configure_before.log 2>&1 && cmake --build build/h200 -j 7 --target membench > $L/build_before.log 2>&1; }; } ) & b1=$!
( [ -x build/h200/membench ] || { cmake --preset h200 -G Ninja $RE > $L/configure_after.log 2>&1 && cmake --build build/h200 -j 9 --target membench > $L/build_after.log 2>&1; } ) & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
echo "builds: before $r1, after $r2 in $(( $(date +%s) - t )) s"
RCS=""
run() { local exe=$1 name=$2; shift 2; local t=$(date +%s)
  timeout 120 $exe --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1
  local rc=$?; echo "$name: exit $rc, $(( $(date +%s) - t )) s"; RCS="$RCS $OUT/$name.json:$rc"; }
run build/h200/membench default_after2
run .deps/before/build/h200/membench default_before2
python3 .deps/summ.py $RCS
