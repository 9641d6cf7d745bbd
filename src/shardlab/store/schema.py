"""The store's tables, its version, and the migrations that bring any older store up to it.

Every change to the schema is a numbered migration (`user_version` N-1 -> N), so a store
written by any earlier shardlab opens, lists and shows; tests open one made by the previous
release (tests/fixtures/store-schema2.sqlite).
"""

from __future__ import annotations

import sqlite3
from dataclasses import fields
from pathlib import Path

from shardlab.errors import UsageError
from shardlab.results import Counters, LatencySummary

SCHEMA_VERSION = 3

COUNT_COLUMNS = [f.name for f in fields(Counters)]
LATENCY_COLUMNS = [f.name for f in fields(LatencySummary)]
INTERVAL_COLUMNS = [
    "run_id",
    "idx",
    "start_s",
    "duration_s",
    *COUNT_COLUMNS,
    *(f"service_{name}" for name in LATENCY_COLUMNS),
    *(f"response_{name}" for name in LATENCY_COLUMNS),
    "service_histogram",
    "response_histogram",
    "start_unix_s",
    "schedule_lag_max_ms",
    *(f"failed_service_{name}" for name in LATENCY_COLUMNS),
    "failed_histogram",
]
# the counters schema 3 added to schema 2's
_COUNTERS_SINCE_3 = ["schedule_lag_us", "docs_unknown", "docs_not_sent", "connect_errors"]

_TABLES = f"""
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workload TEXT NOT NULL,
    variant TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    hostname TEXT NOT NULL,
    pid INTEGER NOT NULL,
    plan_json TEXT NOT NULL,
    target_json TEXT NOT NULL,
    environment_json TEXT NOT NULL,
    totals_json TEXT,
    summary_json TEXT,
    problem TEXT,
    engine_spec_json TEXT,
    started_unix_s REAL,
    conclusion_json TEXT
);
CREATE TABLE IF NOT EXISTS intervals (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    idx INTEGER NOT NULL,
    start_s REAL NOT NULL,
    duration_s REAL NOT NULL,
    {", ".join(f"{name} INTEGER NOT NULL DEFAULT 0" for name in COUNT_COLUMNS)},
    {", ".join(f"service_{name} REAL NOT NULL" for name in LATENCY_COLUMNS)},
    {", ".join(f"response_{name} REAL NOT NULL" for name in LATENCY_COLUMNS)},
    service_histogram BLOB,
    response_histogram BLOB,
    start_unix_s REAL,
    schedule_lag_max_ms REAL NOT NULL DEFAULT 0,
    {", ".join(f"failed_service_{name} REAL NOT NULL DEFAULT 0" for name in LATENCY_COLUMNS)},
    failed_histogram BLOB,
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS histograms (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    name TEXT NOT NULL,
    encoded BLOB NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS errors (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    kind TEXT NOT NULL,
    count INTEGER NOT NULL,
    example TEXT NOT NULL
);
"""

# Added by migration 3, and created as they are in a new store.
_TELEMETRY_TABLES = """
CREATE TABLE IF NOT EXISTS telemetry_series (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    probe TEXT NOT NULL,
    source TEXT NOT NULL,
    metric TEXT NOT NULL,
    UNIQUE (run_id, probe, source, metric)
);
CREATE TABLE IF NOT EXISTS telemetry_points (
    series_id INTEGER NOT NULL REFERENCES telemetry_series(id),
    time_unix_s REAL NOT NULL,
    value REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS telemetry_points_series ON telemetry_points (series_id);
CREATE TABLE IF NOT EXISTS events (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    time_unix_s REAL NOT NULL,
    probe TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_run ON events (run_id);
"""

# What takes a store of version N-1 to version N.
_MIGRATIONS: dict[int, list[str]] = {
    2: ["ALTER TABLE intervals ADD COLUMN response_histogram BLOB"],
    3: [
        # one clock: intervals on the wall clock, beside the telemetry samples
        "ALTER TABLE intervals ADD COLUMN start_unix_s REAL",
        *(
            f"ALTER TABLE intervals ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0"
            for name in _COUNTERS_SINCE_3
        ),
        "ALTER TABLE intervals ADD COLUMN schedule_lag_max_ms REAL NOT NULL DEFAULT 0",
        # answers with an error status, timed apart from the 2xx ones
        *(
            f"ALTER TABLE intervals ADD COLUMN failed_service_{name} REAL NOT NULL DEFAULT 0"
            for name in LATENCY_COLUMNS
        ),
        "ALTER TABLE intervals ADD COLUMN failed_histogram BLOB",
        "ALTER TABLE runs ADD COLUMN engine_spec_json TEXT",
        "ALTER TABLE runs ADD COLUMN started_unix_s REAL",
        "ALTER TABLE runs ADD COLUMN conclusion_json TEXT",
    ],
}


def open_database(path: Path) -> sqlite3.Connection:
    """Open (creating if need be) and migrate the store at `path`; UsageError if it is not a
    store this shardlab can read."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path)
        db.row_factory = sqlite3.Row
        # WAL with NORMAL sync: a commit per interval costs no fsync, and a crash loses at
        # most the last commits, never the file.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise UsageError(
                "--store",
                path,
                f"was written by a newer shardlab (schema {version})",
                "upgrade shardlab or choose another --store",
            )
        steps = range(version + 1, SCHEMA_VERSION + 1) if version > 0 else range(0)
        migrations = [statement for step in steps for statement in _MIGRATIONS[step]]
        # one transaction: a store is migrated whole or not at all
        db.executescript(
            "BEGIN;"
            + _TABLES
            + "".join(f"{statement};" for statement in migrations)
            + _TELEMETRY_TABLES
            + f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
        )
    except (sqlite3.DatabaseError, OSError) as error:
        raise UsageError(
            "--store", path, f"cannot be opened as a results store ({error})"
        ) from None
    return db
