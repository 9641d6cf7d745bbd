"""Telemetry in the store: each (probe, source, metric) of a run is a series with its points;
events keep their detail as JSON. Written in one batch per interval by the run, read back as
the same `Sample` and `Event` rows the probes made."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from shardlab.telemetry.probe import Event, Row, Sample


class TelemetryTables:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._series_ids: dict[tuple[int, str, str, str], int] = {}

    def _series_id(self, run_id: int, sample: Sample) -> int:
        key = (run_id, sample.probe, sample.source, sample.metric)
        found = self._series_ids.get(key)
        if found is None:
            self._db.execute(
                "INSERT OR IGNORE INTO telemetry_series (run_id, probe, source, metric)"
                " VALUES (?,?,?,?)",
                key,
            )
            found = self._db.execute(
                "SELECT id FROM telemetry_series WHERE run_id=? AND probe=? AND source=?"
                " AND metric=?",
                key,
            ).fetchone()[0]
            self._series_ids[key] = found
        return found

    def add(self, run_id: int, rows: Iterable[Row]) -> None:
        points: list[tuple[int, float, float]] = []
        events: list[tuple[int, float, str, str, str]] = []
        with self._db:
            for row in rows:
                if isinstance(row, Sample):
                    points.append((self._series_id(run_id, row), row.time_unix_s, row.value))
                else:
                    detail = json.dumps(row.detail, sort_keys=True)
                    events.append((run_id, row.time_unix_s, row.probe, row.kind, detail))
            self._db.executemany("INSERT INTO telemetry_points VALUES (?,?,?)", points)
            self._db.executemany("INSERT INTO events VALUES (?,?,?,?,?)", events)

    def samples(self, run_id: int, probe: str | None = None) -> list[Sample]:
        query = (
            "SELECT s.probe, s.source, s.metric, p.time_unix_s, p.value FROM telemetry_points p"
            " JOIN telemetry_series s ON s.id = p.series_id WHERE s.run_id=?"
        )
        arguments: tuple[object, ...] = (run_id,)
        if probe is not None:
            query += " AND s.probe=?"
            arguments += (probe,)
        rows = self._db.execute(query + " ORDER BY p.time_unix_s, s.id", arguments)
        return [
            Sample(row["time_unix_s"], row["probe"], row["source"], row["metric"], row["value"])
            for row in rows
        ]

    def events(self, run_id: int) -> list[Event]:
        rows = self._db.execute(
            "SELECT * FROM events WHERE run_id=? ORDER BY time_unix_s, rowid", (run_id,)
        )
        return [
            Event(row["time_unix_s"], row["probe"], row["kind"], json.loads(row["detail_json"]))
            for row in rows
        ]

    def counts(self, run_id: int) -> dict[str, int]:
        """Points stored per probe, for `runs show` and `runs list`."""
        rows = self._db.execute(
            "SELECT s.probe, COUNT(*) AS n FROM telemetry_points p JOIN telemetry_series s"
            " ON s.id = p.series_id WHERE s.run_id=? GROUP BY s.probe",
            (run_id,),
        )
        return {row["probe"]: row["n"] for row in rows}
