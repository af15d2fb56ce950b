#!/usr/bin/env bash
# On the CPU, today's scripts on call 2's and call 1's files (D3: call 1's folder, D4: call 2's, copied from the
# device); /tmp/gbench is Google Benchmark's source, for its tools/compare.py.
set -u
W=${W:-consumers}; mkdir -p $W
python3 scripts/plot.py --out $W/figures $D3/default_after.json
python3 scripts/compare.py $D4/ci_rep3_1.json $D4/ci_rep3_2.json > $W/compare_ci1_ci2.md; echo "compare ci1 ci2: $?"
python3 scripts/compare.py $D4/ci_rep3_1.json $D4/ci_loaded.json > $W/compare_ci1_loaded.md; echo "compare ci1 loaded: $?"
python3 scripts/compare.py $D3/default_before.json $D3/default_after.json > $W/compare_before_after.md; echo "compare: $?"
python3 scripts/compare.py $D3/default_after.json $D4/default_timeout.json > $W/compare_after_timeout.md; echo "compare: $?"
python3 scripts/history.py --db $W/h.sqlite add $D3/default_before.json $D3/default_after.json $D3/default_before2.json \
  $D4/ci_rep3_1.json
python3 scripts/history.py --db $W/h.sqlite check $D4/ci_rep3_2.json > $W/history_check_ci2.md; echo "history ci2: $?"
python3 scripts/history.py --db $W/h.sqlite check $D3/default_after2.json > $W/history_check_after2.md; echo "after2: $?"
python3 scripts/history.py --db $W/h.sqlite check --allow-untrusted $D3/default_after2.json > /dev/null; echo "after2: $?"
for f in bmf benchmark-action benchmark-action-latency prometheus; do
  python3 scripts/export.py --format $f --out $W/export_ci1.$f.txt $D4/ci_rep3_1.json; echo "export $f: $?"; done
promtool check metrics < $W/export_ci1.prometheus.txt; echo "promtool: $?"
for r in ci_loaded default_timeout; do
  python3 scripts/export.py --format prometheus --out $W/export_$r.prometheus.txt $D4/$r.json; echo "export $r: $?"
  promtool check metrics < $W/export_$r.prometheus.txt; echo "promtool $r: $?"; done
python3 /tmp/gbench/tools/compare.py -a benchmarks $D4/ci_rep3_1.json $D4/ci_rep3_2.json > $W/gbench_compare.txt
echo "gbench compare: $?"
python3 scripts/report.py --out $W/report --history $W/h.sqlite $D3/default_after.json; echo "report: $?"
python3 scripts/report.py --out $W/report_ci $D4/ci_rep3_1.json $D4/ci_rep3_2.json; echo "report ci: $?"
