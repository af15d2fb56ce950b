#!/usr/bin/env bash
# Issue 63 on the GPU: the examples at their full size run (verified, then timed) and profiled (ncu --set full);
# membench-explain on every report with --measure, with the run --measure kept as --results, with a committed
# H100 run and with the built-in reference; the section flags its refusal names checked on a real profile.
set -u
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
W=$OUT/w; mkdir -p $W/ncu $W/explain
nvidia-smi -L | tee $W/machine.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv >> $W/machine.txt
B=build/dev
cmake -S . -B $B -DMEMBENCH_BUILD_TESTS=OFF -DMEMBENCH_PYTHON_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a -DMEMBENCH_VALIJSON_INCLUDE=$PWD/.deps/valijson/include > $W/configure.log 2>&1
cmake --build $B -j 16 --target membench_examples > $W/build_examples.log 2>&1; echo "examples built: $? at $(el) s"
( cmake --build $B -j 10 --target membench > $W/build_membench.log 2>&1; echo "membench built: $? at $(el) s" > $W/membench_built ) &
BUILD=$!
python3 -m pip install --no-index --find-links .deps/wheels --target /tmp/pylib jsonschema > $W/pip.log 2>&1
X=$B/membench_examples
timeout 120 $X > $W/examples.jsonl 2> $W/examples.err; echo "examples: exit $? at $(el) s"; cat $W/examples.jsonl
ncu --list-sections > $W/ncu_sections.txt 2>&1
for n in $($X --list); do
  [ $(el) -lt 330 ] || { echo "no time for ncu on $n"; break; }
  timeout 60 ncu --set full --launch-count 1 -f -o $W/ncu/$n $X --only=$n > $W/ncu/$n.log 2>&1
  ncu --import $W/ncu/$n.ncu-rep --csv --page raw > $W/ncu/$n.csv 2>> $W/ncu/$n.log; echo "ncu $n: $(wc -c < $W/ncu/$n.csv) bytes at $(el) s"
done
# The sections explain's refusal names, alone; and ncu's default set, which lacks them.
timeout 60 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section SourceCounters --section SpeedOfLight_RooflineChart --launch-count 1 -f -o $W/ncu/sections_contiguous $X --only=contiguous > $W/ncu/sections.log 2>&1
ncu --import $W/ncu/sections_contiguous.ncu-rep --csv --page raw > $W/ncu/sections_contiguous.csv
timeout 60 ncu --launch-count 1 -f -o $W/ncu/basic_contiguous $X --only=contiguous > $W/ncu/basic.log 2>&1
ncu --import $W/ncu/basic_contiguous.ncu-rep --csv --page raw > $W/ncu/basic_contiguous.csv
ncu --import $W/ncu/stride2.ncu-rep --csv --page raw --print-units base > $W/ncu/stride2_base_units.csv
echo "profiles done at $(el) s"
wait $BUILD; cat $W/membench_built
export PYTHONPATH=/tmp/pylib
E="python3 scripts/explain.py"
R=""; for n in $($X --list); do [ -f $W/ncu/$n.ncu-rep ] && R="$R $W/ncu/$n.ncu-rep"; done
$E $R --measure --membench $B/membench --save-run $W/explain/measure_run.json --format json --out $W/explain/measure.json 2> $W/explain/measure.err; echo "explain --measure: $? at $(el) s"; cat $W/explain/measure.err
$E $R --results $W/explain/measure_run.json --format json --out $W/explain/results_same_run.json; echo "explain --results (the measured run): $?"
$E $R --results benchmarks/results/h100/2026-12-06-one-verdict/marks_alone.json --format json --out $W/explain/results_committed.json; echo "explain --results (committed marks_alone): $?"
$E $R --format json --out $W/explain/reference.json; echo "explain (built-in reference): $?"
$E $R --results $W/explain/measure_run.json > $W/explain/measure.txt; $E $R --results $W/explain/measure_run.json --format md > $W/explain/measure.md
$E $R --results $W/explain/measure_run.json --plot $W/explain/roofline.png > /dev/null 2> $W/explain/plot.err; echo "plot: $?"
$E $W/ncu/sections_contiguous.ncu-rep --results $W/explain/measure_run.json > $W/explain/sections.txt 2>&1; echo "explain on the named sections alone: $?"
$E $W/ncu/basic_contiguous.ncu-rep --results $W/explain/measure_run.json > $W/explain/basic.txt 2>&1; echo "explain on ncu's default set: $? ($(cat $W/explain/basic.txt))"
timeout 120 $X > $W/examples_again.jsonl 2>> $W/examples.err; echo "examples again: exit $? at $(el) s"
rm -f $W/ncu/*.ncu-rep.tmp
tar czf $OUT/L.tgz --exclude='*.ncu-rep' -C $OUT w
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
