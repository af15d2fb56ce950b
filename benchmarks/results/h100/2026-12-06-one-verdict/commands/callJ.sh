#!/usr/bin/env bash
# The four tests call I ran inside one test process (which holds a CUDA context, so every membench it spawns saw
# "another process"), each in a process of its own as ctest runs them.
set -u
W=$OUT/w; L=$W/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include"
nvidia-smi -L
( cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 15 --target membench membench_tests membench_gpu_holder > $L/build.log 2>&1 ); echo "build: $?"
for t in CheckGpu.TheExitStatusIsTheVerdict Contention.TheCiSetVerifiesAlone Contention.TheDefaultRunVerifiesAlone Contention.AnotherProcessMarksTheCasesItOverlapsAndExclusiveRefusesToStart; do
  s=$(date +%s); timeout 200 build/h200/tests/membench_tests --gtest_filter=$t > $L/$t.log 2>&1; echo "$t: exit $? in $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED)' $L/$t.log | head -1)"
done
tar czf $OUT/J.tgz -C $OUT w
