"""One run as the terminal shows it, at the end of `shardlab run` and in `shardlab runs show`:
the seed's table, both latency clocks, the documents' check, what the cluster did during the
measured phase, and the warnings. A pure function of a `RunAnalysis`."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table

from shardlab.analysis.activity import ClusterActivity
from shardlab.analysis.run import RunAnalysis
from shardlab.analysis.summary import RunSummary
from shardlab.results import IndexCheck, LatencySummary

MB = 1_000_000


def num(value: float | None, unit: str = "") -> str:
    """One decimal below 100, none above: 12.5 ms, 181 ms, 44,134 docs/s; '-' if unknown."""
    if value is None:
        return "-"
    text = f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"
    return f"{text}{unit}"


def count(value: float | None) -> str:
    """A count: 12, 1,204; '-' if unknown."""
    return "-" if value is None else f"{value:,.0f}"


def summary_table(summary: RunSummary, title: str) -> Table:
    """The seeds' columns: # samples (bulk requests), average time, throughput, # errors,
    error rate; then documents/s. The average is of service time (sent -> answered), which
    is what the seeds' JMeter reported as the average response time."""
    table = Table(title=title, title_justify="left")
    for header in (
        "# samples",
        "avg service (ms)",
        "throughput (ops/s)",
        "# errors",
        "error rate",
        "docs/s",
    ):
        table.add_column(header, justify="right")
    table.add_row(
        f"{summary.samples:,}",
        num(summary.service.mean_ms),
        num(summary.ops_per_s),
        f"{summary.errors:,}",
        f"{summary.error_rate:.2%}",
        num(summary.docs_per_s),
    )
    return table


def latency_table(summary: RunSummary) -> Table:
    table = Table(title="latency (ms), both clocks", title_justify="left")
    table.add_column("clock")
    for header in ("mean", "p50", "p90", "p99", "p99.9", "max"):
        table.add_column(header, justify="right")

    def row(name: str, clock: LatencySummary) -> None:
        table.add_row(
            name,
            *(
                num(v)
                for v in (
                    clock.mean_ms,
                    clock.p50_ms,
                    clock.p90_ms,
                    clock.p99_ms,
                    clock.p999_ms,
                    clock.max_ms,
                )
            ),
        )

    row("service (sent -> answered)", summary.service)
    row("response (due -> answered)", summary.response)
    return table


def measured_line(summary: RunSummary) -> str:
    phase = f"measured {summary.measured_s:.1f} s ({summary.intervals} intervals)"
    return phase + (f" after a {summary.warmup_s:g} s warm-up" if summary.warmup_s else "")


def index_verdict(check: IndexCheck) -> str:
    """acked <= stored <= acked + unknown, said in words."""
    if check.docs_lost:
        return f"{check.docs_lost:,} ACKNOWLEDGED DOCUMENTS LOST"
    if check.extra:
        return f"{check.extra:,} more than the driver sent"
    if check.docs_unknown:
        return (
            f"no acknowledged document lost; {check.unknown_stored:,} of the "
            f"{check.docs_unknown:,} documents with unknown outcome were stored"
        )
    return "matches"


def documents_line(analysis: RunAnalysis) -> str:
    summary = analysis.summary
    parts = [f"{analysis.docs_acked_total:,} documents acknowledged over the whole run"]
    if summary.docs_rejected or summary.docs_failed:
        parts.append(f"{summary.docs_rejected:,} rejected (429), {summary.docs_failed:,} failed")
    outcomes = analysis.whole_run
    if outcomes.docs_unknown or outcomes.docs_not_sent:
        parts.append(
            f"{outcomes.docs_unknown:,} with unknown outcome (sent, no answer), "
            f"{outcomes.docs_not_sent:,} not sent"
        )
    if summary.retries:
        parts.append(f"{summary.retries:,} retries")
    check = analysis.index_check
    if check is not None:
        parts.append(f"index count after refresh {check.doc_count:,} ({index_verdict(check)})")
    troubled = [t for t in analysis.target_errors if t.connect_errors or t.transport_errors]
    if troubled:
        parts.append(
            "connection errors: "
            + ", ".join(
                f"{t.url} {t.connect_errors:,} refused, {t.transport_errors:,} broken"
                for t in troubled
            )
        )
    return "; ".join(parts)


def nodes_table(activity: ClusterActivity) -> Table:
    table = Table(title="what the cluster did (measured phase)", title_justify="left")
    for header, justify in (
        ("node", "left"),
        ("shards p/r", "right"),
        ("CPU cores", "right"),
        ("CPU %", "right"),
        ("write queue avg/max", "right"),
        ("rejected", "right"),
        ("indexing docs/s", "right"),
        ("merges (s)", "right"),
        ("GC ms/s", "right"),
        ("heap avg", "right"),
        ("disk write MB/s", "right"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    layout = activity.layout_end or activity.layout_start
    shards = {n.node: f"{n.primaries}/{n.replicas}" for n in layout.nodes} if layout else {}
    for node in activity.nodes:
        busiest = [
            mark
            for mark, name in (
                ("cpu", activity.busiest_cpu_node),
                ("queue", activity.busiest_queue_node),
            )
            if name == node.node and len(activity.nodes) > 1
        ]
        merges = "-"
        if node.merges_count is not None:
            merges = f"{node.merges_count:,.0f} ({(node.merges_time_ms or 0) / 1000:,.1f})"
        heap = node.heap_used_mean_fraction
        table.add_row(
            node.node + (f" (busiest {', '.join(busiest)})" if busiest else ""),
            shards.get(node.node, "-"),
            num(node.cpu_cores_used),
            num(node.process_cpu_percent_mean),
            f"{num(node.write_queue_mean)}/{num(node.write_queue_max)}",
            count(node.write_rejected),
            num(node.indexing_docs_per_s),
            merges,
            num(node.gc_time_ms_per_s),
            f"{heap:.0%}" if heap is not None else "-",
            num(node.disk_write_bytes_per_s / MB if node.disk_write_bytes_per_s else None),
        )
    return table


def cluster_lines(analysis: RunAnalysis) -> list[str]:
    activity = analysis.activity
    if activity is None:
        return ["no telemetry was recorded for this run"]
    lines = []
    start, end = activity.layout_start, activity.layout_end
    last = end or start
    if last is not None:
        shown = [
            f"{layout.primaries_only} at the {layout.phase}" for layout in (start, end) if layout
        ]
        lines.append(
            f"shard layout (primaries per node): {', '.join(shown)}; all copies {last.copies}"
        )
    written = activity.bytes_written_per_s
    written_mb = num(written / MB if written is not None else None)
    source = f" ({activity.bytes_written_source})" if activity.bytes_written_source else ""
    queue = f"{num(activity.write_queue_mean)} (max {num(activity.write_queue_max)})"
    merge_s = num((activity.merges_time_ms or 0) / 1000)
    averages = [
        f"{written_mb} MB/s written{source}",
        f"disk wait {num(activity.disk_wait_cpu_percent)}% of CPU",
        f"write queue {queue}",
        f"{count(activity.node_write_rejected)} rejected by the nodes, "
        f"{activity.engine_requests_http_429:,} requests answered 429",
        f"{count(activity.merges_count)} merges ({merge_s} s)",
        f"GC {num(activity.gc_time_ms_per_s)} ms/s",
    ]
    lines.append("averages: " + ", ".join(averages))
    ceiling = analysis.rejections_began
    if ceiling is not None:
        at = f"{ceiling.since_start_s:.1f} s into the run" if ceiling.since_start_s else "at once"
        lines.append(f"rejections began {at} (seen by {ceiling.seen_by})")
    figures = analysis.efficiency
    if figures is not None:
        heap = figures.heap_per_shard_bytes
        lines.append(
            f"efficiency: {num(figures.docs_per_core_s)} docs per node CPU-second, "
            f"{num(figures.store_bytes_per_doc)} store bytes per document, "
            f"heap per shard {num(heap / MB if heap is not None else None)} MB"
        )
    for change in activity.health_changes:
        when = f"{change.since_start_s:.1f} s" if change.since_start_s is not None else "?"
        lines.append(f"health {change.status} at {when} ({change.number_of_nodes} nodes)")
    for node_change in activity.node_changes:
        when = f"{node_change.since_start_s:.1f} s" if node_change.since_start_s else "?"
        lines.append(f"node {node_change.node} {node_change.change} at {when}")
    return lines


def run_view(analysis: RunAnalysis, title: str) -> list[RenderableType]:
    summary = analysis.summary
    shown: list[RenderableType] = [
        summary_table(summary, f"{title}: {measured_line(summary)}"),
        latency_table(summary),
        documents_line(analysis),
    ]
    if analysis.activity is not None:
        shown.append(nodes_table(analysis.activity))
    shown += cluster_lines(analysis)
    shown += [f"[yellow]warning:[/] {warning}" for warning in analysis.warnings]
    return shown
