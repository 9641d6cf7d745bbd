"""The cluster as a whole (source `cluster`): health every sample, and the run's index seen
twice, at the start and at the end: where its shard copies live, and how big it became.

A `health` event is only written when something a reader cares about changes (status, node
count); the unassigned shards and node count are sampled every time anyway. The start
layout is taken at the first sample at which the index exists (it may be created after
the sampler starts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.telemetry.probe import Event, ProbeContext, Row, Sample
from shardlab.workloads.index import index_path

NAME = "cluster"
REQUEST_TIMEOUT_S = 5.0  # a hung cluster must not hold up the other probes' rounds for long
SOURCE = "cluster"
HEALTH_PATH = "/_cluster/health"
HEALTH_DETAIL_KEYS = (
    "status",
    "number_of_nodes",
    "number_of_data_nodes",
    "active_shards",
    "relocating_shards",
    "initializing_shards",
    "unassigned_shards",
)
PLACED_STATES = {"STARTED", "RELOCATING"}  # copies that serve from a node


def shards_path(index: str) -> str:
    return f"/_cat/shards{index_path(index)}?format=json&h=index,shard,prirep,state,node"


def index_stats_path(index: str) -> str:
    return f"{index_path(index)}/_stats/docs,store"


def health_detail(health: dict[str, Any]) -> dict[str, Any]:
    return {key: health.get(key) for key in HEALTH_DETAIL_KEYS}


def health_samples(health: dict[str, Any], now_unix_s: float) -> list[Sample]:
    return [
        Sample(now_unix_s, NAME, SOURCE, f"health.{key}", float(health[key]))
        for key in ("unassigned_shards", "number_of_nodes")
        if key in health
    ]


def layout_detail(shards: list[dict[str, Any]], index: str, phase: str) -> dict[str, Any]:
    """Primaries and replicas per node from `_cat/shards` rows (pure). A relocating copy
    counts on the node it leaves (cat writes `source -> target ...`); initializing copies
    are counted apart, like unassigned ones."""
    nodes: dict[str, dict[str, int]] = {}
    unassigned = initializing = 0
    for shard in shards:
        state = shard.get("state")
        if state == "UNASSIGNED":
            unassigned += 1
        elif state in PLACED_STATES and shard.get("node"):
            node = str(shard["node"]).split(" -> ")[0].strip()
            counts = nodes.setdefault(node, {"primaries": 0, "replicas": 0})
            counts["primaries" if shard.get("prirep") == "p" else "replicas"] += 1
        else:
            initializing += 1
    return {
        "phase": phase,
        "index": index,
        "nodes": dict(sorted(nodes.items())),
        "unassigned": unassigned,
        "initializing": initializing,
    }


def index_stats_detail(stats: dict[str, Any]) -> dict[str, Any]:
    """Documents and bytes of the index, all copies and primaries, from `_stats/docs,store`
    (pure). The counts are of refreshed documents, as the index reports them: the run's
    own count check refreshes first, this does not."""
    totals = stats.get("_all") or {}
    total = totals.get("total") or {}
    primaries = totals.get("primaries") or {}
    return {
        "docs_count": (total.get("docs") or {}).get("count"),
        "store_size_bytes": (total.get("store") or {}).get("size_in_bytes"),
        "primaries_docs_count": (primaries.get("docs") or {}).get("count"),
        "primaries_store_size_bytes": (primaries.get("store") or {}).get("size_in_bytes"),
    }


class ClusterProbe:
    name = NAME

    def __init__(self, client: ClusterClient, index: str) -> None:
        self.client = client
        self.index = index
        self._last_health: tuple[Any, Any] | None = None  # (status, number_of_nodes)
        self._start_layout_taken = False

    def sample(self, now_unix_s: float) -> Sequence[Row]:
        health = self.client.get(HEALTH_PATH, timeout_s=REQUEST_TIMEOUT_S)
        rows: list[Row] = list(health_samples(health, now_unix_s))
        seen = (health.get("status"), health.get("number_of_nodes"))
        if seen != self._last_health:
            rows.append(Event(now_unix_s, NAME, "health", health_detail(health)))
            self._last_health = seen
        if not self._start_layout_taken:
            layout = self._layout(now_unix_s, "start")
            if layout is not None:
                rows.append(layout)
                self._start_layout_taken = True
        return rows

    def close(self, now_unix_s: float) -> Sequence[Row]:
        layout = self._layout(now_unix_s, "end")
        if layout is None:  # the index is gone (or never came): nothing to describe
            return []
        stats = self.client.get(index_stats_path(self.index), timeout_s=REQUEST_TIMEOUT_S)
        return [layout, Event(now_unix_s, NAME, "index_stats", index_stats_detail(stats))]

    def _layout(self, now_unix_s: float, phase: str) -> Event | None:
        try:
            shards = self.client.get(shards_path(self.index), timeout_s=REQUEST_TIMEOUT_S)
        except ClusterHTTPError as error:
            if error.status == 404:
                return None
            raise
        return Event(now_unix_s, NAME, "layout", layout_detail(shards, self.index, phase))


def probe_for(context: ProbeContext) -> ClusterProbe:
    return ClusterProbe(context.client, context.index)
