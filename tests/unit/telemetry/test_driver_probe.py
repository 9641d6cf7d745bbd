"""The driver probe: the engine's share of this process's CPU, kept monotonic when engine
threads end, and one real measurement of a thread named like the engine's."""

import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from shardlab.telemetry.probes.driver import (
    DriverProbe,
    DriverReading,
    EngineTime,
    ThreadTime,
    driver_samples,
    read_driver,
)


def values(samples):
    assert {(s.probe, s.source) for s in samples} == {("driver", "driver")}
    return {s.metric: s.value for s in samples}


def test_the_engine_and_python_split_the_process_time():
    reading = DriverReading(process_cpu_s=3.0, rss_bytes=50_000_000, threads=())
    assert values(driver_samples(reading, 2.25, 1.0)) == {
        "process.cpu_time_ms_total": 3000.0,
        "process.rss_bytes": 50_000_000,
        "engine.cpu_time_ms_total": 2250.0,
        "python.cpu_time_ms_total": 750.0,
    }


def test_without_thread_names_only_the_process_totals():
    reading = DriverReading(process_cpu_s=3.0, rss_bytes=1, threads=None)
    assert set(values(driver_samples(reading, None, 1.0))) == {
        "process.cpu_time_ms_total",
        "process.rss_bytes",
    }


def test_engine_time_counts_only_engine_threads_and_never_goes_down():
    engine = EngineTime()
    main = ThreadTime(1, "python", 5.0)
    assert engine.update([main, ThreadTime(2, "shardlab-engine", 1.0)]) == 1.0
    assert (
        engine.update(
            [main, ThreadTime(2, "shardlab-engine", 1.5), ThreadTime(3, "shardlab-engi", 0.5)]
        )
        == 2.0
    )
    assert engine.update([main, ThreadTime(3, "shardlab-engi", 0.75)]) == 2.25  # tid 2 ended
    assert engine.update([main, ThreadTime(3, "shardlab-engine", 0.25)]) == 2.5  # tid 3 reused
    assert engine.update([ThreadTime(4, None, 9.0)]) == 2.5  # ended before its name was read


def test_the_probe_feeds_engine_time_from_its_readings():
    readings = iter(
        [
            DriverReading(1.0, 10, (ThreadTime(7, "shardlab-engine", 0.5),)),
            DriverReading(2.0, 10, ()),  # the engine thread ended
        ]
    )
    probe = DriverProbe(pid=1, read=lambda: next(readings))
    assert values(probe.sample(1.0))["engine.cpu_time_ms_total"] == 500
    second = values(probe.sample(2.0))
    assert second["engine.cpu_time_ms_total"] == 500
    assert second["python.cpu_time_ms_total"] == 1500
    assert probe.close(3.0) == []


def test_the_python_side_never_goes_down_when_readings_round_apart():
    # process and thread times are read a moment apart, each in clock ticks: the second
    # reading's difference is a tick below the first, which must not read as a restart
    readings = iter(
        [
            DriverReading(1.00, 10, (ThreadTime(7, "shardlab-engine", 0.50),)),
            DriverReading(1.01, 10, (ThreadTime(7, "shardlab-engine", 0.52),)),
            DriverReading(1.10, 10, (ThreadTime(7, "shardlab-engine", 0.55),)),
        ]
    )
    probe = DriverProbe(pid=1, read=lambda: next(readings))
    python_ms = [values(probe.sample(t))["python.cpu_time_ms_total"] for t in (1.0, 2.0, 3.0)]
    assert python_ms == pytest.approx([500, 500, 550])


@pytest.mark.skipif(sys.platform != "linux", reason="thread names come from /proc")
def test_a_real_thread_named_like_the_engine_is_counted_as_the_engine():
    burnt = threading.Event()
    done = threading.Event()

    def busy_engine() -> None:
        Path(f"/proc/self/task/{threading.get_native_id()}/comm").write_text("shardlab-engine")
        end_s = time.thread_time() + 0.1
        while time.thread_time() < end_s:
            pass
        burnt.set()
        done.wait(5)

    thread = threading.Thread(target=busy_engine)
    thread.start()
    try:
        assert burnt.wait(5)
        reading = read_driver(psutil.Process())
    finally:
        done.set()
        thread.join()
    assert reading.threads is not None
    shares = values(driver_samples(reading, EngineTime().update(reading.threads), 1.0))
    # /proc counts in clock ticks (10 ms): 100 ms of thread time reads as 90 to 110
    assert 80 <= shares["engine.cpu_time_ms_total"] <= 200
    assert shares["process.cpu_time_ms_total"] >= shares["engine.cpu_time_ms_total"]
    assert shares["python.cpu_time_ms_total"] == pytest.approx(
        shares["process.cpu_time_ms_total"] - shares["engine.cpu_time_ms_total"]
    )
    assert shares["process.rss_bytes"] > 0
