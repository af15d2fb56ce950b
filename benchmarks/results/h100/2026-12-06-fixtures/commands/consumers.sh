#!/usr/bin/env bash
# On the CPU, every consumer on the two files call T wrote ($T: its folder, copied from the device); /tmp/gbench is
# Google Benchmark's source, for its tools/compare.py.
set -u
W=${W:-consumers}; mkdir -p $W
python3 scripts/compare.py $T/global_alone.json $T/global_alone.json > $W/compare_self.md; echo "compare alone alone: $?"
python3 scripts/compare.py $T/global_alone.json $T/global_loaded.json > $W/compare_loaded.md; echo "compare alone loaded: $?"
python3 scripts/export.py --format prometheus $T/global_alone.json > $W/alone.prom; promtool check metrics < $W/alone.prom; echo "promtool alone: $?"
python3 scripts/export.py --format prometheus $T/global_loaded.json > $W/loaded.prom; promtool check metrics < $W/loaded.prom; echo "promtool loaded: $?"
python3 scripts/export.py --format bmf $T/global_alone.json > $W/alone.bmf; echo "bmf: $?"
python3 /tmp/gbench/tools/compare.py -a benchmarks $T/global_alone.json $T/global_loaded.json > $W/gbench.txt; echo "gbench compare: $?"
python3 scripts/fleet.py $T/global_alone.json $T/global_loaded.json > $W/fleet.md; echo "fleet: $?"
python3 scripts/history.py --db $W/h.sqlite add $T/global_alone.json $T/global_loaded.json; echo "history add: $?"
python3 scripts/history.py --db $W/h.sqlite check $T/global_loaded.json > $W/history_check.md; echo "history check: $?"
python3 scripts/report.py --out $W/report $T/global_alone.json $T/global_loaded.json; echo "report: $?"
python3 scripts/plot.py --out $W/figures $T/global_alone.json; echo "plot: $?"
