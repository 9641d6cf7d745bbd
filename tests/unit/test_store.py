import os
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from shardlab.results import Counters, ErrorSample, Interval, LatencySummary, Totals
from shardlab.store import SCHEMA_VERSION, Store
from shardlab.telemetry.probe import Event, Sample


def interval(index: int, docs: int) -> Interval:
    return Interval(
        index=index,
        start_s=float(index),
        duration_s=1.0,
        counters=Counters(
            requests=docs // 1000, requests_ok=docs // 1000, docs_sent=docs, docs_acked=docs
        ),
        service=LatencySummary(
            count=docs // 1000, mean_ms=12.5, p50_ms=12.0, p99_ms=20.0, max_ms=21.0
        ),
        response=LatencySummary(count=docs // 1000, mean_ms=13.0),
        service_histogram=b"\x1c\x84\x93\x14",
        response_histogram=b"\x1c\x85",
    )


def test_a_run_round_trips_through_a_real_sqlite_file(tmp_path):
    path = tmp_path / "runs.sqlite"
    with Store(path) as store:
        run_id = store.begin_run(
            "systembase", "bulk", {"clients": 8}, {"urls": ["u"]}, {"cpu_count": 2}
        )
        store.add_interval(run_id, interval(0, 3000))
        store.add_interval(run_id, interval(1, 4000))
        totals = Totals(
            elapsed_s=2.0,
            stopped_by="duration",
            in_flight_abandoned=0,
            counters=Counters(requests=7, requests_ok=7, docs_sent=7000, docs_acked=7000),
            service=LatencySummary(count=7),
            response=LatencySummary(count=7),
            errors=(ErrorSample("http 503", 2, "unavailable"),),
            service_histogram=b"abc",
        )
        store.end_run(run_id, "completed", totals, {"samples": 7})

    with Store(path) as store:  # a second process a week later
        run = store.run(run_id)
        assert run.status == "completed"
        assert run.plan == {"clients": 8}
        assert run.summary == {"samples": 7}
        assert run.totals["counters"]["docs_acked"] == 7000
        series = store.intervals(run_id)
        assert [i.counters.docs_acked for i in series] == [3000, 4000]
        assert series[1].service.p99_ms == 20.0
        assert series[0].service_histogram == b"\x1c\x84\x93\x14"
        assert store.histogram(run_id, "service") == b"abc"
        assert store.errors(run_id) == [ErrorSample("http 503", 2, "unavailable")]
        assert [r.id for r in store.runs()] == [run_id]


def test_a_run_whose_process_died_reads_as_interrupted(tmp_path):
    path = tmp_path / "runs.sqlite"
    with Store(path) as store:
        run_id = store.begin_run("systembase", "bulk", {}, {}, {})
        store.add_interval(run_id, interval(0, 1000))
        assert store.run(run_id).status == "running"  # this process is alive
    dead_pid = 2**22 + 12345  # above Linux's pid_max default: no such process
    with sqlite3.connect(path) as db:
        db.execute("UPDATE runs SET pid=? WHERE id=?", (dead_pid, run_id))
    with Store(path) as store:
        run = store.run(run_id)
        assert run.status == "interrupted"
        assert len(store.intervals(run_id)) == 1
    assert os.path.exists(path)


PREVIOUS_RELEASE_STORE = Path(__file__).parent.parent / "fixtures" / "store-schema2.sqlite"


def test_a_version_1_store_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(PREVIOUS_RELEASE_STORE, path)
    with sqlite3.connect(path) as db:  # take it back to schema 1, which had no response clock
        db.execute("ALTER TABLE intervals DROP COLUMN response_histogram")
        db.execute("PRAGMA user_version = 1")
    with Store(path) as store:
        store.add_interval(1, interval(100, 2000))
        series = store.intervals(1)
    assert series[0].response_histogram == b"" and series[-1].response_histogram == b"\x1c\x85"
    assert series[-1].counters.docs_acked == 2000
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_store_written_by_the_previous_release_opens_lists_and_shows(tmp_path):
    """tests/fixtures/store-schema2.sqlite was written by the release before telemetry: a
    completed run into a null sink and an interrupted one."""
    path = tmp_path / "previous.sqlite"
    shutil.copy(PREVIOUS_RELEASE_STORE, path)
    with Store(path) as store:
        runs = store.runs()
        assert [(r.id, r.status) for r in runs] == [(2, "interrupted"), (1, "completed")]
        completed = store.run(1)
        assert completed.totals is not None
        assert completed.totals["counters"]["docs_acked"] == 600_000  # stored as `counts`
        series = store.intervals(1)
        assert sum(i.counters.docs_acked for i in series) == 600_000
        # no wall clock was stored: intervals are placed from the run's start time
        started = datetime.fromisoformat(completed.started_at).timestamp()
        assert series[0].start_unix_s == started
        assert series[1].start_unix_s == pytest.approx(started + series[1].start_s)
        assert store.samples(1) == [] and store.events(1) == []
        # and it keeps working as a store of today's schema
        run_id = store.begin_run("systembase", "bulk", {}, {}, {}, engine_spec={"clients": 1})
        assert store.run(run_id).engine_spec == {"clients": 1}


def test_telemetry_round_trips_as_samples_and_events(tmp_path):
    path = tmp_path / "runs.sqlite"
    rows = [
        Sample(100.0, "nodes", "node-1", "jvm.heap_used_bytes", 5e8),
        Sample(100.0, "nodes", "node-2", "jvm.heap_used_bytes", 4e8),
        Event(100.5, "cluster", "health", {"status": "yellow", "number_of_nodes": 2}),
        Sample(101.0, "nodes", "node-1", "jvm.heap_used_bytes", 6e8),
    ]
    with Store(path) as store:
        run_id = store.begin_run("systembase", "bulk", {}, {}, {})
        other = store.begin_run("systembase", "bulk", {}, {}, {})
        store.add_telemetry(run_id, rows[:2])
        store.add_telemetry(run_id, rows[2:])
        store.add_telemetry(other, [Sample(7.0, "host", "host", "cpu.user_percent", 12.5)])
    with Store(path) as store:
        assert store.samples(run_id) == [rows[0], rows[1], rows[3]]
        assert store.samples(run_id, probe="host") == []
        assert store.events(run_id) == [rows[2]]
        assert store.telemetry.counts(run_id) == {"nodes": 3}
        assert store.samples(other) == [Sample(7.0, "host", "host", "cpu.user_percent", 12.5)]
