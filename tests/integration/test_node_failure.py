"""A node's JVM killed with kill -9 in the middle of a run on a real 3-node lab: no spinning
on the dead node, the clients go on through the live ones, every document's fate is
accounted for, and the run says which node left (and, in the second test, came back)."""

import json
import signal
import sqlite3
import tempfile
import time
from pathlib import Path

import pytest

from shardlab.cluster import node_process
from shardlab.cluster.local import LocalCluster, LocalClusterSpec
from shardlab.store import Store

from .cli_helpers import popen_shardlab, shardlab, store_arg
from .conftest import TEST_HEAP_MB, TEST_VERSION, shardlab_home

pytestmark = pytest.mark.opensearch

CLIENTS = 6


def stored_intervals(store: Path) -> int:
    if not store.exists():
        return 0
    with sqlite3.connect(store) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM intervals").fetchone()[0]
        except sqlite3.OperationalError:
            return 0


def wait_for_intervals(store: Path, count: int, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while stored_intervals(store) < count:
        assert time.monotonic() < deadline, f"the run never stored {count} intervals"
        time.sleep(0.2)


def start_run(lab, store_dir: Path, duration_s: int):
    return popen_shardlab(
        "run",
        "systembase",
        "--target",
        ",".join(lab.urls),
        "--duration",
        f"{duration_s}s",
        "--shards",
        "3",
        "--replicas",
        "1",
        "--clients",
        str(CLIENTS),
        *store_arg(store_dir),
    )


def bring_back(shardlab_test_home: Path) -> None:
    with shardlab_home(shardlab_test_home):
        spec = LocalClusterSpec(version=TEST_VERSION, nodes=3, heap_mb=TEST_HEAP_MB, lab="three")
        LocalCluster("three").up(spec, timeout_s=240)


def killed_at_unix_s(victim) -> float:
    node_process.signal_group(victim.pid, signal.SIGKILL)  # kill -9 of its JVM
    return time.time()


def test_a_node_killed_mid_run_loses_no_acknowledged_document(three_node_lab, shardlab_test_home):
    store_dir = Path(tempfile.mkdtemp(prefix="shardlab-kill-"))
    store = store_dir / "runs.sqlite"
    victim = three_node_lab.nodes[-1]
    process = start_run(three_node_lab, store_dir, 40)
    try:
        wait_for_intervals(store, 12)
        killed_at = killed_at_unix_s(victim)
        stdout, stderr = process.communicate(timeout=240)
    finally:
        process.kill()
    try:
        assert process.returncode == 0, stderr + stdout
        assert "no acknowledged document lost" in stdout or "(matches)" in stdout, stdout
        with Store(store) as results:
            intervals = results.intervals(1)
            events = results.events(1)
        after = [i for i in intervals if i.start_unix_s >= killed_at]
        # no spinning: a few refused connections per second per client at most
        refused = sum(i.counters.connect_errors for i in after)
        seconds = sum(i.duration_s for i in after)
        assert refused <= 3 * CLIENTS * seconds, (refused, seconds)
        # the live nodes kept indexing within 5 s of the kill
        later = [i for i in after if i.start_unix_s >= killed_at + 5]
        assert later and all(i.counters.docs_acked > 0 for i in later[:-1])
        # the node's departure is in the store and in the output
        assert any(e.kind == "node_left" and e.detail["node"] == victim.name for e in events)
        assert f"node {victim.name} left" in stdout
        shown = json.loads(shardlab("runs", "show", "1", "--json", *store_arg(store_dir)).stdout)
        analysis = shown["analysis"]
        check = analysis["index_check"]
        whole = analysis["whole_run"]
        assert check["docs_acked"] <= check["doc_count"]
        assert check["doc_count"] <= check["docs_acked"] + whole["docs_unknown"]
        # percentiles of answered requests only: a refused connection takes ~0.1 ms, a bulk
        # of 1000 documents far longer
        assert analysis["summary"]["service"]["p50_ms"] > 5
        assert {t["url"] for t in shown["run"].get("target_errors", [])} <= set(three_node_lab.urls)
    finally:
        bring_back(shardlab_test_home)


def test_a_node_killed_and_restarted_mid_run_comes_back(three_node_lab, shardlab_test_home):
    store_dir = Path(tempfile.mkdtemp(prefix="shardlab-restart-"))
    store = store_dir / "runs.sqlite"
    victim = three_node_lab.nodes[1]
    process = start_run(three_node_lab, store_dir, 60)
    try:
        wait_for_intervals(store, 8)
        killed_at_unix_s(victim)
        time.sleep(5)
        bring_back(shardlab_test_home)  # starts only the stopped node, during the run
        stdout, stderr = process.communicate(timeout=300)
    finally:
        process.kill()
    assert process.returncode == 0, stderr + stdout
    with Store(store) as results:
        events = results.events(1)
    kinds = [(e.kind, e.detail.get("node")) for e in events if e.kind.startswith("node_")]
    assert ("node_left", victim.name) in kinds and ("node_joined", victim.name) in kinds
    assert f"node {victim.name} left" in stdout and f"node {victim.name} joined" in stdout
    assert "ACKNOWLEDGED DOCUMENTS LOST" not in stdout
