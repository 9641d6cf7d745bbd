import json
from dataclasses import asdict

from shardlab.analysis.layout import (
    in_node_order,
    layout_from_detail,
    shard_layout,
    start_and_end_layouts,
)

from .rows import layout_event


def test_seed_baseline_five_shards_one_replica_on_three_nodes():
    # seed 000: 5 primaries on 3 nodes are "2-2-1"; their 5 replicas fill the rest
    layout = shard_layout(
        "systembase",
        "end",
        0.0,
        {"node-3": (1, 3), "node-1": (2, 1), "node-2": (2, 1)},
    )
    assert layout.primaries_only == "2-2-1"
    assert layout.copies == "3-3-4"
    assert layout.split == "2p1r-2p1r-1p3r"
    assert (layout.shard_copies, layout.primaries, layout.replicas) == (10, 5, 5)
    assert [n.node for n in layout.nodes] == ["node-1", "node-2", "node-3"]


def test_nodes_in_natural_name_order_not_by_count():
    assert in_node_order(["node-10", "node-2", "node-1"]) == ["node-1", "node-2", "node-10"]
    layout = shard_layout("i", "end", 0.0, {"node-10": (3, 0), "node-2": (1, 0), "node-1": (2, 0)})
    assert layout.copies == "2-1-3"


def test_a_node_holding_none_shows_zero_and_unassigned_copies_are_apart():
    # one replica per shard cannot be placed beside its primary: 3 copies unassigned
    layout = shard_layout("i", "start", 0.0, {"a": (3, 0)}, unassigned=3, all_nodes=["b", "a"])
    assert layout.copies == "3-0"
    assert layout.primaries_only == "3-0"
    assert layout.split == "3p0r-0"
    assert (layout.shard_copies, layout.unassigned) == (3, 3)


def test_uneven_replicas_only_node():
    layout = shard_layout("i", "end", 0.0, {"n1": (2, 0), "n2": (0, 1), "n3": (0, 1)})
    assert layout.split == "2p0r-0p1r-0p1r"
    assert layout.primaries_only == "2-0-0"
    assert layout.copies == "2-1-1"


def test_from_a_layout_event_detail_with_missing_counts():
    detail = {
        "phase": "start",
        "index": "systembase",
        "nodes": {"n2": {"primaries": 1}, "n1": {"primaries": 1, "replicas": 1}},
        "unassigned": 1,
    }
    layout = layout_from_detail(detail, 12.5)
    assert (layout.index, layout.phase, layout.time_unix_s) == ("systembase", "start", 12.5)
    assert layout.split == "1p1r-1p0r"
    assert layout.unassigned == 1


def test_first_start_and_last_end_of_the_index():
    events = [
        layout_event(9.0, "end", {"n1": (1, 0), "n2": (1, 0)}),
        layout_event(1.0, "start", {"n1": (2, 0)}),
        layout_event(5.0, "end", {"n1": (2, 0)}),
        layout_event(10.0, "end", {"n1": (9, 9)}, index="other"),
    ]
    start, end = start_and_end_layouts(events, "systembase", all_nodes=["n1", "n2"])
    assert start is not None and end is not None
    assert (start.copies, start.time_unix_s) == ("2-0", 1.0)
    assert (end.copies, end.time_unix_s) == ("1-1", 9.0)
    assert start_and_end_layouts([], "systembase") == (None, None)


def test_asdict_gives_plain_data_for_json():
    layout = shard_layout("i", "end", 0.0, {"n1": (1, 1)})
    as_json = json.loads(json.dumps(asdict(layout)))
    assert as_json["nodes"] == [{"node": "n1", "primaries": 1, "replicas": 1}]
    assert as_json["split"] == "1p1r"
