#!/usr/bin/env bash
# Call T's machine, still warm: a run of two families stopped by timeout (SIGTERM) mid-run; its JSON read back.
mkdir -p $OUT/w
timeout 4 build/h200/membench --benchmark_filter='^(global|hierarchy)/' --benchmark_out=$OUT/w/timeout.json --benchmark_out_format=json > $OUT/w/timeout.log 2>&1; echo "exit $?"
python3 -c "
import json; d=json.load(open('$OUT/w/timeout.json')); m=d['membench']; print('whole JSON: complete', m.get('complete'), 'end', m.get('end'), len(d['benchmarks']), 'entries, schema', m['schema_version'])"
tail -2 $OUT/w/timeout.log
