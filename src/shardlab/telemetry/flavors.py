"""What the probes need to know about the cluster they read, and where the flavors differ:
OpenSearch 2.x, OpenSearch 3.x and Elasticsearch 7.10 (OSS).

Every field read from `_nodes/stats` is named here with the scale to its metric's unit, so
the nodes probe only walks `Flavor.node_fields`. Compared on real responses
(tests/fixtures/captures/: OpenSearch 2.19.1 on Java 17, 3.3.2 on Java 25, Elasticsearch
7.10.2 on Java 17), what matters to the probes:

- `indices.segments.memory_in_bytes` is measured only by Elasticsearch 7.10 (Lucene 8).
  OpenSearch (Lucene 9 and 10 stopped accounting segment memory) still sends the field but
  always 0, so `segments.memory_bytes` is not emitted for it rather than a false zero.
- OpenSearch 3.3.2 on Java 25 answers `os.cpu.percent` and `process.cpu.percent` with -1
  (the JVM's CPU load is unavailable: opensearch-project/OpenSearch#19120). The stats write
  -1 for any value they could not read, so a negative value is not emitted; the node's CPU
  still shows as the rate of `process.cpu_time_ms_total`.
- Java 20+ (here under OpenSearch 3.3.2) adds a third collector, `G1 Concurrent GC`, beside
  `young` and `old`; it counts concurrent cycles, not pauses, and is not read.
- Elasticsearch 7.10's `fs.io_stats.total` lacks the `read_time`, `write_time`, `queue_size`
  and `io_time_in_millis` OpenSearch added; the probes read neither.
- `GET /` says `version.distribution: opensearch` only on OpenSearch; Elasticsearch has
  `build_flavor: oss` instead. Cluster health has `discovered_master` and
  `discovered_cluster_manager` only on OpenSearch (not read).
- The same on all three: the `write` and `search` thread pools (Elasticsearch called the
  write pool `bulk` before 6.3), the `young`/`old` collector names, kilobytes in io_stats,
  `os.allocated_processors` only in `_nodes` info, never in stats.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from shardlab.cluster.client import ClusterClient

KIB = 1024  # fs.io_stats counts kilobytes


@dataclass(frozen=True)
class Field:
    """Where a metric is in one node of `_nodes/stats`, and the factor to its unit."""

    path: tuple[str, ...]
    scale: float = 1.0


@dataclass(frozen=True)
class Flavor:
    name: str  # "opensearch-2", "opensearch-3", "elasticsearch-7"
    distribution: str  # "opensearch" | "elasticsearch"
    write_pool: str  # the thread pool that runs bulk requests
    search_pool: str
    gc_young: str  # the collectors' names in jvm.gc.collectors
    gc_old: str
    segments_memory: bool  # indices.segments.memory_in_bytes is measured, not a constant 0

    @property
    def node_fields(self) -> dict[str, Field]:
        """Metric name -> its field. A field missing from a response (io_stats off Linux)
        or negative (unavailable) is not emitted: see `field_value`."""
        fields = dict(_COMMON_FIELDS)
        for metric_pool, pool in (("write", self.write_pool), ("search", self.search_pool)):
            for metric, key in _POOL_KEYS:
                fields[f"thread_pool.{metric_pool}.{metric}"] = Field(("thread_pool", pool, key))
        for metric_gc, collector in (("young", self.gc_young), ("old", self.gc_old)):
            base = ("jvm", "gc", "collectors", collector)
            fields[f"jvm.gc.{metric_gc}.count_total"] = Field((*base, "collection_count"))
            fields[f"jvm.gc.{metric_gc}.time_ms_total"] = Field(
                (*base, "collection_time_in_millis")
            )
        if self.segments_memory:
            fields["segments.memory_bytes"] = Field(("indices", "segments", "memory_in_bytes"))
        return fields


_POOL_KEYS = (
    ("active", "active"),
    ("queue", "queue"),
    ("rejected_total", "rejected"),
    ("completed_total", "completed"),
)

_IO_TOTAL = ("fs", "io_stats", "total")

_COMMON_FIELDS = {
    "indexing.index_total": Field(("indices", "indexing", "index_total")),
    "indexing.index_time_ms_total": Field(("indices", "indexing", "index_time_in_millis")),
    "indexing.throttle_time_ms_total": Field(("indices", "indexing", "throttle_time_in_millis")),
    "refresh.count_total": Field(("indices", "refresh", "total")),
    "refresh.time_ms_total": Field(("indices", "refresh", "total_time_in_millis")),
    "flush.count_total": Field(("indices", "flush", "total")),
    "flush.time_ms_total": Field(("indices", "flush", "total_time_in_millis")),
    "merges.current": Field(("indices", "merges", "current")),
    "merges.count_total": Field(("indices", "merges", "total")),
    "merges.time_ms_total": Field(("indices", "merges", "total_time_in_millis")),
    "merges.docs_total": Field(("indices", "merges", "total_docs")),
    "merges.bytes_total": Field(("indices", "merges", "total_size_in_bytes")),
    "segments.count": Field(("indices", "segments", "count")),
    "docs.count": Field(("indices", "docs", "count")),
    "store.size_bytes": Field(("indices", "store", "size_in_bytes")),
    "jvm.heap_used_bytes": Field(("jvm", "mem", "heap_used_in_bytes")),
    "jvm.heap_max_bytes": Field(("jvm", "mem", "heap_max_in_bytes")),
    "os.cpu_percent": Field(("os", "cpu", "percent")),
    "process.cpu_percent": Field(("process", "cpu", "percent")),
    "process.cpu_time_ms_total": Field(("process", "cpu", "total_in_millis")),
    "fs.total_bytes": Field(("fs", "total", "total_in_bytes")),
    "fs.available_bytes": Field(("fs", "total", "available_in_bytes")),
    "fs.io.read_bytes_total": Field((*_IO_TOTAL, "read_kilobytes"), KIB),
    "fs.io.write_bytes_total": Field((*_IO_TOTAL, "write_kilobytes"), KIB),
    "fs.io.read_ops_total": Field((*_IO_TOTAL, "read_operations")),
    "fs.io.write_ops_total": Field((*_IO_TOTAL, "write_operations")),
    "http.open_connections": Field(("http", "current_open")),
}

OPENSEARCH_2 = Flavor(
    name="opensearch-2",
    distribution="opensearch",
    write_pool="write",
    search_pool="search",
    gc_young="young",
    gc_old="old",
    segments_memory=False,
)
# The same fields and thread pools in all three (checked on the captures); what differs is
# the distribution's name and whether segment memory is measured at all.
OPENSEARCH_3 = replace(OPENSEARCH_2, name="opensearch-3")
ELASTICSEARCH_7 = replace(
    OPENSEARCH_2, name="elasticsearch-7", distribution="elasticsearch", segments_memory=True
)
FLAVORS = {flavor.name: flavor for flavor in (OPENSEARCH_2, OPENSEARCH_3, ELASTICSEARCH_7)}

NODES_INFO_PATH = "/_nodes/os?filter_path=nodes.*.name,nodes.*.os.allocated_processors"


def node_stats_path() -> str:
    """`_nodes/stats` cut by filter_path to the fields any flavor reads, kept to their first
    three levels (so io_stats.total and the collectors, which depend on the JVM, come
    whole): 1.8 KB a node instead of 9 KB. One request for all flavors, so that one
    capture of it serves every flavor."""
    fields = (field for flavor in FLAVORS.values() for field in flavor.node_fields.values())
    prefixes = sorted({".".join(field.path[:3]) for field in fields})
    filters = ",".join(["nodes.*.name", *(f"nodes.*.{prefix}" for prefix in prefixes)])
    return f"/_nodes/stats/indices,os,process,jvm,thread_pool,fs,http?filter_path={filters}"


def flavor_of(root: dict[str, Any]) -> Flavor:
    """The flavor of a cluster from its `GET /` answer (pure). Versions outside the three
    measured get the nearest table (OpenSearch 1.x reads as 2.x, Elasticsearch 8 as 7)."""
    version = root.get("version") or {}
    major_text = str(version.get("number", "0")).split(".")[0]
    major = int(major_text) if major_text.isdigit() else 0
    if version.get("distribution") == "opensearch":
        return OPENSEARCH_3 if major >= 3 else OPENSEARCH_2
    return ELASTICSEARCH_7


def detect_flavor(client: ClusterClient, timeout_s: float | None = None) -> Flavor:
    return flavor_of(client.get("/", timeout_s=timeout_s))


def field_value(node_stats: dict[str, Any], field: Field) -> float | None:
    """The field's value in its metric's unit, or None when it is missing or negative (the
    stats write -1 for a value they could not read) (pure)."""
    value: Any = node_stats
    for key in field.path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value < 0:
        return None
    return float(value) * field.scale
