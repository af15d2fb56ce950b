#!/usr/bin/env bash
# Call 2 (same warm machine, or a fresh one: build again if need be): every test under ctest (GPU tests run),
# and the models of the changed families against Nsight Compute.
set -u
L=$OUT/logs; mkdir -p $L
export PIP_NO_INDEX=1
nvidia-smi -L
if [ ! -x build/h200/tests/membench_tests ]; then
  cmake --preset h200 -G Ninja -DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include \
    -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a > $L/configure.log 2>&1 && cmake --build build/h200 -j 16 > $L/build.log 2>&1
  echo "built: $?"
else
  cmake --build build/h200 -j 16 > $L/build.log 2>&1; echo "rebuilt: $?"
fi
t=$(date +%s)
timeout 330 ctest --test-dir build/h200 -j 8 --timeout 300 --output-on-failure > $L/ctest.log 2>&1
echo "ctest exit $? in $(( $(date +%s) - t )) s: $(grep -E 'tests passed|tests failed' $L/ctest.log)"
grep -E "\*\*\*Failed|Timeout|Not Run" $L/ctest.log | head -20
echo "skipped: $(grep -c 'Skipped' $L/ctest.log)"
t=$(date +%s)
PYTHONPATH=scripts timeout 150 python3 scripts/ncu_check.py --membench build/h200/membench --out $L/ncu -- \
  --benchmark_filter='^(indirect/|global/(broadcast|coalesced)/)' --indirect.entries=2^24 --global.n=2^24 > $OUT/ncu_check.md 2> $L/ncu_check.err
echo "ncu_check exit $? in $(( $(date +%s) - t )) s"
tar czf $OUT/logs2.tgz -C $OUT logs && rm -rf $L
tail -40 $OUT/ncu_check.md
