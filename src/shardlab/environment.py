"""What a run ran on, recorded with it: shardlab, the engine build, the host, the cluster."""

from __future__ import annotations

import os
import platform
from typing import Any

from shardlab import __version__
from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.errors import UsageError


def host_memory_bytes(memory_max_path: str = "/sys/fs/cgroup/memory.max") -> int:
    """Physical memory, or the cgroup v2 (container) limit when that is lower: what a JVM
    heap and a run actually get. memory.max reads "max" when there is no limit."""
    physical_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open(memory_max_path) as limit_file:
            limit = limit_file.read().strip()
    except OSError:
        return physical_bytes
    return min(physical_bytes, int(limit)) if limit.isdigit() else physical_bytes


def host_environment(engine_build: str) -> dict[str, Any]:
    return {
        "shardlab_version": __version__,
        "engine_build": engine_build,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": host_memory_bytes(),
    }


def cluster_environment(client: ClusterClient) -> dict[str, Any]:
    """Distribution, version, node count and JVMs, as the cluster itself reports them."""
    root = client.get("/")
    if not isinstance(root, dict) or not isinstance(root.get("version"), dict):
        raise UsageError(
            "--target",
            client.url,
            "does not answer like OpenSearch or Elasticsearch",
            "point it at a node's HTTP port (9200 by default)",
        )
    version = root["version"]
    found: dict[str, Any] = {
        "cluster_name": root.get("cluster_name"),
        "distribution": version.get("distribution", "elasticsearch"),
        "version": version.get("number"),
    }
    try:
        nodes = client.get("/_nodes/jvm,os")["nodes"].values()
    except ClusterHTTPError:
        return found  # a restricted user may not read node info; the version is enough
    found["nodes"] = len(nodes)
    found["java_versions"] = sorted({node["jvm"]["version"] for node in nodes})
    found["heap_max_bytes"] = sorted({node["jvm"]["mem"]["heap_max_in_bytes"] for node in nodes})
    found["node_processors"] = sorted({node["os"].get("allocated_processors", 0) for node in nodes})
    return found
