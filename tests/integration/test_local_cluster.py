"""A real OpenSearch node provisioned by shardlab: download, start, reuse, stop."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from shardlab.cluster.client import ClusterClient
from shardlab.cluster.local import LocalCluster, LocalClusterSpec
from shardlab.errors import UsageError

from .conftest import TEST_HEAP_MB, TEST_VERSION, shardlab_home

pytestmark = pytest.mark.opensearch


def pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_session_node_is_green_and_the_right_version(local_opensearch):
    client = ClusterClient(local_opensearch.urls)
    assert client.get("/")["version"]["number"] == TEST_VERSION
    assert client.get("/_cluster/health")["status"] == "green"
    assert local_opensearch.flavor == "opensearch"
    assert local_opensearch.version == TEST_VERSION
    assert local_opensearch.java_version
    (node,) = client.get("/_nodes/jvm")["nodes"].values()
    assert node["jvm"]["mem"]["heap_max_in_bytes"] == TEST_HEAP_MB * 1024 * 1024
    if os.geteuid() == 0:
        assert local_opensearch.run_as_user == "shardlab"


def test_up_reuse_and_down(local_opensearch, shardlab_test_home):
    """A second lab beside the session one (so its ports are not the preferred ones)."""
    cluster_spec = LocalClusterSpec(version=TEST_VERSION, heap_mb=TEST_HEAP_MB, lab="cycle")
    statuses: list[str] = []
    with shardlab_home(shardlab_test_home):
        cluster = LocalCluster("cycle")
        try:
            started = cluster.up(cluster_spec, on_status=statuses.append)
            assert statuses[-1].startswith("cluster green after")
            assert started.urls != local_opensearch.urls
            state = cluster.state()
            assert state is not None and state.running
            pids = [node.pid for node in state.nodes]

            again = cluster.up(cluster_spec)
            assert [node.pid for node in again.nodes] == pids

            with pytest.raises(UsageError, match="shardlab cluster down"):
                cluster.up(LocalClusterSpec(version=TEST_VERSION, nodes=2, lab="cycle"))
            log = cluster.log_path()
            assert log.is_file() and log.parent == state.nodes[0].directory / "logs"
        finally:
            cluster.down()
        after = cluster.state()
    assert after is not None and not after.running
    assert all(pid is not None and not pid_exists(pid) for pid in pids)
    assert (after.nodes[0].directory / "data").is_dir()  # kept unless wipe=True


def test_java_home_without_java_is_named(monkeypatch):
    empty = Path(tempfile.mkdtemp())
    monkeypatch.delenv("OPENSEARCH_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(empty))
    monkeypatch.setenv("SHARDLAB_HOME", str(empty))
    with pytest.raises(UsageError) as caught:
        LocalCluster("java").up(LocalClusterSpec(lab="java"))
    assert caught.value.line().startswith(f"JAVA_HOME {empty}: has no bin/java")
    empty.rmdir()
