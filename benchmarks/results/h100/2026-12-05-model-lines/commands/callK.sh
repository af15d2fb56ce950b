#!/usr/bin/env bash
# Why the CI sweep and the default run give two values to one case (local/unrolled/array:64: 3.7% apart, each
# repeatable): the case alone, in its family, in each sweep, printed as rate, batches and noise.
set -u
L=$OUT/logs; mkdir -p $L
RE="-DMEMBENCH_PYTHON_TESTS=OFF -DMEMBENCH_RE2_INCLUDE=$PWD/.deps/re2/include -DMEMBENCH_RE2_LIBRARY=$PWD/.deps/re2/lib/libre2.a"
nvidia-smi -L
t=$(date +%s)
[ -x build/h200/membench ] || { cmake --preset h200 -G Ninja $RE > $L/configure.log 2>&1 && cmake --build build/h200 -j 16 --target membench > $L/build.log 2>&1; }
echo "build: $? in $(( $(date +%s) - t )) s"
python3 - <<'PY'
import json
s = json.load(open("sweeps/ci.json"))
for name, f in (("ci_local", "^local/"), ("ci_hier", "^hierarchy/bandwidth/")):
    s2 = dict(s); s2["benchmark_filter"] = f
    json.dump(s2, open(f"/tmp/{name}.json", "w"))
PY
M=build/h200/membench
run() { local name=$1; shift; timeout 60 $M --benchmark_out=$OUT/$name.json --benchmark_out_format=json "$@" > $L/$name.log 2>&1; echo "$name: exit $?"; }
run alone1 --benchmark_filter='^local/unrolled/array:64/'
run alone2 --benchmark_filter='^local/unrolled/array:64/'
run default_local1 --benchmark_filter='^local/'
run default_local2 --benchmark_filter='^local/'
run ci_local1 --sweep=/tmp/ci_local.json
run ci_local_rep3 --sweep=/tmp/ci_local.json --benchmark_repetitions=3
run alone_rep3 --benchmark_filter='^local/unrolled/array:64/' --benchmark_repetitions=3
run alone_h1 --benchmark_filter='^hierarchy/bandwidth/working_set:1048576/width:16/persistent:1/through_l1:1'
run default_h1 --benchmark_filter='^hierarchy/bandwidth/'
run ci_h1 --sweep=/tmp/ci_hier.json
run ci_h_rep3 --sweep=/tmp/ci_hier.json --benchmark_repetitions=3
python3 - <<'PY'
import json, os, glob
out = os.environ["OUT"]
for f in sorted(glob.glob(out + "/*.json")):
    d = json.load(open(f))
    for b in d["benchmarks"]:
        if b.get("run_type") != "iteration": continue
        n = b["name"]
        if "unrolled/array:64/" in n or "working_set:1048576/width:16/persistent:1/through_l1:1" in n:
            print(f"{os.path.basename(f):22} {n.split('/')[0]:9} {b.get('bytes_per_second',0)/1e9:8.1f} GB/s batches {b.get('batches')!s:>5} noise {b.get('noise_pct',0):.2f}% clk {b.get('sm_clock_mhz',0):.0f} rt {b.get('real_time'):.2f}")
PY
tar czf $OUT/logsK.tgz -C $OUT logs && rm -rf $L
