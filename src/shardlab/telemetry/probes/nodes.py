"""Per-node statistics from `_nodes/stats` (source = the node's name): thread pools,
indexing, refresh, flush, merges, segments, heap and GC, CPU, disk and HTTP connections.

Which field holds which metric depends on the cluster's flavor (flavors.py), found from
`GET /` at the first sample. `os.allocated_processors` is in no measured version's stats,
so it is read from `_nodes` info at the first sample and again only when a node appears
that was not there then.
Nodes that join or leave between two samples become `node_joined` / `node_left` events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shardlab.cluster.client import ClusterClient
from shardlab.telemetry.flavors import (
    NODES_INFO_PATH,
    Flavor,
    detect_flavor,
    field_value,
    node_stats_path,
)
from shardlab.telemetry.probe import Event, ProbeContext, Row, Sample

NAME = "nodes"
REQUEST_TIMEOUT_S = 5.0  # a hung cluster must not hold up the other probes' rounds for long


def node_samples(
    stats: dict[str, Any], flavor: Flavor, now_unix_s: float, processors: dict[str, int]
) -> list[Sample]:
    """Every metric of every node in a `_nodes/stats` response (pure). `processors` maps a
    node's name to its allocated processors, from `_nodes` info."""
    samples: list[Sample] = []
    fields = flavor.node_fields
    for node in (stats.get("nodes") or {}).values():
        name = str(node.get("name", "?"))
        for metric, field in fields.items():
            value = field_value(node, field)
            if value is not None:
                samples.append(Sample(now_unix_s, NAME, name, metric, value))
        if name in processors:
            samples.append(
                Sample(now_unix_s, NAME, name, "os.allocated_processors", float(processors[name]))
            )
    return samples


def node_names(stats: dict[str, Any]) -> set[str]:
    return {str(node.get("name", "?")) for node in (stats.get("nodes") or {}).values()}


def allocated_processors(info: dict[str, Any]) -> dict[str, int]:
    """Node name -> os.allocated_processors from a `_nodes/os` info response (pure)."""
    processors: dict[str, int] = {}
    for node in (info.get("nodes") or {}).values():
        count = (node.get("os") or {}).get("allocated_processors")
        if count is not None:
            processors[str(node.get("name", "?"))] = int(count)
    return processors


def membership_events(before: set[str], after: set[str], now_unix_s: float) -> list[Event]:
    """Nodes that joined or left between two samples, in name order (pure)."""
    return [
        Event(now_unix_s, NAME, "node_joined", {"node": name}) for name in sorted(after - before)
    ] + [Event(now_unix_s, NAME, "node_left", {"node": name}) for name in sorted(before - after)]


class NodesProbe:
    name = NAME

    def __init__(self, client: ClusterClient) -> None:
        self.client = client
        self._flavor: Flavor | None = None
        self._processors: dict[str, int] = {}
        self._info_read_for: set[str] = set()  # nodes _nodes info was read for
        self._names: set[str] | None = None  # None before the first sample

    def sample(self, now_unix_s: float) -> Sequence[Row]:
        if self._flavor is None:
            self._flavor = detect_flavor(self.client, REQUEST_TIMEOUT_S)
        stats = self.client.get(node_stats_path(), timeout_s=REQUEST_TIMEOUT_S)
        names = node_names(stats)
        if names - self._info_read_for:
            info = self.client.get(NODES_INFO_PATH, timeout_s=REQUEST_TIMEOUT_S)
            self._processors |= allocated_processors(info)
            self._info_read_for |= names
        rows: list[Row] = []
        if self._names is not None:
            rows.extend(membership_events(self._names, names, now_unix_s))
        self._names = names
        rows.extend(node_samples(stats, self._flavor, now_unix_s, self._processors))
        return rows

    def close(self, now_unix_s: float) -> Sequence[Row]:
        return []


def probe_for(context: ProbeContext) -> NodesProbe:
    return NodesProbe(context.client)
