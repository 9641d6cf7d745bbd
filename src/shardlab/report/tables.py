"""Terminal tables of stored runs: the list of runs, one run's intervals, its timeline of
load beside telemetry, and its errors."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from shardlab.analysis.timeline import Column, TimelineRow
from shardlab.report.records import list_record
from shardlab.report.run_view import num
from shardlab.results import ErrorSample, Interval
from shardlab.store import StoredRun


def runs_table(runs: list[StoredRun]) -> Table:
    table = Table(title="shardlab runs", title_justify="left")
    for header, justify in (
        ("id", "right"),
        ("started (UTC)", "left"),
        ("workload", "left"),
        ("status", "left"),
        ("shards/replicas/refresh", "left"),
        ("clients", "right"),
        ("# samples", "right"),
        ("docs/s", "right"),
        ("avg service ms", "right"),
        ("p99 service ms", "right"),
        ("error rate", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for run in runs:
        record = list_record(run)
        samples, error_rate = record["samples"], record["error_rate"]
        table.add_row(
            str(run.id),
            run.started_at.replace("T", " ").removesuffix("+00:00"),
            f"{run.workload}/{run.variant}",
            run.status,
            f"{record['shards']}/{record['replicas']}/{record['refresh_interval']}",
            str(record["clients"] or ""),
            f"{samples:,}" if samples is not None else "-",
            num(record["docs_per_s"]),
            num(record["service_mean_ms"]),
            num(record["service_p99_ms"]),
            f"{error_rate:.2%}" if error_rate is not None else "-",
        )
    return table


def intervals_table(intervals: list[Interval]) -> Table:
    table = Table(title="per interval", title_justify="left")
    for header in (
        "end (s)",
        "length (s)",
        "requests",
        "docs/s",
        "service p50 ms",
        "service p99 ms",
        "response p99 ms",
        "max service ms",
        "lag max ms",
        "429",
        "errors",
    ):
        table.add_column(header, justify="right")
    for interval in intervals:
        counters = interval.counters
        per_s = 1.0 / interval.duration_s if interval.duration_s > 0 else 0.0
        table.add_row(
            f"{interval.start_s + interval.duration_s:.1f}",
            f"{interval.duration_s:.2f}",
            f"{counters.requests:,}",
            num(counters.docs_acked * per_s),
            num(interval.service.p50_ms),
            num(interval.service.p99_ms),
            num(interval.response.p99_ms),
            num(interval.service.max_ms),
            num(interval.schedule_lag_max_ms),
            f"{counters.docs_rejected:,}",
            f"{counters.requests_with_errors:,}",
        )
    return table


def timeline_table(title: str, columns: Sequence[Column], rows: Sequence[TimelineRow]) -> Table:
    """The load of each interval beside the telemetry of the same seconds."""
    table = Table(title=title, title_justify="left")
    for header in ("end (s)", "docs/s", "service p99 ms", "response p99 ms", "rejected docs"):
        table.add_column(header, justify="right")
    for column in columns:
        table.add_column(column.heading, justify="right")
    for row in rows:
        table.add_row(
            f"{row.since_start_s:.1f}",
            num(row.docs_per_s),
            num(row.service_p99_ms),
            num(row.response_p99_ms),
            f"{row.rejected_docs:,}",
            *(num(value) for value in row.values),
        )
    return table


def errors_table(errors: list[ErrorSample]) -> Table:
    table = Table(title="errors", title_justify="left")
    table.add_column("count", justify="right")
    table.add_column("kind")
    table.add_column("first seen")
    for error in errors:
        table.add_row(f"{error.count:,}", error.kind, error.example)
    return table
