#!/usr/bin/env bash
# Issue 63 on the GPU, the last code: the examples run (verified, then timed) and profiled (ncu --set full);
# membench-explain on every profile with --measure, with a committed run of this model, with the built-in reference,
# in every format, its figure and the report's section; the examples under compute-sanitizer; the timing again.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W/ncu $W/explain $W/san
nvidia-smi -L | tee $W/machine.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv >> $W/machine.txt
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$GPU" in *H200*) COMMITTED=benchmarks/results/h200/2026-12-06-every-ceiling/default.json;; *) COMMITTED=benchmarks/results/h100/2026-12-06-explain/ceilings_run.json;; esac
B=build/dev
cmake -S . -B $B -DMEMBENCH_BUILD_TESTS=OFF -DMEMBENCH_PYTHON_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/configure.log 2>&1
cmake --build $B -j 16 --target membench_examples > $W/build_examples.log 2>&1; echo "examples built: $? at $(el) s"
( cmake --build $B -j 10 --target membench > $W/build_membench.log 2>&1; echo "membench built: $? at $(el) s" > $W/membench_built ) &
BUILD=$!
python3 -m pip install --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $W/pip.log 2>&1
X=$B/membench_examples
timeout 120 $X > $W/examples.jsonl 2> $W/examples.err; echo "examples: exit $? at $(el) s"
for n in $($X --list); do
  [ $(el) -lt 300 ] || { echo "no time for ncu on $n"; break; }
  timeout 60 ncu --set full --launch-count 1 -f -o $W/ncu/$n $X --only=$n > $W/ncu/$n.log 2>&1
  ncu --import $W/ncu/$n.ncu-rep --csv --page raw > $W/ncu/$n.csv 2>> $W/ncu/$n.log; echo "ncu $n: $(wc -c < $W/ncu/$n.csv) bytes at $(el) s"
done
wait $BUILD; cat $W/membench_built
export PYTHONPATH=/tmp/pylib
E="python3 scripts/explain.py"
R=""; for n in $($X --list); do [ -f $W/ncu/$n.ncu-rep ] && R="$R $W/ncu/$n.ncu-rep"; done
$E $R --measure --membench $B/membench --save-run $W/explain/measure_run.json --format json --out $W/explain/measure.json 2> $W/explain/measure.err; echo "explain --measure: $? at $(el) s"; cat $W/explain/measure.err
# Off the GPU from here: the sanitizers run beside the placing.
( for n in transpose_naive transpose_conflicts transpose_padded stride32 aos_one_field gather_random fma_bound; do
    timeout 120 compute-sanitizer --tool memcheck --leak-check full $X --only=$n --verify-only > $W/san/memcheck_$n.txt 2>&1; echo "memcheck $n: $? $(grep -E 'ERROR SUMMARY' $W/san/memcheck_$n.txt)"
  done
  for n in transpose_conflicts transpose_padded; do
    for tool in racecheck synccheck; do
      timeout 150 compute-sanitizer --tool $tool $X --only=$n --verify-only > $W/san/${tool}_$n.txt 2>&1; echo "$tool $n: $? $(grep -E 'ERROR SUMMARY|HAZARD' $W/san/${tool}_$n.txt | tail -1)"
    done
  done ) > $W/san/summary.txt 2>&1 &
SAN=$!
$E $R --results $W/explain/measure_run.json --format json --out $W/explain/results_same_run.json; echo "explain --results (the run --measure made): $?"
$E $R --results $COMMITTED --format json --out $W/explain/results_committed.json; echo "explain --results $COMMITTED: $?"
$E $R --format json --out $W/explain/reference.json; echo "explain (built-in reference): $?"
for f in text md; do $E $R --format $f --out $W/explain/measure.$f --results $W/explain/measure_run.json; done
$E $R --results $W/explain/measure_run.json --plot $W/explain/roofline.png > /dev/null 2> $W/explain/plot.err; echo "plot: $? $(cat $W/explain/plot.err)"
python3 scripts/report.py $W/explain/measure_run.json --out $W/report --explain $R > $W/explain/report.log 2>&1; echo "report --explain: $? $(grep -c 'Your kernels' $W/report/report.md)"
for n in $($X --list); do $E $W/ncu/$n.ncu-rep --results $W/explain/measure_run.json --format json --out $W/explain/$n.json; done
$E $W/ncu/stride2.ncu-rep --results $W/explain/measure_run.json --ncu /no/such/ncu; echo "no ncu: $?"
wait $SAN; cat $W/san/summary.txt
timeout 120 $X > $W/examples_again.jsonl 2>> $W/examples.err; echo "examples again: exit $? at $(el) s"
tar czf $OUT/M.tgz --exclude='*.ncu-rep' -C $OUT w
python3 - $W <<'PY'
import json, sys
w = sys.argv[1]
def jl(p):
    return {d["example"]: d for d in map(json.loads, open(p)) if "ms" in d}
ms, again = jl(f"{w}/examples.jsonl"), jl(f"{w}/examples_again.jsonl")
names = {}
for f in ("measure", "results_same_run", "results_committed", "reference"):
    try:
        doc = json.load(open(f"{w}/explain/{f}.json"))
    except Exception as e:
        print(f, "unreadable", e); continue
    names[f] = {k["launch"].split(".ncu-rep")[0]: k for k in doc["kernels"]}
m = names.get("measure", {})
print(f"{'example':20} {'bound':7} {'ncu':8} {'pred':>6} {'meas':>6} {'meas2':>6} {'err%':>6}  same verdicts (run/committed/ref)")
for n, k in m.items():
    d = ms.get(n, {}); twin = d.get("twin")
    meas = ms[n]["ms"] / ms[twin]["ms"] if twin and twin in ms and n in ms else None
    meas2 = again[n]["ms"] / again[twin]["ms"] if twin and twin in again and n in again else None
    pred = k["all_fixed_speedup"]
    err = 100 * (pred / meas - 1) if pred and meas else None
    same = "/".join("y" if names.get(f, {}).get(n, {}).get("verdict") == k["verdict"] else "n" for f in ("results_same_run", "results_committed", "reference"))
    f = lambda x: f"{x:6.2f}" if x else "     -"
    print(f"{n:20} {k['bound']:7} {str(k['ncu_busiest']):8} {f(pred)} {f(meas)} {f(meas2)} {f(err)}  {same}")
PY
echo "elapsed $(el) s"
