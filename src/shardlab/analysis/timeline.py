"""The load and the telemetry side by side, interval by interval, on the one wall clock:
what `runs show --telemetry` prints, so that a dip in docs/s can be read against what the
nodes, the host and the driver did in the same second (pure).

A gauge shows its mean over the interval's samples; a counter (`..._total`) its increase
over the interval divided by the time between the samples that bound it, i.e. a rate per
second, or the plain increase where a count reads better (rejections, refreshes).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from shardlab.analysis.rates import Point, SeriesKey, is_counter, series_by_key
from shardlab.results import Interval
from shardlab.telemetry.probe import Sample


@dataclass(frozen=True)
class Column:
    """One column of a timeline: a metric of a source, shown as `heading`."""

    source: str
    metric: str
    heading: str
    per_s: bool = True  # counters: a rate per second, or else the increase in the interval
    scale: float = 1.0  # the value is divided by this (bytes -> MB)


NODE_COLUMNS = (
    ("process.cpu_percent", "CPU %", True, 1.0),
    ("thread_pool.write.queue", "write queue", True, 1.0),
    ("thread_pool.write.rejected_total", "rejected", False, 1.0),
    ("merges.current", "merging", True, 1.0),
    ("refresh.count_total", "refreshes", False, 1.0),
    ("jvm.gc.young.time_ms_total", "young GC ms/s", True, 1.0),
    ("jvm.gc.old.time_ms_total", "old GC ms/s", True, 1.0),
    ("jvm.heap_used_bytes", "heap MB", True, 1e6),
    ("fs.io.write_bytes_total", "disk write MB/s", True, 1e6),
)
HOST_COLUMNS = (
    Column("host", "cpu.user_percent", "host user %"),
    Column("host", "cpu.iowait_percent", "host iowait %"),
    Column("host", "disk.write_bytes_per_s", "host disk write MB/s", scale=1e6),
    Column("driver", "engine.cpu_time_ms_total", "engine CPU ms/s"),
    Column("driver", "python.cpu_time_ms_total", "python CPU ms/s"),
)


def node_columns(node: str) -> tuple[Column, ...]:
    return tuple(
        Column(node, metric, heading, per_s, scale)
        for metric, heading, per_s, scale in NODE_COLUMNS
    )


def _last_at_or_before(points: Sequence[Point], times: Sequence[float], t: float) -> Point | None:
    i = bisect.bisect_right(times, t)
    return points[i - 1] if i else None


def value_in(points: Sequence[Point], column: Column, start: float, end: float) -> float | None:
    """The column's value over [start, end), or None without samples there."""
    times = [p[0] for p in points]
    if is_counter(column.metric):
        first = _last_at_or_before(points, times, start)
        last = _last_at_or_before(points, times, end)
        if first is None or last is None or last[0] <= first[0]:
            return None
        increase = last[1] - first[1] if last[1] >= first[1] else last[1]  # a restart
        value = increase / (last[0] - first[0]) if column.per_s else increase
    else:
        inside = [v for t, v in points if start <= t < end]
        if not inside:
            return None
        value = sum(inside) / len(inside)
    return value / column.scale


@dataclass(frozen=True)
class TimelineRow:
    since_start_s: float  # the interval's end, in seconds since the run started
    docs_per_s: float
    service_p99_ms: float
    response_p99_ms: float
    rejected_docs: int
    values: tuple[float | None, ...]  # one per column


def timeline(
    intervals: Sequence[Interval], samples: Sequence[Sample], columns: Sequence[Column]
) -> list[TimelineRow]:
    series: dict[SeriesKey, list[Point]] = series_by_key(samples)
    rows = []
    for interval in intervals:
        start = interval.start_unix_s
        end = start + interval.duration_s
        per_s = 1.0 / interval.duration_s if interval.duration_s > 0 else 0.0
        rows.append(
            TimelineRow(
                since_start_s=interval.start_s + interval.duration_s,
                docs_per_s=interval.counters.docs_acked * per_s,
                service_p99_ms=interval.service.p99_ms,
                response_p99_ms=interval.response.p99_ms,
                rejected_docs=interval.counters.docs_rejected,
                values=tuple(
                    value_in(series.get((c.source, c.metric), []), c, start, end) for c in columns
                ),
            )
        )
    return rows
