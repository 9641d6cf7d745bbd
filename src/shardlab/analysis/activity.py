"""What the cluster did during the measured window, beside the load: per node CPU, write
queue, rejections, indexing, merges, GC, heap and disk; then the seeds' columns (busiest
node by CPU, bytes written/s, disk-wait CPU %, write queue length, rejections), the shard
layout at start and end, and the health changes and node departures during the run.

A value is None when its metric was not sampled in the window (a probe that could not read
it, or a cluster that does not report it); sums over nodes skip such nodes and are None
only when no node had the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shardlab.analysis.layout import ShardLayout, in_node_order, start_and_end_layouts
from shardlab.analysis.rates import (
    Point,
    SeriesKey,
    Window,
    counter_stats,
    gauge_stats,
    intervals_in,
    run_end_unix_s,
    run_start_unix_s,
    series_by_key,
)
from shardlab.results import Counters, Interval

if TYPE_CHECKING:
    from shardlab.telemetry.probe import Event, Sample

NODES_PROBE = "nodes"
HOST_PROBE = "host"
HOST_SOURCE = "host"


@dataclass(frozen=True)
class NodeActivity:
    node: str
    cpu_cores_used: float | None  # process CPU time per second of wall time
    process_cpu_percent_mean: float | None
    allocated_processors: float | None
    write_queue_mean: float | None
    write_queue_max: float | None
    write_active_mean: float | None
    write_rejected: float | None  # increase over the window
    indexing_docs_per_s: float | None  # primaries and replicas alike: each copy indexes
    indexing_throttle_ms: float | None
    merges_count: float | None
    merges_time_ms: float | None
    merges_bytes: float | None
    refresh_count: float | None
    gc_time_ms_per_s: float | None  # young + old
    heap_used_mean_bytes: float | None
    heap_max_bytes: float | None
    heap_used_mean_fraction: float | None  # of heap max
    heap_used_max_fraction: float | None
    disk_write_bytes_per_s: float | None  # fs.io: the device(s) holding the data path
    segments_count_end: float | None
    restarts: int  # counter resets seen in the window


@dataclass(frozen=True)
class HealthChange:
    time_unix_s: float
    since_start_s: float | None  # seconds since the run started
    status: str
    previous_status: str | None  # None: the first status seen
    number_of_nodes: int | None
    unassigned_shards: int | None


@dataclass(frozen=True)
class NodeChange:
    time_unix_s: float
    since_start_s: float | None
    node: str
    change: str  # left | joined


@dataclass(frozen=True)
class ClusterActivity:
    start_unix_s: float  # the measured window
    end_unix_s: float
    duration_s: float
    nodes: tuple[NodeActivity, ...]  # natural order of node names
    busiest_cpu_node: str | None  # most cores used (process CPU % when cores are unknown)
    busiest_cpu_cores_used: float | None
    busiest_cpu_percent_mean: float | None
    busiest_queue_node: str | None  # longest mean write queue
    busiest_queue_mean: float | None
    cpu_cores_used_total: float | None
    allocated_processors_total: float | None
    bytes_written_per_s: float | None
    bytes_written_source: str | None  # "fs.io" (sum over nodes) | "host" | None
    disk_wait_cpu_percent: float | None  # host cpu.iowait_percent mean
    write_queue_mean: float | None  # mean over nodes of each node's mean
    write_queue_max: float | None  # the longest any node's queue was seen
    node_write_rejected: float | None  # sum over nodes of thread_pool.write.rejected_total
    engine_requests_http_429: int  # from the engine's intervals in the window
    engine_requests_item_errors: int
    engine_docs_rejected: int  # still rejected after the retries
    engine_retries: int  # retries follow only 429-rejected items
    indexing_docs_per_s: float | None  # sum over nodes: each replica counts again
    merges_count: float | None
    merges_time_ms: float | None
    merges_bytes: float | None
    refresh_count: float | None
    gc_time_ms_per_s: float | None  # sum over nodes
    heap_used_mean_bytes: float | None  # sum over nodes
    layout_start: ShardLayout | None
    layout_end: ShardLayout | None
    health_changes: tuple[HealthChange, ...]
    node_changes: tuple[NodeChange, ...]


def sum_known(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def mean_known(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def max_known(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


class _Series:
    """One source's series in the window, read by metric name."""

    def __init__(self, series: dict[SeriesKey, list[Point]], source: str, window: Window):
        self.series = series
        self.source = source
        self.window = window

    def points(self, metric: str) -> list[Point]:
        return self.series.get((self.source, metric), [])

    def increase(self, metric: str) -> float | None:
        stats = counter_stats(self.points(metric), self.window)
        return stats.increase if stats else None

    def rate_per_s(self, metric: str) -> float | None:
        stats = counter_stats(self.points(metric), self.window)
        return stats.rate_per_s if stats else None

    def resets(self, metric: str) -> int:
        stats = counter_stats(self.points(metric), self.window)
        return stats.resets if stats else 0

    def mean(self, metric: str) -> float | None:
        stats = gauge_stats(self.points(metric), self.window)
        return stats.mean if stats else None

    def max(self, metric: str) -> float | None:
        stats = gauge_stats(self.points(metric), self.window)
        return stats.max if stats else None

    def last(self, metric: str) -> float | None:
        stats = gauge_stats(self.points(metric), self.window)
        return stats.last if stats else None


def node_activity(node: str, series: dict[SeriesKey, list[Point]], window: Window) -> NodeActivity:
    """One node over the window, from the `nodes` probe's series (source = node name)."""
    of = _Series(series, node, window)
    cpu_ms_per_s = of.rate_per_s("process.cpu_time_ms_total")
    gc_rates = [of.rate_per_s(f"jvm.gc.{gen}.time_ms_total") for gen in ("young", "old")]
    heap_max_bytes = of.max("jvm.heap_max_bytes")
    counters = [metric for (source, metric) in series if source == node]
    return NodeActivity(
        node=node,
        cpu_cores_used=cpu_ms_per_s / 1000.0 if cpu_ms_per_s is not None else None,
        process_cpu_percent_mean=of.mean("process.cpu_percent"),
        allocated_processors=of.last("os.allocated_processors"),
        write_queue_mean=of.mean("thread_pool.write.queue"),
        write_queue_max=of.max("thread_pool.write.queue"),
        write_active_mean=of.mean("thread_pool.write.active"),
        write_rejected=of.increase("thread_pool.write.rejected_total"),
        indexing_docs_per_s=of.rate_per_s("indexing.index_total"),
        indexing_throttle_ms=of.increase("indexing.throttle_time_ms_total"),
        merges_count=of.increase("merges.count_total"),
        merges_time_ms=of.increase("merges.time_ms_total"),
        merges_bytes=of.increase("merges.bytes_total"),
        refresh_count=of.increase("refresh.count_total"),
        gc_time_ms_per_s=sum_known(gc_rates),
        heap_used_mean_bytes=of.mean("jvm.heap_used_bytes"),
        heap_max_bytes=heap_max_bytes,
        heap_used_mean_fraction=ratio(of.mean("jvm.heap_used_bytes"), heap_max_bytes),
        heap_used_max_fraction=ratio(of.max("jvm.heap_used_bytes"), heap_max_bytes),
        disk_write_bytes_per_s=of.rate_per_s("fs.io.write_bytes_total"),
        segments_count_end=of.last("segments.count"),
        # a restart resets every counter at once: the most resets of any counter
        restarts=max((of.resets(m) for m in counters if m.endswith("_total")), default=0),
    )


def busiest_by_cpu(nodes: Sequence[NodeActivity]) -> NodeActivity | None:
    """Most cores used; by process CPU % when no node's cores are known. Ties: first in
    node order."""
    with_cores = [n for n in nodes if n.cpu_cores_used is not None]
    if with_cores:
        return max(with_cores, key=lambda n: n.cpu_cores_used or 0.0)
    with_percent = [n for n in nodes if n.process_cpu_percent_mean is not None]
    if with_percent:
        return max(with_percent, key=lambda n: n.process_cpu_percent_mean or 0.0)
    return None


def busiest_by_write_queue(nodes: Sequence[NodeActivity]) -> NodeActivity | None:
    with_queue = [n for n in nodes if n.write_queue_mean is not None]
    return max(with_queue, key=lambda n: n.write_queue_mean or 0.0) if with_queue else None


def since(time_unix_s: float, start_unix_s: float | None) -> float | None:
    return time_unix_s - start_unix_s if start_unix_s is not None else None


def _optional_int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def health_changes(
    events: Sequence[Event], start_unix_s: float, end_unix_s: float, run_start_unix_s: float | None
) -> list[HealthChange]:
    """Each `health` event in [start, end] whose status or node count differs from the one
    before it (the last one before `start` included, so a run that stays green shows none;
    with no earlier event, the first one in the span is shown as the starting state)."""
    health = sorted((e for e in events if e.kind == "health"), key=lambda e: e.time_unix_s)
    changes: list[HealthChange] = []
    previous: tuple[str, int | None] | None = None
    for event in health:
        if event.time_unix_s > end_unix_s:
            break
        state = (
            str(event.detail.get("status", "")),
            _optional_int(event.detail.get("number_of_nodes")),
        )
        if event.time_unix_s >= start_unix_s and state != previous:
            changes.append(
                HealthChange(
                    time_unix_s=event.time_unix_s,
                    since_start_s=since(event.time_unix_s, run_start_unix_s),
                    status=state[0],
                    previous_status=previous[0] if previous else None,
                    number_of_nodes=state[1],
                    unassigned_shards=_optional_int(event.detail.get("unassigned_shards")),
                )
            )
        previous = state
    return changes


def node_changes(
    events: Sequence[Event], start_unix_s: float, end_unix_s: float, run_start_unix_s: float | None
) -> list[NodeChange]:
    """Nodes that left or (re)joined the cluster in [start, end], in time order."""
    kinds = {"node_left": "left", "node_joined": "joined"}
    return [
        NodeChange(
            time_unix_s=event.time_unix_s,
            since_start_s=since(event.time_unix_s, run_start_unix_s),
            node=str(event.detail.get("node", "")),
            change=kinds[event.kind],
        )
        for event in sorted(events, key=lambda e: e.time_unix_s)
        if event.kind in kinds and start_unix_s <= event.time_unix_s <= end_unix_s
    ]


def cluster_activity(
    samples: Sequence[Sample],
    events: Sequence[Event],
    intervals: Sequence[Interval],
    window: Window,
    index: str | None = None,
) -> ClusterActivity:
    """The cluster over the measured window. `intervals` are all the run's intervals: those
    in the window give the engine's rejection counts, all of them the run's span, over which
    health changes and node departures are listed (the window's when there are none)."""
    node_series = series_by_key(samples, NODES_PROBE)
    node_names = in_node_order(source for source, _ in node_series)
    nodes = tuple(node_activity(name, node_series, window) for name in node_names)
    host = _Series(series_by_key(samples, HOST_PROBE), HOST_SOURCE, window)

    fs_io_per_s = sum_known([n.disk_write_bytes_per_s for n in nodes])
    host_write_per_s = host.mean("disk.write_bytes_per_s")
    if fs_io_per_s is not None:
        bytes_written: tuple[float | None, str | None] = (fs_io_per_s, "fs.io")
    elif host_write_per_s is not None:
        bytes_written = (host_write_per_s, "host")
    else:
        bytes_written = (None, None)

    engine = sum((i.counters for i in intervals_in(intervals, window)), Counters())
    busiest_cpu = busiest_by_cpu(nodes)
    busiest_queue = busiest_by_write_queue(nodes)
    run_start = run_start_unix_s(intervals)
    run_end = run_end_unix_s(intervals)
    span = (
        (run_start, run_end)
        if run_start is not None and run_end is not None
        else (window.start_unix_s, window.end_unix_s)
    )
    layout_start, layout_end = start_and_end_layouts(events, index, node_names)
    return ClusterActivity(
        start_unix_s=window.start_unix_s,
        end_unix_s=window.end_unix_s,
        duration_s=window.duration_s,
        nodes=nodes,
        busiest_cpu_node=busiest_cpu.node if busiest_cpu else None,
        busiest_cpu_cores_used=busiest_cpu.cpu_cores_used if busiest_cpu else None,
        busiest_cpu_percent_mean=busiest_cpu.process_cpu_percent_mean if busiest_cpu else None,
        busiest_queue_node=busiest_queue.node if busiest_queue else None,
        busiest_queue_mean=busiest_queue.write_queue_mean if busiest_queue else None,
        cpu_cores_used_total=sum_known([n.cpu_cores_used for n in nodes]),
        allocated_processors_total=sum_known([n.allocated_processors for n in nodes]),
        bytes_written_per_s=bytes_written[0],
        bytes_written_source=bytes_written[1],
        disk_wait_cpu_percent=host.mean("cpu.iowait_percent"),
        write_queue_mean=mean_known([n.write_queue_mean for n in nodes]),
        write_queue_max=max_known([n.write_queue_max for n in nodes]),
        node_write_rejected=sum_known([n.write_rejected for n in nodes]),
        engine_requests_http_429=engine.requests_http_429,
        engine_requests_item_errors=engine.requests_item_errors,
        engine_docs_rejected=engine.docs_rejected,
        engine_retries=engine.retries,
        indexing_docs_per_s=sum_known([n.indexing_docs_per_s for n in nodes]),
        merges_count=sum_known([n.merges_count for n in nodes]),
        merges_time_ms=sum_known([n.merges_time_ms for n in nodes]),
        merges_bytes=sum_known([n.merges_bytes for n in nodes]),
        refresh_count=sum_known([n.refresh_count for n in nodes]),
        gc_time_ms_per_s=sum_known([n.gc_time_ms_per_s for n in nodes]),
        heap_used_mean_bytes=sum_known([n.heap_used_mean_bytes for n in nodes]),
        layout_start=layout_start,
        layout_end=layout_end,
        health_changes=tuple(health_changes(events, *span, run_start)),
        node_changes=tuple(node_changes(events, *span, run_start)),
    )
