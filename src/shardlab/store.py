"""The results store: one SQLite file holding every run's plan, environment, per-interval
series, histograms, errors and summary.

A run's row is written before the load starts and each interval as soon as it arrives, so
a run that is interrupted or crashes keeps what it measured. A row left `running` by a
process that no longer exists reads back as `interrupted`.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shardlab.errors import UsageError
from shardlab.results import Counts, ErrorKind, IntervalRecord, Latency, RunTotals

SCHEMA_VERSION = 2
# what takes a store of version N-1 to version N
_MIGRATIONS = {2: "ALTER TABLE intervals ADD COLUMN response_histogram BLOB"}
_COUNT_COLUMNS = [f.name for f in fields(Counts)]
_LATENCY_COLUMNS = [f.name for f in fields(Latency)]
_INTERVAL_COLUMNS = [
    "run_id",
    "idx",
    "start_s",
    "duration_s",
    *_COUNT_COLUMNS,
    *(f"service_{name}" for name in _LATENCY_COLUMNS),
    *(f"response_{name}" for name in _LATENCY_COLUMNS),
    "service_histogram",
    "response_histogram",
]

_SCHEMA = f"""
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
    problem TEXT
);
CREATE TABLE IF NOT EXISTS intervals (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    idx INTEGER NOT NULL,
    start_s REAL NOT NULL,
    duration_s REAL NOT NULL,
    {", ".join(f"{name} INTEGER NOT NULL" for name in _COUNT_COLUMNS)},
    {", ".join(f"service_{name} REAL NOT NULL" for name in _LATENCY_COLUMNS)},
    {", ".join(f"response_{name} REAL NOT NULL" for name in _LATENCY_COLUMNS)},
    service_histogram BLOB,
    response_histogram BLOB,
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


@dataclass(frozen=True)
class StoredRun:
    id: int
    workload: str
    variant: str
    status: str
    started_at: str
    ended_at: str | None
    hostname: str
    plan: dict[str, Any]
    target: dict[str, Any]
    environment: dict[str, Any]
    totals: dict[str, Any] | None
    summary: dict[str, Any] | None
    problem: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _json(text: str | None) -> Any:
    return json.loads(text) if text else None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path)
            self._db.row_factory = sqlite3.Row
            self._db.executescript(_SCHEMA)
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UsageError(
                    "--store",
                    path,
                    f"was written by a newer shardlab (schema {version})",
                    "upgrade shardlab or choose another --store",
                )
            if 0 < version < SCHEMA_VERSION:
                with self._db:
                    for step in range(version + 1, SCHEMA_VERSION + 1):
                        self._db.execute(_MIGRATIONS[step])
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except (sqlite3.DatabaseError, OSError) as error:
            raise UsageError(
                "--store", path, f"cannot be opened as a results store ({error})"
            ) from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing, in the order a run does it ------------------------------------------------

    def begin_run(
        self,
        workload: str,
        variant: str,
        plan: dict[str, Any],
        target: dict[str, Any],
        environment: dict[str, Any],
    ) -> int:
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO runs (workload, variant, status, started_at, hostname, pid,"
                " plan_json, target_json, environment_json) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    workload,
                    variant,
                    "running",
                    _now(),
                    socket.gethostname(),
                    os.getpid(),
                    json.dumps(plan),
                    json.dumps(target),
                    json.dumps(environment),
                ),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_interval(self, run_id: int, interval: IntervalRecord) -> None:
        counts = [getattr(interval.counts, name) for name in _COUNT_COLUMNS]
        service = [getattr(interval.service, name) for name in _LATENCY_COLUMNS]
        response = [getattr(interval.response, name) for name in _LATENCY_COLUMNS]
        values: list[object] = [run_id, interval.index, interval.start_s, interval.duration_s]
        values += counts + service + response
        values += [interval.service_histogram, interval.response_histogram]
        with self._db:
            self._db.execute(
                f"INSERT INTO intervals ({', '.join(_INTERVAL_COLUMNS)})"
                f" VALUES ({','.join('?' * len(values))})",
                values,
            )

    def end_run(
        self,
        run_id: int,
        status: str,
        totals: RunTotals | None = None,
        summary: dict[str, Any] | None = None,
        problem: str | None = None,
    ) -> None:
        totals_json = None
        if totals is not None:
            plain = asdict(totals)
            for name in ("service_histogram", "response_histogram", "errors"):
                plain.pop(name)
            totals_json = json.dumps(plain)
        with self._db:
            self._db.execute(
                "UPDATE runs SET status=?, ended_at=?, totals_json=?, summary_json=?, problem=?"
                " WHERE id=?",
                (
                    status,
                    _now(),
                    totals_json,
                    json.dumps(summary) if summary else None,
                    problem,
                    run_id,
                ),
            )
            if totals is not None:
                for name in ("service", "response"):
                    encoded = getattr(totals, f"{name}_histogram")
                    if encoded:
                        self._db.execute(
                            "INSERT OR REPLACE INTO histograms VALUES (?,?,?)",
                            (run_id, name, encoded),
                        )
                self._db.executemany(
                    "INSERT INTO errors VALUES (?,?,?,?)",
                    [(run_id, e.kind, e.count, e.example) for e in totals.errors],
                )

    def set_summary(self, run_id: int, summary: dict[str, Any]) -> None:
        with self._db:
            self._db.execute(
                "UPDATE runs SET summary_json=? WHERE id=?", (json.dumps(summary), run_id)
            )

    # -- reading ----------------------------------------------------------------------------

    def _stored(self, row: sqlite3.Row) -> StoredRun:
        status = row["status"]
        if status == "running" and not (
            row["hostname"] == socket.gethostname() and _pid_alive(row["pid"])
        ):
            status = "interrupted"  # its process died without saying so
        return StoredRun(
            id=row["id"],
            workload=row["workload"],
            variant=row["variant"],
            status=status,
            started_at=row["started_at"],
            ended_at=row["ended_at"],
            hostname=row["hostname"],
            plan=_json(row["plan_json"]),
            target=_json(row["target_json"]),
            environment=_json(row["environment_json"]),
            totals=_json(row["totals_json"]),
            summary=_json(row["summary_json"]),
            problem=row["problem"],
        )

    def runs(self, limit: int = 50) -> list[StoredRun]:
        rows = self._db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,))
        return [self._stored(row) for row in rows]

    def run(self, run_id: int) -> StoredRun:
        row = self._db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise UsageError("run", run_id, f"is not in {self.path}", "see shardlab runs list")
        return self._stored(row)

    def intervals(self, run_id: int) -> list[IntervalRecord]:
        rows = self._db.execute(
            "SELECT * FROM intervals WHERE run_id=? ORDER BY idx", (run_id,)
        ).fetchall()
        return [
            IntervalRecord(
                index=row["idx"],
                start_s=row["start_s"],
                duration_s=row["duration_s"],
                counts=Counts.of({name: row[name] for name in _COUNT_COLUMNS}),
                service=Latency.of({n: row[f"service_{n}"] for n in _LATENCY_COLUMNS}),
                response=Latency.of({n: row[f"response_{n}"] for n in _LATENCY_COLUMNS}),
                service_histogram=row["service_histogram"] or b"",
                response_histogram=row["response_histogram"] or b"",
            )
            for row in rows
        ]

    def histogram(self, run_id: int, name: str) -> bytes | None:
        row = self._db.execute(
            "SELECT encoded FROM histograms WHERE run_id=? AND name=?", (run_id, name)
        ).fetchone()
        return None if row is None else bytes(row["encoded"])

    def errors(self, run_id: int) -> list[ErrorKind]:
        rows = self._db.execute(
            "SELECT kind, count, example FROM errors WHERE run_id=? ORDER BY count DESC", (run_id,)
        )
        return [ErrorKind(row["kind"], row["count"], row["example"]) for row in rows]
