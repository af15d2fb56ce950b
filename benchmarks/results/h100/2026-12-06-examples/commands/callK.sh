#!/usr/bin/env bash
# Issue 63's examples on the GPU: build them, run each (verified, then timed), and profile each one's verified launch
# with ncu --set full, exported as raw CSV pages, for the explain tool's fixtures.
set -u
T0=$(date +%s)
W=$OUT/w; mkdir -p $W/ncu
nvidia-smi -L | tee $W/machine.txt
( cmake -S . -B build/ex -DMEMBENCH_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/configure.log 2>&1 && cmake --build build/ex -j 15 --target membench_examples > $W/build.log 2>&1 ); echo "build: $? in $(( $(date +%s) - T0 )) s"
X=build/ex/membench_examples
timeout 60 $X > $W/examples.jsonl 2> $W/examples.err; echo "examples: exit $?"; cat $W/examples.jsonl
tar czf $OUT/K.tgz -C $OUT w
for n in $($X --list); do
  [ $(( $(date +%s) - T0 )) -lt 190 ] || { echo "no time for ncu on $n"; break; }
  timeout 40 ncu --set full --launch-count 1 -f -o $W/ncu/$n $X --only=$n > $W/ncu/$n.log 2>&1
  ncu --import $W/ncu/$n.ncu-rep --csv --page raw > $W/ncu/$n.csv 2>> $W/ncu/$n.log; echo "ncu $n: $(wc -c < $W/ncu/$n.csv) bytes"
  rm -f $W/ncu/$n.ncu-rep
done
echo "elapsed $(( $(date +%s) - T0 )) s"
tar czf $OUT/K.tgz -C $OUT w
