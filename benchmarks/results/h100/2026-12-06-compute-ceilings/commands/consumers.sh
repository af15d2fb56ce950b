#!/usr/bin/env bash
# On the CPU, the scripts on the files calls A and B wrote ($A: call A's folder, $B: call B's, copied from the
# device); /tmp/gbench is Google Benchmark's source, for its tools/compare.py.
set -u
W=${W:-consumers}; mkdir -p $W
python3 scripts/compare.py $B/rf3.json $B/rf3.json > $W/compare_self.md; echo "compare rf3 rf3: $?"
python3 scripts/compare.py --metric ops_per_second $A/compute1.json $B/rf3.json > $W/compare_ops.md; echo "compare ops: $?"
python3 scripts/history.py --db $W/h.sqlite add $A/compute1.json $B/default.json $A/default.json
python3 scripts/history.py --db $W/h.sqlite check --metric ops_per_second $B/rf3.json > $W/hist_ops.md; echo "history: $?"
python3 scripts/export.py --format prometheus --out $W/rf3.prom $B/rf3.json; echo "export: $?"
promtool check metrics < $W/rf3.prom; echo "promtool: $?"
python3 scripts/export.py --format bmf --out $W/rf3.bmf $B/rf3.json; echo "bmf: $?"
python3 /tmp/gbench/tools/compare.py -a benchmarks $B/rf3.json $B/rf3.json > $W/gbench.txt; echo "gbench compare: $?"
python3 scripts/plot.py --out $W/figures $B/default.json; echo "plot: $?"
python3 scripts/report.py --out $W/report $B/default.json; echo "report: $?"
