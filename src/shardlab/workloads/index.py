"""Creating, checking and counting a workload's index, without ever touching one we don't own.

shardlab marks the indexes it creates in the mapping's `_meta` (`created_by: shardlab`).
It drops and recreates only those (the seed: "The index was dropped and recreated prior to
each test run"); an existing index without the mark stops the run unless `--force`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.errors import UsageError
from shardlab.workloads.base import OWNER_META


def owned_by_shardlab(mapping_response: dict[str, Any], index: str) -> bool:
    """True when every concrete index behind `index` carries shardlab's mark (pure)."""
    if not mapping_response:
        return False
    for concrete, body in mapping_response.items():
        meta = (body.get("mappings") or {}).get("_meta") or {}
        if concrete != index or meta.get("created_by") != OWNER_META["created_by"]:
            return False
    return True


def index_path(index: str) -> str:
    """The index as a URL path segment (names are checked in the plan; this also escapes
    the characters OpenSearch allows but URLs do not, such as % and &)."""
    return "/" + quote(index, safe="")


def recreate_index(
    client: ClusterClient, index: str, body: dict[str, Any], force: bool = False
) -> bool:
    """Drop `index` if shardlab owns it (or force), then create it. Returns True if dropped."""
    path = index_path(index)
    dropped = False
    if client.exists(path):
        if not force and not owned_by_shardlab(client.get(f"{path}/_mapping"), index):
            raise UsageError(
                "index",
                index,
                "exists and was not created by shardlab, so it was left alone",
                "pick another name with --index, or pass --force to drop it",
            )
        client.delete(path)
        dropped = True
    try:
        client.put(path, body)
    except ClusterHTTPError as error:
        raise UsageError("index", index, f"could not be created: {error.reason()}") from None
    client.get(f"/_cluster/health{path}?wait_for_status=yellow&timeout=60s", timeout_s=90)
    return dropped


def count_after_refresh(client: ClusterClient, index: str) -> int:
    client.post(f"{index_path(index)}/_refresh")
    response = client.get(f"{index_path(index)}/_count")
    return int(response["count"])


def unassigned_shards(client: ClusterClient, index: str) -> int:
    return int(client.get(f"/_cluster/health{index_path(index)}")["unassigned_shards"])
