"""What the cluster got for what it spent: documents per node-CPU-second, store bytes per
document, heap per shard copy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shardlab.analysis.activity import ClusterActivity, ratio
from shardlab.results import Interval

if TYPE_CHECKING:
    from shardlab.telemetry.probe import Event


@dataclass(frozen=True)
class Efficiency:
    docs_per_s: float | None  # acked by the engine in the window's intervals
    node_cpu_cores_used: float | None  # sum over nodes
    docs_per_core_s: float | None  # documents per node-CPU-second
    store_bytes_per_doc: float | None  # primaries' store / primaries' docs: one copy
    store_bytes_per_doc_all_copies: float | None  # replicas included
    heap_used_bytes: float | None  # the nodes' mean heap used, summed
    shard_copies: int | None  # assigned copies of the index at the end
    heap_per_shard_bytes: float | None  # all of the heap over this index's copies


def docs_per_s(intervals: Sequence[Interval]) -> float | None:
    duration_s = sum(i.duration_s for i in intervals)
    return sum(i.counters.docs_acked for i in intervals) / duration_s if duration_s > 0 else None


def last_index_stats(events: Sequence[Event], index: str | None = None) -> Event | None:
    """The latest `index_stats` event (of `index`, when both it and the event name one)."""
    stats = [
        e
        for e in events
        if e.kind == "index_stats" and (index is None or e.detail.get("index", index) == index)
    ]
    return max(stats, key=lambda e: e.time_unix_s) if stats else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def efficiency(
    activity: ClusterActivity,
    intervals_in_window: Sequence[Interval],
    events: Sequence[Event],
    index: str | None = None,
) -> Efficiency:
    """The heap per shard holds every index's heap use, so it is an upper bound for this one
    unless the run's index is alone on the cluster."""
    rate = docs_per_s(intervals_in_window)
    cores = activity.cpu_cores_used_total
    stats = last_index_stats(events, index)
    detail = stats.detail if stats else {}
    copies = activity.layout_end.shard_copies if activity.layout_end else None
    return Efficiency(
        docs_per_s=rate,
        node_cpu_cores_used=cores,
        docs_per_core_s=ratio(rate, cores),
        store_bytes_per_doc=ratio(
            _number(detail.get("primaries_store_size_bytes")),
            _number(detail.get("primaries_docs_count")),
        ),
        store_bytes_per_doc_all_copies=ratio(
            _number(detail.get("store_size_bytes")), _number(detail.get("primaries_docs_count"))
        ),
        heap_used_bytes=activity.heap_used_mean_bytes,
        shard_copies=copies,
        heap_per_shard_bytes=ratio(
            activity.heap_used_mean_bytes, float(copies) if copies is not None else None
        ),
    )
