"""Shared integration fixtures: a real local OpenSearch node, started once per session.

The node lives under a throwaway SHARDLAB_HOME made with mkdtemp and opened to mode 755:
as root the JVM runs as the `shardlab` account, which cannot enter pytest's tmp_path
(/tmp/pytest-of-root is mode 700). Downloads stay in the normal cache (or SHARDLAB_CACHE),
so the 51 MB zip is fetched once across runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from shardlab import _engine
from shardlab.cluster.local import ClusterState, LocalCluster, LocalClusterSpec

TEST_HEAP_MB = 512
TEST_VERSION = "2.19.1"


@contextmanager
def shardlab_home(home: Path) -> Iterator[None]:
    """SHARDLAB_HOME set to `home` for the duration (only around our own calls, so other
    tests keep their environment)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SHARDLAB_HOME", str(home))
        yield


@pytest.fixture(scope="session")
def shardlab_test_home() -> Iterator[Path]:
    """A SHARDLAB_HOME the service account can reach; removed at the end of the session."""
    home = Path(tempfile.mkdtemp(prefix="shardlab-test-"))
    home.chmod(0o755)
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def local_opensearch(shardlab_test_home: Path) -> Iterator[ClusterState]:
    """A started single OpenSearch node (heap 512 MB), green; stopped after the session."""
    with shardlab_home(shardlab_test_home):
        cluster = LocalCluster("session")
        spec = LocalClusterSpec(version=TEST_VERSION, heap_mb=TEST_HEAP_MB, lab="session")
        state = cluster.up(spec, timeout_s=float(os.environ.get("SHARDLAB_TEST_UP_S", 180)))
    try:
        yield state
    finally:
        with shardlab_home(shardlab_test_home):
            cluster.down()


@pytest.fixture(scope="session")
def three_node_lab(shardlab_test_home: Path) -> Iterator[ClusterState]:
    """Three OpenSearch nodes (all roles, heap 512 MB each), started once; tests that stop
    a node start it again before they end."""
    with shardlab_home(shardlab_test_home):
        cluster = LocalCluster("three")
        spec = LocalClusterSpec(version=TEST_VERSION, nodes=3, heap_mb=TEST_HEAP_MB, lab="three")
        state = cluster.up(spec, timeout_s=float(os.environ.get("SHARDLAB_TEST_UP_S", 240)))
    try:
        yield state
    finally:
        with shardlab_home(shardlab_test_home):
            cluster.down(wipe=True)


@pytest.fixture
def sink(request: pytest.FixtureRequest) -> Iterator[_engine.NullSink]:
    """An in-process NullSink (a real HTTP/1.1 server that acks every bulk), closed after the
    test. It serves on one thread unless the test module sets SINK_THREADS."""
    s = _engine.NullSink(threads=getattr(request.module, "SINK_THREADS", 1))
    yield s
    s.close()
