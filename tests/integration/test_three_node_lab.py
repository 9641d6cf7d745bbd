"""A 3-node lab (all roles, small heaps) started by shardlab's provisioning code, and a 60 s
run on it: per-node samples for every node, the shard layout across the nodes, the cluster
table naming them."""

import json
import tempfile
from pathlib import Path

import pytest

from shardlab.store import Store

from .cli_helpers import shardlab, store_arg

pytestmark = pytest.mark.opensearch

DURATION_S = 60


def test_a_60s_run_on_three_nodes_samples_every_node(three_node_lab):
    three_nodes = three_node_lab
    store_dir = Path(tempfile.mkdtemp(prefix="shardlab-three-"))
    result = shardlab(
        "run",
        "systembase",
        "--target",
        ",".join(three_nodes.urls),
        "--duration",
        f"{DURATION_S}s",
        "--shards",
        "3",
        "--replicas",
        "1",
        "--clients",
        "6",
        *store_arg(store_dir),
        timeout_s=DURATION_S + 240,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    with Store(store_dir / "runs.sqlite") as store:
        samples = store.samples(1)
        events = store.events(1)
    names = {node.name for node in three_nodes.nodes}
    assert len(names) == 3
    heap_samples = {name: 0 for name in names}
    for sample in samples:
        if sample.probe == "nodes" and sample.metric == "jvm.heap_used_bytes":
            heap_samples[sample.source] += 1
    assert all(count >= 50 for count in heap_samples.values()), heap_samples
    assert sum(s.probe == "host" for s in samples) >= 50
    assert sum(s.probe == "driver" for s in samples) >= 50
    end = [e for e in events if e.kind == "layout" and e.detail["phase"] == "end"][-1]
    per_node = end.detail["nodes"]
    assert set(per_node) == names  # 6 copies over 3 nodes: every node holds some
    assert sum(n["primaries"] for n in per_node.values()) == 3
    assert sum(n["replicas"] for n in per_node.values()) == 3
    out = result.stdout
    assert "what the cluster did (measured phase)" in out
    assert all(name in out for name in names)
    assert "busiest" in out and "(matches)" in out
    shown = json.loads(shardlab("runs", "show", "1", "--json", *store_arg(store_dir)).stdout)
    activity = shown["analysis"]["activity"]
    assert {n["node"] for n in activity["nodes"]} == names
    assert activity["layout_end"]["shard_copies"] == 6
    assert activity["busiest_cpu_node"] in names
