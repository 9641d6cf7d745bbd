"""A lab record to test with: one OpenSearch node as `cluster up` writes it."""

from pathlib import Path

from shardlab.cluster.lab_state import ClusterState, NodeState


def recorded_state(directory: Path, pid: int | None = None, http_port: int = 9200) -> ClusterState:
    node = NodeState(
        "node-1", pid, http_port, 9300, ("cluster_manager", "data"), directory / "node-1", 512
    )
    return ClusterState(
        lab="default",
        flavor="opensearch",
        version="2.19.1",
        cluster_name="shardlab-default",
        distribution_home=Path("/d/opensearch-2.19.1"),
        java_home=Path("/usr/lib/jvm/java-17-openjdk-amd64"),
        java_version="17.0.15",
        run_as_user="shardlab",
        started_at="2026-01-01T00:00:00+00:00",
        nodes=(node,),
    )
