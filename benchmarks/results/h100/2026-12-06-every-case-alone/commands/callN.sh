#!/usr/bin/env bash
# Issue 62 (item 6): every default-run case alone, each in a process of its own, against its value in this call's
# default run (the cases of .deps/alone_todo.txt, in its order, as many as fit); and the examples under memcheck
# once more, now that they free their buffers.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( 570 - $(el) )); }
W=$OUT/w; mkdir -p $W/alone $W/logs
nvidia-smi -L | tee $W/machine.txt
B=build/dev
cmake -S . -B $B -DMEMBENCH_BUILD_TESTS=OFF -DMEMBENCH_PYTHON_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/logs/configure.log 2>&1
cmake --build $B -j 16 --target membench membench_examples > $W/logs/build.log 2>&1; echo "built: $? at $(el) s"
M=$B/membench
timeout 150 $M --benchmark_out=$W/default.json --benchmark_out_format=json > $W/logs/default.log 2>&1
echo "default: exit $? at $(el) s; $(tail -1 $W/logs/default.log | cut -c1-160)"
if [ "${MEMCHECK:-1}" = 1 ]; then
  for n in transpose_padded gather_random; do
    timeout 60 compute-sanitizer --tool memcheck --leak-check full $B/membench_examples --only=$n --verify-only > $W/memcheck_$n.txt 2>&1
    echo "memcheck $n: $? $(grep -E 'ERROR SUMMARY|LEAK SUMMARY' $W/memcheck_$n.txt | tr '\n' ' ')"
  done
fi
n=0
while read -r c; do
  [ $(left) -gt 15 ] || break
  f=$(echo "$c" | sed 's|/manual_time$||'); esc=$(printf '%s' "$f" | sed 's/[][\.*^$+?(){}|]/\\&/g')
  timeout 30 $M --benchmark_filter="^$esc/" --benchmark_out=$W/alone/$n.json --benchmark_out_format=json > /dev/null 2>&1
  echo "$n $c" >> $W/alone_done.txt
  n=$((n+1))
done < .deps/alone_todo.txt
echo "alone: $n of $(wc -l < .deps/alone_todo.txt) cases, each in a process of its own, at $(el) s"
tar czf $OUT/N.tgz -C $OUT w
echo "elapsed $(el) s"
