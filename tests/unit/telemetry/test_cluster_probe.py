"""The cluster probe on captured answers: health samples and events, the shard layout of
a 3-node lab before and after a node stopped, and the index's size at the end."""

from shardlab.telemetry.probe import Event, Sample
from shardlab.telemetry.probes.cluster import (
    ClusterProbe,
    health_detail,
    health_samples,
    index_stats_detail,
    layout_detail,
    shards_path,
)

from .captures import NODE3_STOPPED, SINGLE_NODE, THREE_NODES, ReplayClient, capture

INDEX = "layout-capture"  # the index of the 3-node captures


def test_health_samples_and_detail_from_each_flavor():
    for directory in SINGLE_NODE:
        health = capture(directory, "cluster_health")
        assert health_samples(health, 3.0) == [
            Sample(3.0, "cluster", "cluster", "health.unassigned_shards", 0),
            Sample(3.0, "cluster", "cluster", "health.number_of_nodes", 1),
        ]
    assert health_detail(capture(NODE3_STOPPED, "cluster_health")) == {
        "status": "yellow",
        "number_of_nodes": 2,
        "number_of_data_nodes": 2,
        "active_shards": 4,
        "relocating_shards": 0,
        "initializing_shards": 0,
        "unassigned_shards": 2,
    }


def test_layout_of_three_shards_with_one_replica_on_three_nodes():
    detail = layout_detail(capture(THREE_NODES, "cat_shards"), INDEX, "start")
    assert detail == {
        "phase": "start",
        "index": INDEX,
        "nodes": {
            "node-1": {"primaries": 1, "replicas": 1},
            "node-2": {"primaries": 1, "replicas": 1},
            "node-3": {"primaries": 1, "replicas": 1},
        },
        "unassigned": 0,
        "initializing": 0,
    }


def test_layout_after_a_node_stopped_counts_the_orphaned_replicas_apart():
    # node-3 held the primary of shard 1: its replica on node-2 was promoted
    detail = layout_detail(capture(NODE3_STOPPED, "cat_shards"), INDEX, "end")
    assert detail["nodes"] == {
        "node-1": {"primaries": 1, "replicas": 1},
        "node-2": {"primaries": 2, "replicas": 0},
    }
    assert detail["unassigned"] == 2


def test_a_relocating_copy_counts_on_the_node_it_leaves_and_an_initializing_one_apart():
    shards = [
        {
            "shard": "0",
            "prirep": "p",
            "state": "RELOCATING",
            "node": "node-1 -> 10.0.0.2 Xk node-2",
        },
        {"shard": "0", "prirep": "r", "state": "INITIALIZING", "node": "node-3"},
        {"shard": "1", "prirep": "r", "state": "STARTED", "node": "node-1"},
    ]
    detail = layout_detail(shards, "i", "start")
    assert detail["nodes"] == {"node-1": {"primaries": 1, "replicas": 1}}
    assert (detail["unassigned"], detail["initializing"]) == (0, 1)


def test_index_stats_of_all_copies_and_of_primaries():
    assert index_stats_detail(capture(THREE_NODES, "index_stats")) == {
        "docs_count": 55310,
        "store_size_bytes": 3338683,
        "primaries_docs_count": 27314,
        "primaries_store_size_bytes": 1392878,
    }
    assert index_stats_detail(capture("elasticsearch-7.10.2", "index_stats"))["docs_count"] == (
        118411
    )


def test_the_index_name_is_quoted_in_the_path():
    assert shards_path("a b&c").startswith("/_cat/shards/a%20b%26c?format=json")


def events(rows):
    return [row for row in rows if isinstance(row, Event)]


def test_the_probe_writes_health_events_only_on_change_and_the_layout_twice():
    client = ReplayClient(THREE_NODES)
    probe = ClusterProbe(client, INDEX)
    first = events(probe.sample(1.0))
    assert [event.kind for event in first] == ["health", "layout"]
    assert first[0].detail["status"] == "green" and first[1].detail["phase"] == "start"

    again = probe.sample(2.0)
    assert events(again) == []
    assert len(again) == 2  # the two health samples, every time

    client.replay(NODE3_STOPPED)
    changed = events(probe.sample(3.0))
    assert [(e.kind, e.detail["status"], e.detail["number_of_nodes"]) for e in changed] == [
        ("health", "yellow", 2)
    ]

    closing = probe.close(4.0)
    assert [event.kind for event in closing] == ["layout", "index_stats"]
    assert closing[0].detail["phase"] == "end" and closing[0].detail["unassigned"] == 2
    assert closing[1].detail["primaries_docs_count"] == 30000


def test_the_start_layout_waits_for_the_index_to_exist():
    client = ReplayClient(THREE_NODES)
    cat_path = shards_path(INDEX)
    cat_answer = client.answers.pop(cat_path)  # 404: not created yet
    probe = ClusterProbe(client, INDEX)
    assert [event.kind for event in events(probe.sample(1.0))] == ["health"]
    client.answers[cat_path] = cat_answer
    assert [event.kind for event in events(probe.sample(2.0))] == ["layout"]
    assert events(probe.sample(3.0)) == []


def test_close_without_the_index_says_nothing():
    client = ReplayClient(THREE_NODES)
    client.answers.pop(shards_path(INDEX))
    assert ClusterProbe(client, INDEX).close(1.0) == []
