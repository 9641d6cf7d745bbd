"""`shardlab run systembase` end to end against a real OpenSearch started by shardlab."""

import json
import re
import signal
import sqlite3
import time

import pytest

from shardlab.cluster.client import ClusterClient

from .cli_helpers import popen_shardlab, shardlab, store_arg

pytestmark = pytest.mark.opensearch


def test_a_timed_run_counts_exactly_what_the_index_holds(local_opensearch, tmp_path):
    url = local_opensearch.urls[0]
    result = shardlab(
        "run",
        "systembase",
        "--target",
        url,
        "--duration",
        "6s",
        "--shards",
        "2",
        "--replicas",
        "0",
        "--clients",
        "4",
        *store_arg(tmp_path),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    out = result.stdout
    for header in (
        "# samples",
        "avg service (ms)",
        "throughput (ops/s)",
        "# errors",
        "error rate",
        "docs/s",
        "service (sent -> answered)",
        "response (due -> answered)",
        "p50",
        "p99",
    ):
        assert header in out
    assert "(matches)" in out
    acked = re.search(r"([\d,]+) documents acknowledged over the whole run", out)
    indexed = int(acked.group(1).replace(",", ""))
    assert indexed > 0
    assert ClusterClient([url]).get("/systembase/_count")["count"] == indexed

    listed = shardlab("runs", "list", *store_arg(tmp_path))
    assert listed.returncode == 0
    assert "systembase/bulk" in listed.stdout and "completed" in listed.stdout
    shown = shardlab("runs", "show", "1", "--intervals", *store_arg(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert '"shards": 2' in shown.stdout and "per interval" in shown.stdout
    assert '"distribution": "opensearch"' in shown.stdout


def test_a_doc_count_run_sends_exactly_that_many_bigbulk_docs(local_opensearch, tmp_path):
    url = local_opensearch.urls[0]
    result = shardlab(
        "run",
        "systembase",
        "--target",
        url,
        "--variant",
        "bigbulk",
        "--docs",
        "2500",
        "--bulk-docs",
        "300",
        "--shards",
        "1",
        "--replicas",
        "0",
        "--clients",
        "3",
        *store_arg(tmp_path),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    client = ClusterClient([url])
    assert client.get("/systembase/_count")["count"] == 2500
    hit = client.get("/systembase/_search?size=1")["hits"]["hits"][0]["_source"]
    assert hit["data1"] == "x" * 12000 and 0 <= hit["pid"] <= 9
    assert hit["hostip"] == "10.1.0." + hit["hostname"].removeprefix("Hostname")
    # 2500 docs in bulks of 300: 8 full + 1 of 100
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        requests = db.execute("SELECT SUM(requests) FROM intervals").fetchone()[0]
    assert requests == 9


def test_an_index_shardlab_did_not_create_is_left_alone(local_opensearch, tmp_path):
    url = local_opensearch.urls[0]
    client = ClusterClient([url])
    client.put("/someone-elses", {"settings": {"number_of_replicas": 0}})
    client.put("/someone-elses/_doc/1?refresh=true", {"precious": True})
    result = shardlab(
        "run",
        "systembase",
        "--target",
        url,
        "--index",
        "someone-elses",
        "--duration",
        "2s",
        *store_arg(tmp_path),
    )
    assert result.returncode == 2
    assert "someone-elses" in result.stderr and "--force" in result.stderr
    assert "Traceback" not in result.stderr
    assert client.get("/someone-elses/_count")["count"] == 1
    client.delete("/someone-elses")


def test_ctrl_c_keeps_what_was_measured(local_opensearch, tmp_path):
    url = local_opensearch.urls[0]
    process = popen_shardlab(
        "run",
        "systembase",
        "--target",
        url,
        "--duration",
        "120s",
        "--shards",
        "1",
        "--replicas",
        "0",
        "--clients",
        "2",
        *store_arg(tmp_path),
    )
    store = tmp_path / "runs.sqlite"
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and stored < 3:
        time.sleep(0.5)
        if store.exists():
            with sqlite3.connect(store) as db:
                try:
                    stored = db.execute("SELECT COUNT(*) FROM intervals").fetchone()[0]
                except sqlite3.OperationalError:
                    stored = 0
    assert stored >= 3, "the run never stored 3 intervals"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "(interrupted)" in stdout
    shown = shardlab("runs", "list", *store_arg(tmp_path))
    assert "interrupted" in shown.stdout
    with sqlite3.connect(store) as db:
        (summary,) = db.execute("SELECT summary_json FROM runs").fetchone()
    check = json.loads(summary)["index_check"]
    assert check["doc_count"] == check["docs_acked"] > 0


def test_a_refused_plan_leaves_the_index_alone(local_opensearch, tmp_path):
    # a CA file that does not exist is refused before anything touches the index,
    # even with --force
    url = local_opensearch.urls[0]
    client = ClusterClient([url])
    client.put("/systembase-kept", {"settings": {"number_of_replicas": 0}})
    result = shardlab(
        "run",
        "systembase",
        "--target",
        f"{url},https://127.0.0.1:9",
        "--ca-cert",
        str(tmp_path / "missing-ca.pem"),
        "--index",
        "systembase-kept",
        "--force",
        *store_arg(tmp_path),
    )
    assert result.returncode == 2, result.stdout
    assert "--ca-cert" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert client.exists("/systembase-kept")
    assert "created_by" not in str(client.get("/systembase-kept/_mapping"))
    client.delete("/systembase-kept")
