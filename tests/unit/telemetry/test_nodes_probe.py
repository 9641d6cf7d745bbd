"""The nodes probe on captured `_nodes/stats` answers of each flavor: the metric names,
real values picked by hand from the captures, and node membership events."""

import pytest

from shardlab.telemetry.flavors import ELASTICSEARCH_7, OPENSEARCH_2, OPENSEARCH_3
from shardlab.telemetry.probe import Event, Sample
from shardlab.telemetry.probes.nodes import (
    NodesProbe,
    allocated_processors,
    membership_events,
    node_samples,
)

from .captures import NODE3_STOPPED, THREE_NODES, ReplayClient, capture

NODE_METRICS = {
    *(
        f"thread_pool.{pool}.{metric}"
        for pool in ("write", "search")
        for metric in ("active", "queue", "rejected_total", "completed_total")
    ),
    "indexing.index_total",
    "indexing.index_time_ms_total",
    "indexing.throttle_time_ms_total",
    "refresh.count_total",
    "refresh.time_ms_total",
    "flush.count_total",
    "flush.time_ms_total",
    "merges.current",
    "merges.count_total",
    "merges.time_ms_total",
    "merges.docs_total",
    "merges.bytes_total",
    "segments.count",
    "segments.memory_bytes",
    "docs.count",
    "store.size_bytes",
    "jvm.heap_used_bytes",
    "jvm.heap_max_bytes",
    "jvm.gc.young.count_total",
    "jvm.gc.young.time_ms_total",
    "jvm.gc.old.count_total",
    "jvm.gc.old.time_ms_total",
    "os.cpu_percent",
    "process.cpu_percent",
    "process.cpu_time_ms_total",
    "os.allocated_processors",
    "fs.total_bytes",
    "fs.available_bytes",
    "fs.io.read_bytes_total",
    "fs.io.write_bytes_total",
    "fs.io.read_ops_total",
    "fs.io.write_ops_total",
    "http.open_connections",
}


def values_of(directory, flavor):
    samples = node_samples(
        capture(directory, "nodes_stats"),
        flavor,
        1000.0,
        allocated_processors(capture(directory, "nodes_info")),
    )
    assert {(s.time_unix_s, s.probe, s.source) for s in samples} == {(1000.0, "nodes", "node-1")}
    values = {s.metric: s.value for s in samples}
    assert len(values) == len(samples)  # one value per metric
    return values


def test_opensearch_2_19_1():
    values = values_of("opensearch-2.19.1", OPENSEARCH_2)
    assert set(values) == NODE_METRICS - {"segments.memory_bytes"}  # always 0 on OpenSearch
    assert values["indexing.index_total"] == 109328
    assert values["indexing.index_time_ms_total"] == 9072
    assert values["thread_pool.write.active"] == 1
    assert values["thread_pool.write.completed_total"] == 109
    assert values["thread_pool.search.completed_total"] == 2
    assert values["refresh.count_total"] == 18
    assert values["docs.count"] == 82000
    assert values["jvm.heap_max_bytes"] == 512 * 2**20
    assert values["jvm.gc.young.count_total"] == 11
    assert values["os.cpu_percent"] == 91
    assert values["process.cpu_time_ms_total"] == 40490
    assert values["fs.io.write_bytes_total"] == 1189588 * 1024  # write_kilobytes
    assert values["fs.io.read_ops_total"] == 20104
    assert values["os.allocated_processors"] == 2
    assert values["http.open_connections"] == 2


def test_opensearch_3_3_2_on_java_25_cannot_read_cpu_percent():
    values = values_of("opensearch-3.3.2", OPENSEARCH_3)
    # the capture says -1 for both (opensearch-project/OpenSearch#19120): not emitted
    assert set(values) == NODE_METRICS - {
        "segments.memory_bytes",
        "os.cpu_percent",
        "process.cpu_percent",
    }
    assert values["process.cpu_time_ms_total"] == 35450  # the CPU still shows as a counter
    assert values["indexing.index_total"] == 123000
    assert values["jvm.gc.young.time_ms_total"] == 476  # not the G1 Concurrent GC's 55
    assert values["thread_pool.write.completed_total"] == 123
    assert values["fs.io.read_ops_total"] == 898
    assert values["store.size_bytes"] == 6281880


def test_elasticsearch_7_10_2():
    values = values_of("elasticsearch-7.10.2", ELASTICSEARCH_7)
    assert set(values) == NODE_METRICS
    assert values["segments.memory_bytes"] == 10656
    assert values["segments.count"] == 8
    assert values["indexing.index_total"] == 138000
    assert values["os.cpu_percent"] == 74
    assert values["process.cpu_percent"] == 52
    assert values["thread_pool.write.completed_total"] == 138
    assert values["fs.io.write_bytes_total"] == 44196 * 1024
    assert values["jvm.heap_used_bytes"] == 334413824


def test_three_nodes_give_one_source_each():
    samples = node_samples(capture(THREE_NODES, "nodes_stats"), OPENSEARCH_2, 5.0, {"node-2": 4})
    by_node: dict[str, set[str]] = {}
    for sample in samples:
        by_node.setdefault(sample.source, set()).add(sample.metric)
    assert sorted(by_node) == ["node-1", "node-2", "node-3"]
    assert by_node["node-2"] == NODE_METRICS - {"segments.memory_bytes"}
    assert "os.allocated_processors" not in by_node["node-1"]  # unknown: not invented


def test_membership_events_name_the_nodes_that_came_and_went():
    assert membership_events({"a", "b"}, {"b", "c", "d"}, 7.0) == [
        Event(7.0, "nodes", "node_joined", {"node": "c"}),
        Event(7.0, "nodes", "node_joined", {"node": "d"}),
        Event(7.0, "nodes", "node_left", {"node": "a"}),
    ]


def test_the_probe_reads_the_flavor_and_processors_once_and_sees_a_node_leave_and_return():
    client = ReplayClient(THREE_NODES)
    probe = NodesProbe(client)
    first = probe.sample(1.0)
    assert all(isinstance(row, Sample) for row in first)  # no events at the first sample
    assert {row.source for row in first} == {"node-1", "node-2", "node-3"}
    assert client.requested[0] == "/" and len(client.requested) == 3  # root, stats, info

    probe.sample(2.0)
    assert len(client.requested) == 4  # only the stats again

    client.replay(NODE3_STOPPED)
    rows = probe.sample(3.0)
    assert [row for row in rows if isinstance(row, Event)] == [
        Event(3.0, "nodes", "node_left", {"node": "node-3"})
    ]
    assert {row.source for row in rows if isinstance(row, Sample)} == {"node-1", "node-2"}

    client.replay(THREE_NODES)
    rows = probe.sample(4.0)
    assert [row for row in rows if isinstance(row, Event)] == [
        Event(4.0, "nodes", "node_joined", {"node": "node-3"})
    ]
    assert probe.close(5.0) == []


def test_a_failing_request_raises_for_the_sampler_to_count():
    client = ReplayClient(THREE_NODES)
    client.answers.pop("/")
    with pytest.raises(Exception, match="404"):
        NodesProbe(client).sample(1.0)
