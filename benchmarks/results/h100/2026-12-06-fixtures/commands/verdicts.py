"""The one-verdict table: one case, one verdict, from each consumer, for the files call U wrote with 5
repetitions, alone and beside the tests' load (the one-verdict record's script, its bands read by their parts, as
references name them now). From the repository root: python verdicts.py DIR OTHER (DIR holds
marks_alone.json, marks_loaded.json and default.json; OTHER is another GPU's default run, for fleet.py)."""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile

D = sys.argv[1]
OTHER = sys.argv[2]
PY = "build/h200/venv/bin/python"
EXE = os.path.abspath("build/h200/membench")
env = dict(os.environ, MEMBENCH_EXE=EXE)
CASES = {
    "stream/read/type:float/elements:134217728/block:256": "DRAM read",
    "hierarchy/bandwidth/working_set:65536/width:16/persistent:1/through_l1:1": "L1 read",
    "hierarchy/latency/working_set:1073741824/chase_stride:128": "DRAM latency",
    "transfer/bidirectional_memcpy_ce/host:pinned/bytes:67108864/remote_node:0": "host link both ways",
    "transfer/host_to_device_memcpy_ce/host:pageable/bytes:67108864/remote_node:0": "pageable copy",
    "compute/wgmma_e4m3/chains:1/occupancy:2": "fp8 tensor",
    "atomics/add/word:u32/space:shared/shared_by:thread/updates:16": "shared atomics",
}


def sh(*args):
    return subprocess.run(list(args), capture_output=True, text=True, env=env)


def marks(path):
    d = json.load(open(path))
    out = {}
    for b in d["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        n = b["name"].removesuffix("/manual_time")
        m = out.setdefault(n, {"noise": 0.0})
        for k in ("contended", "clock_event", "power_capped", "noisy", "host_paced"):
            if b.get(k, 0) >= 1:
                m[k] = 1
        if b.get("throttled_batches", 0) > 0:
            m["throttled"] = 1
        m["noise"] = max(m["noise"], b.get("noise_pct", 0))
    return out


def check(path):
    r = sh(EXE, "--check", f"--judge={path}")
    out = {}
    for line in r.stdout.splitlines():
        for c in CASES:
            if f": {c}: " in line:
                out[c] = line.split("GPU 0: ")[1].split(" ")[0]
    return out, r.returncode


def compare(path):
    r = sh(PY, "scripts/compare.py", f"{D}/default.json", path)
    out = {}
    for line in r.stdout.splitlines():
        for c in CASES:
            if line.startswith(f"| {c}/manual_time |"):
                v = line.rstrip(" |").split("|")[-1].strip()
                out[c] = v.split(":")[0].split(" (")[0]
    return out, r.returncode


def fleet(path):
    r = sh(PY, "scripts/fleet.py", OTHER, path)
    out, current = {}, None
    uuid = json.load(open(path))["context"]["gpu_uuid"]
    for line in r.stdout.splitlines():
        for c in CASES:
            if line.startswith(f"{c}/manual_time ("):
                current = c
        if current and line.startswith("| ") and uuid in line:
            out[current] = line.rstrip(" |").split("|")[-1].strip().split(":")[0]
            current = None
    return out, r.returncode


def history(path):
    db = tempfile.mktemp(suffix=".db")
    r = sh(PY, "scripts/history.py", "--db", db, "add", path)
    out = {}
    con = sqlite3.connect(db)
    for name, metric, trusted in con.execute("SELECT name, metric, trusted FROM measurements"):
        c = name.removesuffix("/manual_time")
        if c in CASES and metric in ("bytes_per_second", "latency_ns", "ops_per_second", "updates_per_second"):
            out[c] = "stored, trusted" if trusted else "stored, untrusted"
    return out, r.returncode


def export(path):
    r = sh(PY, "scripts/export.py", path, "--format", "prometheus")
    out = {}
    for line in r.stdout.splitlines():
        if line.startswith("membench_case_trusted{"):
            for c in CASES:
                if f'case="{c}/manual_time"' in line:
                    out[c] = "trusted" if line.rstrip().endswith((" 1", " 1.0")) else "untrusted"
    return out, r.returncode


def reference(path):
    out_file = tempfile.mktemp(suffix=".json")
    r = sh(PY, "scripts/reference.py", path, "--membench", EXE, "--out", out_file, "--partial")
    out = {}
    kept = set()
    if os.path.exists(out_file):
        for band in json.load(open(out_file))["cases"]:  # a band names its case by its parts
            axes = "/".join(f"{k}:{v}" for k, v in band["axes"].items())
            kept.add(f"{band['family']}/{band['variant']}" + (f"/{axes}" if axes else ""))
    for c in CASES:
        out[c] = ("in a band" if c in kept else "left out (no trusted value)") if c in CHECK else "(not a check case)"
    return out, r.returncode


def report(path):
    tmp = tempfile.mkdtemp()
    r = sh(PY, "scripts/report.py", path, "--out", f"{tmp}/r.html")
    md = open(f"{tmp}/r.html/report.md").read() if os.path.exists(f"{tmp}/r.html/report.md") else ""
    out = {}
    for line in md.splitlines():
        for c in CASES:
            fam, var = c.split("/")[:2]
            if line.startswith("| ") and all(p in line for p in c.split("/")[2:]) and f"{var}" in line:
                cells = [x.strip() for x in line.strip("|").split("|")]
                out.setdefault(c, cells[-1] or "(no mark)")
    return out, r.returncode


CHECK = {c["name"].removesuffix("/manual_time") for c in json.loads(sh(EXE, "--check", "--list_cases=json").stdout)}
for label, f in (("alone", f"{D}/marks_alone.json"), ("beside the load", f"{D}/marks_loaded.json")):
    mk = marks(f)
    results = {
        name: fn(f)
        for name, fn in (
            ("--check", check),
            ("compare", compare),
            ("fleet", fleet),
            ("history", history),
            ("export", export),
            ("reference", reference),
            ("report", report),
        )
    }
    print(f"\n### {label} ({os.path.basename(f)})\n")
    print("| case | marks (5 repetitions) | " + " | ".join(f"{k} (exit {v[1]})" for k, v in results.items()) + " |")
    print("| --- | --- |" + " --- |" * len(results))
    for c, short in CASES.items():
        m = mk.get(c, {})
        ms = ", ".join(k.replace("_", " ") for k in m if k != "noise") or "none"
        ms += f"; noise {m.get('noise', 0):.2g}%"
        print(f"| {short} | {ms} | " + " | ".join(v[0].get(c, "-") for v in results.values()) + " |")
