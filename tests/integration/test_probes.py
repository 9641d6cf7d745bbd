"""Every telemetry probe against a real OpenSearch node started by shardlab, its values
checked against what the node itself says (`_nodes`, `_cat/shards`, `_count`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from shardlab.cluster.client import ClusterClient
from shardlab.cluster.local import ClusterState
from shardlab.telemetry.probe import Event, ProbeContext, Row, Sample
from shardlab.telemetry.probes import probes_for
from shardlab.telemetry.probes.cluster import ClusterProbe
from shardlab.telemetry.probes.driver import DriverProbe
from shardlab.telemetry.probes.host import HostProbe
from shardlab.telemetry.probes.nodes import NodesProbe
from shardlab.telemetry.sampler import Sampler
from shardlab.workloads.index import index_path

from .conftest import TEST_HEAP_MB

pytestmark = pytest.mark.opensearch

INDEX = "telemetry-probes"
SHARDS = 2
DOCS = 5


@pytest.fixture(scope="module")
def client(local_opensearch: ClusterState) -> Iterator[ClusterClient]:
    """The node, with an index of 2 shards (no replica: one node) holding 5 documents."""
    client = ClusterClient(list(local_opensearch.urls))
    path = index_path(INDEX)
    if client.exists(path):
        client.delete(path)
    settings = {"number_of_shards": SHARDS, "number_of_replicas": 0}
    client.put(path, {"settings": {"index": settings}})
    client.get(f"/_cluster/health{path}?wait_for_status=green&timeout=60s", timeout_s=90)
    for number in range(DOCS):
        client.post(f"{path}/_doc", {"number": number})
    client.post(f"{path}/_refresh")
    yield client
    client.delete(path)


def samples_of(rows: list[Row] | tuple[Row, ...]) -> dict[tuple[str, str], float]:
    return {(row.source, row.metric): row.value for row in rows if isinstance(row, Sample)}


def events_of(rows: list[Row] | tuple[Row, ...], kind: str) -> list[Event]:
    return [row for row in rows if isinstance(row, Event) and row.kind == kind]


def test_nodes_probe_reads_the_node_by_its_name(client: ClusterClient) -> None:
    names = [node["name"] for node in client.get("/_nodes")["nodes"].values()]
    values = samples_of(list(NodesProbe(client).sample(time.time())))
    assert sorted({source for source, _ in values}) == names
    node = names[0]
    assert values[(node, "jvm.heap_used_bytes")] > 0
    assert values[(node, "jvm.heap_max_bytes")] == TEST_HEAP_MB * 2**20
    assert values[(node, "docs.count")] >= DOCS
    assert values[(node, "indexing.index_total")] >= DOCS
    assert values[(node, "thread_pool.write.completed_total")] >= 1
    assert values[(node, "os.allocated_processors")] >= 1
    assert values[(node, "process.cpu_time_ms_total")] > 0
    assert 0 < values[(node, "fs.available_bytes")] <= values[(node, "fs.total_bytes")]
    assert values[(node, "http.open_connections")] >= 1
    assert (node, "segments.memory_bytes") not in values  # OpenSearch: always 0, not sent


def test_cluster_probe_layout_matches_the_index(client: ClusterClient) -> None:
    probe = ClusterProbe(client, INDEX)
    rows = list(probe.sample(time.time()))
    (health,) = events_of(rows, "health")
    assert health.detail["status"] in ("green", "yellow")
    assert samples_of(rows)[("cluster", "health.number_of_nodes")] == 1
    (start,) = events_of(rows, "layout")
    node = client.get("/_cat/nodes?format=json&h=name")[0]["name"]
    assert start.detail["nodes"] == {node: {"primaries": SHARDS, "replicas": 0}}
    assert start.detail["unassigned"] == 0

    closing = list(probe.close(time.time()))
    (end,) = events_of(closing, "layout")
    assert end.detail["phase"] == "end" and end.detail["nodes"] == start.detail["nodes"]
    (stats,) = events_of(closing, "index_stats")
    assert stats.detail["docs_count"] == stats.detail["primaries_docs_count"] == DOCS
    assert stats.detail["store_size_bytes"] > 0


def test_host_and_driver_probes_read_this_machine() -> None:
    host = HostProbe()
    host.sample(time.time())
    time.sleep(0.05)
    values = samples_of(list(host.sample(time.time())))
    cpu = [value for (_, metric), value in values.items() if metric.startswith("cpu.")]
    assert sum(cpu) == pytest.approx(100.0, abs=1e-6)
    assert values[("host", "memory.used_bytes")] > 0

    driver = samples_of(list(DriverProbe(os.getpid()).sample(time.time())))
    assert driver[("driver", "process.cpu_time_ms_total")] > 0
    assert driver[("driver", "process.rss_bytes")] > 0


def test_the_sampler_runs_every_probe_without_a_failure(client: ClusterClient) -> None:
    context = ProbeContext(client, INDEX, cluster_is_local=True, driver_pid=os.getpid())
    sampler = Sampler(probes_for(context), interval_s=0.2)
    sampler.start()
    time.sleep(0.5)
    sampler.stop()
    stats = sampler.stats()
    assert {name: probe.failures for name, probe in stats.probes.items()} == {
        "cluster": 0,
        "driver": 0,
        "host": 0,
        "nodes": 0,
    }
    assert stats.rounds >= 2
    rows = sampler.drain()
    assert {row.probe for row in rows} == {"cluster", "driver", "host", "nodes"}
    assert [event.detail["phase"] for event in events_of(rows, "layout")] == ["start", "end"]
