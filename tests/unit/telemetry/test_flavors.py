"""flavors.py against the captured answers of OpenSearch 2.19.1, 3.3.2 and Elasticsearch
7.10.2: which flavor a `GET /` means, and that the captures still answer the requests the
probes send today."""

import pytest

from shardlab.telemetry.flavors import (
    ELASTICSEARCH_7,
    FLAVORS,
    NODES_INFO_PATH,
    OPENSEARCH_2,
    OPENSEARCH_3,
    Field,
    field_value,
    flavor_of,
    node_stats_path,
)
from shardlab.telemetry.probes.cluster import HEALTH_PATH, index_stats_path, shards_path

from .captures import NODE3_STOPPED, SINGLE_NODE, THREE_NODES, capture


@pytest.mark.parametrize(
    ("directory", "flavor"),
    [
        ("opensearch-2.19.1", OPENSEARCH_2),
        ("opensearch-3.3.2", OPENSEARCH_3),
        ("elasticsearch-7.10.2", ELASTICSEARCH_7),
        (THREE_NODES, OPENSEARCH_2),
    ],
)
def test_the_root_answer_tells_the_flavor(directory, flavor):
    assert flavor_of(capture(directory, "root")) is flavor


def test_versions_not_measured_get_the_nearest_table():
    assert flavor_of({"version": {"distribution": "opensearch", "number": "1.3.19"}}).name == (
        "opensearch-2"
    )
    assert flavor_of({"version": {"number": "8.15.0", "build_flavor": "default"}}).name == (
        "elasticsearch-7"
    )
    assert flavor_of({}).name == "elasticsearch-7"


@pytest.mark.parametrize("directory", [*SINGLE_NODE, THREE_NODES, NODE3_STOPPED])
def test_the_captures_answer_exactly_the_requests_the_probes_send(directory):
    # when this fails, a probe's request changed: run scripts/capture-responses again
    index = "systembase" if directory in SINGLE_NODE else "layout-capture"
    assert capture(directory, "requests") == {
        "root": "/",
        "nodes_stats": node_stats_path(),
        "nodes_info": NODES_INFO_PATH,
        "cluster_health": HEALTH_PATH,
        "cat_shards": shards_path(index),
        "index_stats": index_stats_path(index),
    }


def test_only_elasticsearch_measures_segment_memory():
    # OpenSearch sends indices.segments.memory_in_bytes, but always 0 since Lucene 9
    for directory in ("opensearch-2.19.1", "opensearch-3.3.2"):
        segments = next(iter(capture(directory, "nodes_stats")["nodes"].values()))["indices"]
        assert segments["segments"]["memory_in_bytes"] == 0
        assert segments["segments"]["count"] > 0
    assert "segments.memory_bytes" not in OPENSEARCH_2.node_fields
    assert "segments.memory_bytes" not in OPENSEARCH_3.node_fields
    assert ELASTICSEARCH_7.node_fields["segments.memory_bytes"] == Field(
        ("indices", "segments", "memory_in_bytes")
    )


def test_every_flavor_bulks_on_the_write_pool_and_names_collectors_young_and_old():
    for flavor in FLAVORS.values():
        assert flavor.node_fields["thread_pool.write.queue"].path == (
            "thread_pool",
            "write",
            "queue",
        )
        assert flavor.node_fields["jvm.gc.old.time_ms_total"].path == (
            "jvm",
            "gc",
            "collectors",
            "old",
            "collection_time_in_millis",
        )


def test_field_values_are_scaled_to_the_unit_and_unreadable_ones_dropped():
    node = {"fs": {"io_stats": {"total": {"read_kilobytes": 3}}}, "os": {"cpu": {"percent": -1}}}
    assert field_value(node, Field(("fs", "io_stats", "total", "read_kilobytes"), 1024)) == 3072
    assert field_value(node, Field(("os", "cpu", "percent"))) is None  # -1: not readable
    assert field_value(node, Field(("fs", "total", "total_in_bytes"))) is None  # missing
    assert field_value({"http": {"current_open": True}}, Field(("http", "current_open"))) is None


def test_the_node_stats_request_is_cut_to_the_fields_read():
    path = node_stats_path()
    assert path.startswith("/_nodes/stats/indices,os,process,jvm,thread_pool,fs,http?filter_path=")
    filters = path.split("filter_path=")[1].split(",")
    assert filters[0] == "nodes.*.name"
    assert "nodes.*.fs.io_stats.total" in filters  # kept whole: kilobytes and operations
    assert "nodes.*.jvm.gc.collectors" in filters  # kept whole: the JVM decides which exist
    assert "nodes.*.indices.segments.memory_in_bytes" in filters  # read on Elasticsearch
