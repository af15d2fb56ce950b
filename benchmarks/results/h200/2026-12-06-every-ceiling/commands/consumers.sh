#!/usr/bin/env bash
# On the CPU, each consumer of the result file on what call D wrote (one repetition a case: no file of this session
# has three), after the compute cases gained *_pipe_busy_pct and the roofs their merge. /tmp/gbench is Google
# Benchmark's source, for its tools/compare.py.
set -u
D=benchmarks/results/h200/2026-12-06-every-ceiling; H=benchmarks/results/h100; W=${W:-/tmp/cons}; mkdir -p $W
python3 scripts/compare.py $D/default.json $D/default.json > $W/compare_self.md; echo "compare: $?"
python3 scripts/compare.py $H/2026-12-06-reference-runs/ceilings.json $D/ceilings.json > $W/compare_ceilings.md; echo "compare H100/H200: $?"
python3 scripts/compare.py $H/2026-12-05-every-architecture/default.json $H/2026-12-06-reference-runs/ceilings.json > $W/compare_old.md; echo "compare old/new: $?"
python3 scripts/history.py --db $W/h.sqlite add $D/default.json $D/ceilings.json $H/2026-12-06-reference-runs/ceilings.json
python3 scripts/history.py --db $W/h.sqlite check $D/default.json > $W/hist.md; echo "history check: $?"
python3 scripts/export.py --format prometheus --out $W/d.prom $D/default.json; echo "export: $?"
promtool check metrics < $W/d.prom; echo "promtool: $?"
python3 scripts/export.py --format bmf --out $W/d.bmf $D/default.json; echo "bmf: $?"
python3 /tmp/gbench/tools/compare.py benchmarks $D/ceilings.json $D/ceilings.json > $W/gbench.txt; echo "gbench compare: $?"
python3 scripts/fleet.py $D/default.json $H/2026-12-05-every-architecture/default.json > $W/fleet.md; echo "fleet: $?"
python3 scripts/report.py --out $W/report $D/default.json; echo "report: $?"
