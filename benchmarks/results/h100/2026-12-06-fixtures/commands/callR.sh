#!/usr/bin/env bash
# Issue 62 (item 3): the scripts' test fixtures, written by today's binary.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W/logs
nvidia-smi -L | tee $W/machine.txt
python3 -m pip install --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $W/logs/pip.log 2>&1
export PYTHONPATH=/tmp/pylib
B=build/dev
cmake -S . -B $B -DMEMBENCH_BUILD_TESTS=OFF -DMEMBENCH_PYTHON_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/logs/configure.log 2>&1
cmake --build $B -j 16 --target membench > $W/logs/build.log 2>&1; echo "built: $? at $(el) s"
timeout 500 tests/scripts/fixtures/schema4/record.sh $B/membench $W/fixtures
echo "recorded at $(el) s"
rm -f $W/fixtures/ncu/*.ncu-rep
ls -la $W/fixtures $W/fixtures/ncu | tee $W/listing.txt
tar czf $OUT/R.tgz -C $OUT w
echo "elapsed $(el) s"
