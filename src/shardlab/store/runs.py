"""The results store: one SQLite file holding every run's plan, compiled engine spec,
environment, per-interval series and histograms, telemetry, errors and summary.

A run's row is written before the load starts, each interval as soon as it arrives, and the
telemetry in one batch per interval, so a run that is interrupted or crashes keeps what it
measured. A row left `running` by a process that no longer exists reads back as
`interrupted`.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shardlab.errors import UsageError
from shardlab.results import Counters, ErrorSample, Interval, LatencySummary, Totals
from shardlab.store.schema import COUNT_COLUMNS, INTERVAL_COLUMNS, LATENCY_COLUMNS, open_database
from shardlab.store.telemetry import TelemetryTables
from shardlab.telemetry.probe import Event, Row, Sample


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
    engine_spec: dict[str, Any] | None = None
    started_unix_s: float | None = None
    # what was observed after the load and cannot be recomputed: the index count, problems
    conclusion: dict[str, Any] | None = None


@dataclass(frozen=True)
class RunData:
    """Everything stored about one run: what reports and analysis are computed from."""

    run: StoredRun
    intervals: list[Interval]
    samples: list[Sample]
    events: list[Event]
    errors: list[ErrorSample]


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


def _totals_json(text: str | None) -> dict[str, Any] | None:
    totals: dict[str, Any] | None = _json(text)
    if totals is not None and "counts" in totals:  # schema 2 named them `counts`
        totals["counters"] = totals.pop("counts")
    return totals


def _wall_start(row: sqlite3.Row, run_started_unix_s: float) -> float:
    stored = row["start_unix_s"]
    return float(stored) if stored is not None else run_started_unix_s + row["start_s"]


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = open_database(path)
        self.telemetry = TelemetryTables(self._db)

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
        engine_spec: dict[str, Any] | None = None,
    ) -> int:
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO runs (workload, variant, status, started_at, hostname, pid,"
                " plan_json, target_json, environment_json, engine_spec_json)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
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
                    json.dumps(engine_spec) if engine_spec is not None else None,
                ),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_interval(self, run_id: int, interval: Interval) -> None:
        counts = [getattr(interval.counters, name) for name in COUNT_COLUMNS]
        service = [getattr(interval.service, name) for name in LATENCY_COLUMNS]
        response = [getattr(interval.response, name) for name in LATENCY_COLUMNS]
        values: list[object] = [run_id, interval.index, interval.start_s, interval.duration_s]
        values += counts + service + response
        values += [interval.service_histogram, interval.response_histogram]
        values += [interval.start_unix_s, interval.schedule_lag_max_ms]
        values += [getattr(interval.failed_service, name) for name in LATENCY_COLUMNS]
        values += [interval.failed_histogram]
        with self._db:
            self._db.execute(
                f"INSERT INTO intervals ({', '.join(INTERVAL_COLUMNS)})"
                f" VALUES ({','.join('?' * len(values))})",
                values,
            )

    def end_run(
        self,
        run_id: int,
        status: str,
        totals: Totals | None = None,
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
                "UPDATE runs SET status=?, ended_at=?, totals_json=?, summary_json=?, problem=?,"
                " started_unix_s=COALESCE(?, started_unix_s) WHERE id=?",
                (
                    status,
                    _now(),
                    totals_json,
                    json.dumps(summary) if summary else None,
                    problem,
                    totals.started_unix_s if totals is not None else None,
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

    def add_telemetry(self, run_id: int, rows: Iterable[Row]) -> None:
        self.telemetry.add(run_id, rows)

    def set_conclusion(self, run_id: int, conclusion: dict[str, Any]) -> None:
        with self._db:
            self._db.execute(
                "UPDATE runs SET conclusion_json=? WHERE id=?", (json.dumps(conclusion), run_id)
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
            totals=_totals_json(row["totals_json"]),
            summary=_json(row["summary_json"]),
            problem=row["problem"],
            engine_spec=_json(row["engine_spec_json"]),
            started_unix_s=row["started_unix_s"],
            conclusion=_json(row["conclusion_json"]),
        )

    def runs(self, limit: int = 50) -> list[StoredRun]:
        rows = self._db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,))
        return [self._stored(row) for row in rows]

    def run(self, run_id: int) -> StoredRun:
        row = self._db.execute("SELECT * FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise UsageError("run", run_id, f"is not in {self.path}", "see shardlab runs list")
        return self._stored(row)

    def intervals(self, run_id: int) -> list[Interval]:
        run_started_unix_s = self._started_unix_s(run_id)
        rows = self._db.execute(
            "SELECT * FROM intervals WHERE run_id=? ORDER BY idx", (run_id,)
        ).fetchall()
        return [
            Interval(
                index=row["idx"],
                start_s=row["start_s"],
                duration_s=row["duration_s"],
                counters=Counters.of({name: row[name] for name in COUNT_COLUMNS}),
                service=LatencySummary.of({n: row[f"service_{n}"] for n in LATENCY_COLUMNS}),
                response=LatencySummary.of({n: row[f"response_{n}"] for n in LATENCY_COLUMNS}),
                service_histogram=row["service_histogram"] or b"",
                response_histogram=row["response_histogram"] or b"",
                start_unix_s=_wall_start(row, run_started_unix_s),
                schedule_lag_max_ms=row["schedule_lag_max_ms"],
                failed_service=LatencySummary.of(
                    {n: row[f"failed_service_{n}"] for n in LATENCY_COLUMNS}
                ),
                failed_histogram=row["failed_histogram"] or b"",
            )
            for row in rows
        ]

    def _started_unix_s(self, run_id: int) -> float:
        """The run's start on the wall clock; a run stored before the engine reported it
        (schema 2) has only its ISO start time, good to the second."""
        row = self._db.execute(
            "SELECT started_unix_s, started_at FROM runs WHERE id=?", (run_id,)
        ).fetchone()
        if row is None:
            return 0.0
        if row["started_unix_s"] is not None:
            return float(row["started_unix_s"])
        return datetime.fromisoformat(row["started_at"]).timestamp()

    def run_data(self, run_id: int) -> RunData:
        return RunData(
            self.run(run_id),
            self.intervals(run_id),
            self.samples(run_id),
            self.events(run_id),
            self.errors(run_id),
        )

    def samples(self, run_id: int, probe: str | None = None) -> list[Sample]:
        return self.telemetry.samples(run_id, probe)

    def events(self, run_id: int) -> list[Event]:
        return self.telemetry.events(run_id)

    def histogram(self, run_id: int, name: str) -> bytes | None:
        row = self._db.execute(
            "SELECT encoded FROM histograms WHERE run_id=? AND name=?", (run_id, name)
        ).fetchone()
        return None if row is None else bytes(row["encoded"])

    def errors(self, run_id: int) -> list[ErrorSample]:
        rows = self._db.execute(
            "SELECT kind, count, example FROM errors WHERE run_id=? ORDER BY count DESC", (run_id,)
        )
        return [ErrorSample(row["kind"], row["count"], row["example"]) for row in rows]
