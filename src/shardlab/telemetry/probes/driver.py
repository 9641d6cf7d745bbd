"""This process, the driver (source `driver`): its CPU split between the native engine's
threads and Python, and its memory, so a run can show whether the driver was the limit.

The engine names its threads `shardlab-engine`; Linux cuts a thread's comm to 15
characters, so they read `shardlab-engine` or, with a suffix, `shardlab-engi…`. Only
Linux tells a thread's name (/proc/<pid>/task/<tid>/comm); elsewhere the probe gives the
process totals only.

A thread's time vanishes from the per-thread list when it ends, while the process total
keeps it; the probe therefore remembers the last time seen of every engine thread, so that
`engine.cpu_time_ms_total` never goes down (the time an engine thread spends between its
last sample and its end counts as Python's).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import psutil

from shardlab.telemetry.probe import ProbeContext, Row, Sample

NAME = "driver"
SOURCE = "driver"
ENGINE_COMM_PREFIX = "shardlab-engi"  # "shardlab-engine" as cut to 15 characters by Linux


@dataclass(frozen=True)
class ThreadTime:
    tid: int
    comm: str | None  # None if the thread ended before its name was read
    cpu_s: float  # user + system


@dataclass(frozen=True)
class DriverReading:
    process_cpu_s: float  # user + system of the whole process
    rss_bytes: int
    threads: tuple[ThreadTime, ...] | None  # None where threads cannot be named


class EngineTime:
    """The engine threads' CPU time, kept monotonic across threads that end (its state is
    the last time seen per thread)."""

    def __init__(self) -> None:
        self._last_s: dict[int, float] = {}
        self._ended_s = 0.0  # threads whose tid was reused by a new thread

    def update(self, threads: Sequence[ThreadTime]) -> float:
        for thread in threads:
            if thread.comm is None or not thread.comm.startswith(ENGINE_COMM_PREFIX):
                continue
            before_s = self._last_s.get(thread.tid, 0.0)
            if thread.cpu_s < before_s:  # a new thread with a reused tid
                self._ended_s += before_s
            self._last_s[thread.tid] = thread.cpu_s
        return self._ended_s + sum(self._last_s.values())


def driver_samples(
    reading: DriverReading,
    engine_cpu_s: float | None,
    now_unix_s: float,
    python_floor_s: float = 0.0,
) -> list[Sample]:
    """The driver's rows; `engine_cpu_s` None where threads cannot be named (pure).

    The Python side is the process minus the engine's threads, two readings taken a moment
    apart and each rounded to clock ticks: it can come out a tick below the last sample.
    A counter that goes down reads as a restart (its whole value counted again), so it is
    held at `python_floor_s`, the last value sampled."""

    def sample(metric: str, value: float) -> Sample:
        return Sample(now_unix_s, NAME, SOURCE, metric, value)

    samples = [
        sample("process.cpu_time_ms_total", reading.process_cpu_s * 1000),
        sample("process.rss_bytes", reading.rss_bytes),
    ]
    if engine_cpu_s is not None:
        samples.append(sample("engine.cpu_time_ms_total", engine_cpu_s * 1000))
        python_s = max(python_floor_s, reading.process_cpu_s - engine_cpu_s)
        samples.append(sample("python.cpu_time_ms_total", python_s * 1000))
    return samples


def read_thread_comm(pid: int, tid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/task/{tid}/comm") as comm:
            return comm.read().strip()
    except OSError:  # the thread ended since it was listed
        return None


def read_driver(process: psutil.Process) -> DriverReading:
    # the threads first: the process total read after them is never below their sum
    threads: tuple[ThreadTime, ...] | None = None
    if os.path.isdir(f"/proc/{process.pid}/task"):
        threads = tuple(
            ThreadTime(
                thread.id,
                read_thread_comm(process.pid, thread.id),
                thread.user_time + thread.system_time,
            )
            for thread in process.threads()
        )
    times = process.cpu_times()
    return DriverReading(times.user + times.system, process.memory_info().rss, threads)


class DriverProbe:
    name = NAME

    def __init__(self, pid: int, read: Callable[[], DriverReading] | None = None) -> None:
        process = psutil.Process(pid)
        self._read = read or (lambda: read_driver(process))
        self._engine = EngineTime()
        self._python_s = 0.0

    def sample(self, now_unix_s: float) -> Sequence[Row]:
        reading = self._read()
        engine_s = None if reading.threads is None else self._engine.update(reading.threads)
        rows = driver_samples(reading, engine_s, now_unix_s, self._python_s)
        for row in rows:
            if row.metric == "python.cpu_time_ms_total":
                self._python_s = row.value / 1000
        return rows

    def close(self, now_unix_s: float) -> Sequence[Row]:
        return []


def probe_for(context: ProbeContext) -> DriverProbe | None:
    if not psutil.pid_exists(context.driver_pid):
        return None
    return DriverProbe(context.driver_pid)
