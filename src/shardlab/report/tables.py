"""Terminal tables: the seed-style summary of a run, the list of stored runs, one run's series."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from shardlab.analysis.summary import RunSummary
from shardlab.results import ErrorKind, IntervalRecord
from shardlab.store import StoredRun


def _num(value: float) -> str:
    """One decimal below 100, none above: 12.5 ms, 181 ms, 44,134 docs/s."""
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def summary_table(summary: RunSummary, title: str) -> Table:
    """The seeds' columns first (# samples, average response time, throughput, # errors,
    error rate), then what they could not see."""
    table = Table(title=title, title_justify="left")
    for header in (
        "# samples",
        "avg response (ms)",
        "throughput (ops/s)",
        "# errors",
        "error rate",
        "docs/s",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
    ):
        table.add_column(header, justify="right")
    table.add_row(
        f"{summary.samples:,}",
        _num(summary.avg_response_ms),
        _num(summary.ops_per_s),
        f"{summary.errors:,}",
        f"{summary.error_rate:.2%}",
        _num(summary.docs_per_s),
        _num(summary.p50_ms),
        _num(summary.p90_ms),
        _num(summary.p99_ms),
        _num(summary.max_ms),
    )
    return table


def documents_line(summary: RunSummary) -> str:
    parts = [f"{summary.docs_acked:,} documents indexed in {summary.elapsed_s:.1f} s"]
    if summary.docs_rejected or summary.docs_failed:
        parts.append(f"{summary.docs_rejected:,} rejected (429), {summary.docs_failed:,} failed")
    if summary.retries:
        parts.append(f"{summary.retries:,} retries")
    if summary.index_doc_count is not None:
        verdict = "matches" if summary.count_matches else "DOES NOT match"
        parts.append(f"index count after refresh {summary.index_doc_count:,} ({verdict})")
    return "; ".join(parts)


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
        ("avg ms", "right"),
        ("error rate", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for run in runs:
        settings = run.plan.get("index_settings", {})
        summary: dict[str, Any] = run.summary or {}
        table.add_row(
            str(run.id),
            run.started_at.replace("T", " ").removesuffix("+00:00"),
            f"{run.workload}/{run.variant}",
            run.status,
            f"{settings.get('shards')}/{settings.get('replicas')}/{settings.get('refresh_interval')}",
            str(run.plan.get("clients", "")),
            f"{summary['samples']:,}" if summary else "-",
            _num(summary["docs_per_s"]) if summary else "-",
            _num(summary["avg_response_ms"]) if summary else "-",
            f"{summary['error_rate']:.2%}" if summary else "-",
        )
    return table


def intervals_table(intervals: list[IntervalRecord]) -> Table:
    table = Table(title="per interval", title_justify="left")
    for header in (
        "end (s)",
        "length (s)",
        "requests",
        "docs/s",
        "p50 ms",
        "p99 ms",
        "max ms",
        "429",
        "errors",
    ):
        table.add_column(header, justify="right")
    for interval in intervals:
        counts = interval.counts
        per_s = 1.0 / interval.duration_s if interval.duration_s > 0 else 0.0
        table.add_row(
            f"{interval.start_s + interval.duration_s:.1f}",
            f"{interval.duration_s:.2f}",
            f"{counts.requests:,}",
            _num(counts.docs_acked * per_s),
            _num(interval.service.p50_ms),
            _num(interval.service.p99_ms),
            _num(interval.service.max_ms),
            f"{counts.docs_rejected:,}",
            f"{counts.requests_with_errors:,}",
        )
    return table


def errors_table(errors: list[ErrorKind]) -> Table:
    table = Table(title="errors", title_justify="left")
    table.add_column("count", justify="right")
    table.add_column("kind")
    table.add_column("first seen")
    for error in errors:
        table.add_row(f"{error.count:,}", error.kind, error.example)
    return table
