"""When a started cluster is ready for load.

Green, normally. But a lab keeps its data across `down` and `up`, and an index that asks for
more replicas than the other nodes can hold (the seed's 1 replica on a one-node lab) stays
yellow for ever: waiting for green would only time out. So a cluster is also ready when it
is yellow, every node has joined, no shard is initializing, relocating or delayed, and every
yellow index has at least as many replicas as there are data nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.errors import UsageError


@dataclass(frozen=True)
class Readiness:
    ready: bool
    line: str  # what we are waiting for, or how the cluster is when ready


def readiness(
    health: dict[str, Any],
    indices: list[dict[str, Any]],
    nodes: int,
    cluster_name: str | None = None,
) -> Readiness:
    """`health` from _cluster/health, `indices` from _cat/indices (index, health, rep).
    With `cluster_name`, only that cluster counts: another one answering on the lab's port
    (a node of this lab that could not bind it) is not this lab being ready."""
    status = health.get("status", "?")
    answered_by = health.get("cluster_name")
    if cluster_name is not None and answered_by != cluster_name:
        return Readiness(False, f"another cluster ({answered_by}) answers on the lab's port")
    joined = int(health.get("number_of_nodes", 0))
    if joined < nodes:
        return Readiness(False, f"cluster {status}, {joined}/{nodes} node(s) joined")
    if status == "green":
        return Readiness(True, "green")
    moving = sum(
        int(health.get(name, 0))
        for name in ("initializing_shards", "relocating_shards", "delayed_unassigned_shards")
    )
    if status != "yellow" or moving:
        return Readiness(False, f"cluster {status}, {moving} shard(s) still moving")
    data_nodes = int(health.get("number_of_data_nodes", joined))
    yellow = [index for index in indices if index.get("health") == "yellow"]
    waiting = [index["index"] for index in yellow if int(index.get("rep", 0)) < data_nodes]
    if waiting:
        return Readiness(False, f"cluster yellow, waiting for replicas of {', '.join(waiting)}")
    names = ", ".join(index["index"] for index in yellow)
    return Readiness(
        True, f"yellow: {names} ask for more replicas than {data_nodes} data node(s) can hold"
    )


def check_readiness(
    client: ClusterClient, nodes: int, cluster_name: str | None = None
) -> Readiness:
    try:
        health = client.get("/_cluster/health", timeout_s=5)
        indices = []
        if health.get("status") == "yellow":
            indices = client.get(
                "/_cat/indices?h=index,health,rep&format=json&expand_wildcards=all"
            )
    except UsageError:
        return Readiness(False, f"waiting for HTTP on {client.url}")
    except ClusterHTTPError as error:
        return Readiness(False, f"waiting for the cluster ({error.reason()})")
    return readiness(health, indices, nodes, cluster_name)
