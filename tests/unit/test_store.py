import os
import sqlite3

from shardlab.results import Counts, ErrorKind, IntervalRecord, Latency, RunTotals
from shardlab.store import Store


def interval(index: int, docs: int) -> IntervalRecord:
    return IntervalRecord(
        index=index,
        start_s=float(index),
        duration_s=1.0,
        counts=Counts(
            requests=docs // 1000, requests_ok=docs // 1000, docs_sent=docs, docs_acked=docs
        ),
        service=Latency(count=docs // 1000, mean_ms=12.5, p50_ms=12.0, p99_ms=20.0, max_ms=21.0),
        response=Latency(count=docs // 1000, mean_ms=13.0),
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
        totals = RunTotals(
            elapsed_s=2.0,
            stopped_by="duration",
            in_flight_abandoned=0,
            counts=Counts(requests=7, requests_ok=7, docs_sent=7000, docs_acked=7000),
            service=Latency(count=7),
            response=Latency(count=7),
            errors=(ErrorKind("http 503", 2, "unavailable"),),
            service_histogram=b"abc",
        )
        store.end_run(run_id, "completed", totals, {"samples": 7})

    with Store(path) as store:  # a second process a week later
        run = store.run(run_id)
        assert run.status == "completed"
        assert run.plan == {"clients": 8}
        assert run.summary == {"samples": 7}
        assert run.totals["counts"]["docs_acked"] == 7000
        series = store.intervals(run_id)
        assert [i.counts.docs_acked for i in series] == [3000, 4000]
        assert series[1].service.p99_ms == 20.0
        assert series[0].service_histogram == b"\x1c\x84\x93\x14"
        assert store.histogram(run_id, "service") == b"abc"
        assert store.errors(run_id) == [ErrorKind("http 503", 2, "unavailable")]
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


def test_a_version_1_store_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.sqlite"
    with Store(path) as store:
        run_id = store.begin_run("systembase", "bulk", {}, {}, {})
        store.add_interval(run_id, interval(0, 1000))
    with sqlite3.connect(path) as db:  # make it look like a store written by schema 1
        db.execute("ALTER TABLE intervals DROP COLUMN response_histogram")
        db.execute("PRAGMA user_version = 1")
    with Store(path) as store:
        store.add_interval(run_id, interval(1, 2000))
        series = store.intervals(run_id)
    assert [i.counts.docs_acked for i in series] == [1000, 2000]
    assert series[0].response_histogram == b"" and series[1].response_histogram == b"\x1c\x85"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2
