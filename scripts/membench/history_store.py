"""Where history.py keeps its runs: one SQLite file (the embedded default, for one machine) or a PostgreSQL
database (a postgresql:// URL, for a fleet whose nodes add runs at once). The same schema, the same queries
(written with ? for their parameters) and the same answers from both."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from membench import cli
from membench import results as mr

# The columns of the first schema; {id} and {real} are the dialect's.
TABLES = {
    "runs": "id {id}, host TEXT, gpu_uuid TEXT, gpu_name TEXT, driver TEXT, started TEXT, version TEXT, "
    "source TEXT, UNIQUE (host, gpu_uuid, started, version)",
    "measurements": "run INTEGER REFERENCES runs(id), name TEXT, metric TEXT, value {real}, trusted INTEGER, "
    "PRIMARY KEY (run, name, metric)",
}
# Columns added since the first schema (a history made before gets them, empty).
ADDED_COLUMNS = {
    "runs": {
        "build": "TEXT",
        "cuda_driver": "TEXT",
        "runtime": "TEXT",
        "sm_clock_peak_mhz": "TEXT",
        "sweep": "TEXT",
        "repetitions": "INTEGER",
    },
    "measurements": {"why": "TEXT", "better": "TEXT", "unit": "TEXT"},
}
# The check's query: a case's trusted values on one GPU model and driver, newest first.
INDEXES = [
    "CREATE INDEX IF NOT EXISTS measurements_by_case ON measurements (name, metric, trusted)",
    "CREATE INDEX IF NOT EXISTS runs_by_model ON runs (gpu_name, driver, started)",
]
# PostgreSQL: one process at a time sets up the schema (CREATE ... IF NOT EXISTS races otherwise).
SCHEMA_LOCK = 0x6D656D62


def today(name: str, *catalogs: dict) -> str:
    """A stored case name under today's axes (as it is, where it is no case name): renamed and added axes as the
    compatibility module says, and an axis added since as the catalogs (`mr.cases`'s others) declare it."""
    try:
        suffix = "/manual_time" if name.endswith("/manual_time") else ""
        _, parsed = mr.current_name(name)
        shape = mr.variant_axes(*catalogs).get((parsed.family, parsed.variant), ())
        return mr.with_axes_added(parsed, mr.axes_before(*catalogs), shape).format(suffix)
    except mr.InputError:
        return name


def placeholders(values: list) -> str:
    """The ? of an IN (...) list of these values."""
    return ", ".join("?" * len(values))


class DatabaseError(Exception):
    """The database refused a statement or went away: one line, exit status 2."""


def is_url(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def shown(db: str) -> str:
    """The history's name for a message: a URL without its password."""
    if not is_url(db):
        return db
    parts = urlsplit(db)
    if parts.password is None:
        return db
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}@{host}" if parts.username else host))


class Store:
    """A history, open: execute() takes ? parameters on either database; runs are added one transaction each."""

    def __init__(self, db: str, create: bool = False, read_only: bool = False):
        """`create`: a history that is not there yet is made (add); `read_only`: opened to read (the
        report), its schema left as it is."""
        if not db.strip():  # SQLite would open a temporary database, and keep nothing it was given
            raise mr.InputError("--db '': names no history (a file or a postgresql:// URL)")
        self.db, self.postgres, self.read_only = db, is_url(db), read_only
        self.errors: tuple[type[Exception], ...] = (sqlite3.Error,)
        if self.postgres:
            self._open_postgres(create)
        else:
            self._open_sqlite(create)

    def _open_sqlite(self, create: bool) -> None:
        if not create and not Path(self.db).is_file():
            raise mr.InputError(f"--db {self.db}: no such history (history.py add makes one)")
        if self.read_only:
            try:
                self.con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
                self.execute("SELECT COUNT(*) FROM runs")
            except (sqlite3.Error, DatabaseError) as e:
                raise mr.InputError(f"--db {self.db}: not a history file ({e})") from e
            return
        try:
            # Several processes may add at once: each waits for the others' transactions.
            self.con = sqlite3.connect(self.db, timeout=120, isolation_level=None)
            self.con.execute("BEGIN IMMEDIATE")
            self._create_schema("INTEGER PRIMARY KEY", "REAL")
            for table, columns in ADDED_COLUMNS.items():
                have = {row[1] for row in self.execute(f"PRAGMA table_info({table})")}
                for column, kind in columns.items():
                    if column not in have:
                        self.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            self.execute("COMMIT")
        except (sqlite3.Error, DatabaseError) as e:
            raise mr.InputError(f"--db {self.db}: not a history file ({e})") from e

    def _open_postgres(self, create: bool) -> None:
        try:
            import psycopg
        except ModuleNotFoundError as error:
            cli.missing_package("history.py", error)
        self.errors = (psycopg.Error,)
        try:
            self.con = psycopg.connect(self.db, autocommit=True, connect_timeout=30)
            if not create and self.execute("SELECT to_regclass('runs')")[0][0] is None:
                raise mr.InputError(f"--db {shown(self.db)}: no such history (history.py add makes one)")
            if self.read_only:
                return
            if self._postgres_schema_complete():
                return  # no DDL: its locks would deadlock with other nodes' adds
            with self.con.transaction():
                self.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
                self._create_schema("BIGSERIAL PRIMARY KEY", "DOUBLE PRECISION")
                for table, columns in ADDED_COLUMNS.items():
                    for column, kind in columns.items():
                        self.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind}")
        except (psycopg.Error, DatabaseError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise mr.InputError(f"--db {shown(self.db)}: cannot use it as a history ({first})") from e

    def _postgres_schema_complete(self) -> bool:
        have = set(
            self.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name IN ('runs', 'measurements')"
            )
        )
        indexes = {
            name for (name,) in self.execute("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
        }
        wanted = {(t, c) for t, columns in ADDED_COLUMNS.items() for c in columns} | {
            ("runs", "id"),
            ("measurements", "run"),
        }
        return wanted <= have and {"measurements_by_case", "runs_by_model"} <= indexes

    def _create_schema(self, id_type: str, real: str) -> None:
        for table, columns in TABLES.items():
            self.execute(f"CREATE TABLE IF NOT EXISTS {table} ({columns.format(id=id_type, real=real)})")
        for index in INDEXES:
            self.execute(index)

    def stored_names(self, name: str, *catalogs: dict) -> list[str]:
        """The names under which the history holds a case: today's name, and each older one that reads as it (a
        history kept across a change of the case names, read through the compatibility module and, for an axis
        added since, the catalogs given: a listing of today's cases)."""
        before, shapes = mr.axes_before(*catalogs), mr.variant_axes(*catalogs)
        key = repr((sorted(before.items()), sorted(shapes.items())))  # what the catalogs say, not which objects
        if getattr(self, "_aliases_for", None) != key:
            self._aliases_for = key
            self._aliases: dict[str, list[str]] = {}
            for (stored,) in self.execute("SELECT DISTINCT name FROM measurements"):
                self._aliases.setdefault(today(stored, *catalogs), []).append(stored)
        return self._aliases.get(today(name, *catalogs), [name])

    def execute(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        """The rows of a statement whose parameters are written ?."""
        try:
            if self.postgres:
                cur = self.con.execute(sql.replace("?", "%s"), params)
                return cur.fetchall() if cur.description else []
            return self.con.execute(sql, params).fetchall()
        except self.errors as e:
            raise DatabaseError(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__) from e

    def add_run(self, key: dict, measurements: list[tuple]) -> bool:
        """A run and its (name, metric, value, trusted, why, better, unit) rows in one transaction; False (nothing
        written) when a run with its host, GPU, start and version is there already."""
        columns = list(key)
        insert = (
            f"INSERT INTO runs ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)}) "
            "ON CONFLICT DO NOTHING RETURNING id"
        )
        rows_sql = (
            "INSERT INTO measurements (run, name, metric, value, trusted, why, better, unit) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        values = [key[c] for c in columns]
        try:
            return self._add(key, insert, values, rows_sql, measurements)
        except self.errors as e:
            raise DatabaseError(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__) from e

    def _add(self, key: dict, insert: str, values: list, rows_sql: str, measurements: list[tuple]) -> bool:
        # Looked for first, so a run already there takes no id (PostgreSQL's sequence would skip one on a
        # conflict, and the two databases would number runs apart); the conflict clause covers a race.
        there = "SELECT id FROM runs WHERE host = ? AND gpu_uuid = ? AND started = ? AND version = ?"
        unique = [key["host"], key["gpu_uuid"], key["started"], key["version"]]
        with self._transaction():
            got = [] if self.execute(there, unique) else self.execute(insert, values)
            if got:
                rows = [(got[0][0], *m) for m in measurements]
                if self.postgres:
                    with self.con.cursor() as cur:
                        cur.executemany(rows_sql.replace("?", "%s"), rows)
                else:
                    self.con.executemany(rows_sql, rows)
        return bool(got)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One transaction: PostgreSQL's own; on SQLite, the file's write lock taken at its start."""
        if self.postgres:
            with self.con.transaction():
                yield
            return
        self.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")
