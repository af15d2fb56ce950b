"""Shared fixtures: files today's membench binary wrote on an H100 (fixtures/schema4, remade by its record.sh),
and builders for constructed variants of them. The files of older binaries test only the upgrade at load, in
test_compat.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "schema4"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def load(name: str) -> dict:
    """A file today's binary wrote (fixtures/schema4), as JSON."""
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture
def global_run() -> dict:
    """membench --n=2^28 --vec=1,2,4 --ilp=1,2,4,8 --persistent=1 on global's coalesced, strided, vectorized and
    memcpy cases (20), on an H100."""
    return load("global.json")


@pytest.fixture
def write_json(tmp_path):
    """Writes a document to a fresh file and returns its path."""
    counter = iter(range(10_000))

    def write(doc: dict) -> str:
        path = tmp_path / f"doc{next(counter)}.json"
        path.write_text(json.dumps(doc))
        return str(path)

    return write


def with_repetitions(doc: dict, name_prefix: str, values: list[float], metric: str = "bytes_per_second") -> dict:
    """A copy of `doc` whose case starting with `name_prefix` has one run per value."""
    out = copy.deepcopy(doc)
    template = next(b for b in out["benchmarks"] if b["name"].startswith(name_prefix) and not b.get("error_occurred"))
    runs = []
    for i, v in enumerate(values):
        run = copy.deepcopy(template)
        run[metric] = v
        run["repetitions"] = len(values)
        run["repetition_index"] = i
        runs.append(run)
    index = out["benchmarks"].index(template)
    out["benchmarks"][index : index + 1] = runs
    return out


def scaled(doc: dict, name_prefix: str, factor: float, metric: str = "bytes_per_second") -> dict:
    out = copy.deepcopy(doc)
    for b in out["benchmarks"]:
        if b["name"].startswith(name_prefix) and metric in b:
            b[metric] *= factor
    return out


def with_aggregates(doc: dict) -> dict:
    """A copy of `doc` as Google Benchmark writes it with --benchmark_repetitions: after each case's
    repetitions, its mean, median, stddev and cv entries (run_type "aggregate", named <case>_mean ...),
    whose values differ from the repetitions' so that reading them as repetitions shows."""
    out = copy.deepcopy(doc)
    entries = []
    by_case: dict[str, list[dict]] = {}
    for b in out["benchmarks"]:
        by_case.setdefault(b.get("run_name", b["name"]), []).append(b)
    for name, runs in by_case.items():
        entries.extend(runs)
        if runs[0].get("error_occurred") or runs[0].get("skipped"):
            continue
        for aggregate in ("mean", "median", "stddev", "cv"):
            entry = copy.deepcopy(runs[0])
            entry.update(
                name=f"{name}_{aggregate}",
                run_name=name,
                run_type="aggregate",
                aggregate_name=aggregate,
                repetitions=len(runs),
            )
            for key, value in entry.items():
                if key in ("bytes_per_second", "real_time", "latency_ns") and isinstance(value, (int, float)):
                    entry[key] = value * 1000.0  # far from any repetition
            entries.append(entry)
    out["benchmarks"] = entries
    return out


def _postgres_binaries() -> Path | None:
    """The folder of Debian's PostgreSQL server programs (initdb, pg_ctl), the newest one."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    return found[-1].parent if found else None


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server of its own for the session, on a Unix socket in a fresh folder (trust
    authentication, user postgres); skipped, saying why, where the server or psycopg is missing."""
    import os
    import shutil
    import socket
    import subprocess
    import tempfile

    try:
        import psycopg  # noqa: F401
    except ModuleNotFoundError:
        pytest.skip("psycopg is not installed (pip install -r scripts/requirements.txt)")
    bin_dir = _postgres_binaries()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server (Debian's postgresql package: apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="membench-pg-"))
    root.chmod(0o755)
    data = root / "data"
    as_user: list[str] = []
    if os.geteuid() == 0:  # the server refuses to run as root: as the package's postgres user
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser to start PostgreSQL as its own user")
        shutil.chown(root, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([*as_user, *argv], capture_output=True, text=True, timeout=120)

    made = run(str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
    if made.returncode != 0:
        pytest.skip(f"initdb failed: {made.stderr.strip().splitlines()[-1:]}")
    options = f"-k {root} -p {port} -c listen_addresses='' -c max_connections=100 -c fsync=off"
    started = run(str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"), "-w", "start")
    if started.returncode != 0:
        pytest.skip(f"PostgreSQL did not start: {(root / 'log').read_text()[-300:] if (root / 'log').exists() else ''}")
    try:
        yield f"postgresql://postgres@/{{db}}?host={root}&port={port}"
    finally:
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def new_db(request, tmp_path):
    """new_db() -> a fresh, not yet created history: a SQLite file, or a PostgreSQL database of its own."""
    counter = iter(range(1000))
    if request.param == "sqlite":
        return lambda: str(tmp_path / f"h{next(counter)}.sqlite")
    import uuid

    server = request.getfixturevalue("postgres_server")  # skips, saying why, without psycopg or a server
    import psycopg

    def make() -> str:
        name = f"h{uuid.uuid4().hex[:12]}"
        with psycopg.connect(server.format(db="postgres"), autocommit=True) as con:
            con.execute(f"CREATE DATABASE {name}")
        return server.format(db=name)

    return make


def entry(name: str, **counters) -> dict:
    """One case's iteration as membench writes it: one launch of 1 us, with these counters."""
    return {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0, "time_unit": "us", **counters}
