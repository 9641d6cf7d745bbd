"""What a local node is given (heap, ports, settings, jvm.options), Java detection and the
lab state record, all checked against values worked out by hand."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from shardlab.cluster.distribution import ELASTICSEARCH, OPENSEARCH
from shardlab.cluster.java import find_java, major_of, parse_java_version
from shardlab.cluster.local import ClusterState, LocalCluster
from shardlab.cluster.node_config import (
    choose_ports,
    default_heap_mb,
    default_roles,
    plan_layout,
    render_jvm_options,
    render_settings,
)
from shardlab.cluster.node_process import summarize_log
from shardlab.errors import UsageError

from .lab_records import recorded_state

GB = 1024**3


@pytest.mark.parametrize(
    ("nodes", "memory_gb", "heap_mb"),
    [
        (1, 24, 4096),  # 24576 / 4 = 6144 -> capped at 4096
        (3, 24, 2048),  # 6144 / 3 = 2048
        (2, 24, 3072),  # 6144 / 2 = 3072
        (1, 8, 2048),  # 8192 / 4 = 2048
        (3, 16, 1280),  # 4096 / 3 = 1365 -> 1280 in 256 MB steps
        (3, 4, 512),  # 1024 / 3 = 341 -> 256 -> floor 512
        (1, 1, 512),  # 256 -> floor 512
    ],
)
def test_default_heap(nodes, memory_gb, heap_mb):
    assert default_heap_mb(nodes, memory_gb * GB) == heap_mb


def test_ports_prefer_the_usual_range():
    taken = {9200, 9202}
    ports = choose_ports(3, 9200, lambda p: p not in taken, lambda: 40000)
    assert ports == [9201, 9203, 9204]


def test_ports_fall_back_to_any_free_port():
    offered = iter([40000, 40000, 40001])
    ports = choose_ports(2, 9200, lambda p: False, lambda: next(offered))
    assert ports == [40000, 40001]


def layout(nodes: int, flavor=OPENSEARCH, version="2.19.1"):
    return plan_layout(
        Path("/labs/default"),
        default_roles(flavor, version, nodes),
        [9200 + i for i in range(nodes)],
        [9300 + i for i in range(nodes)],
    )


def test_settings_for_one_node():
    (node,) = layout(1)
    assert render_settings(OPENSEARCH, "2.19.1", "shardlab-default", node, [node]) == (
        "# Written by shardlab for opensearch 2.19.1; rewritten on every start.\n"
        'cluster.name: "shardlab-default"\n'
        'node.name: "node-1"\n'
        'node.roles: ["cluster_manager", "data", "ingest"]\n'
        'network.host: "127.0.0.1"\n'
        "http.port: 9200\n"
        "transport.port: 9300\n"
        'path.data: "/labs/default/node-1/data"\n'
        'path.logs: "/labs/default/node-1/logs"\n'
        'discovery.type: "single-node"\n'
    )


def test_settings_for_three_nodes():
    nodes = layout(3)
    text = render_settings(OPENSEARCH, "2.19.1", "shardlab-default", nodes[2], nodes)
    lines = text.splitlines()
    assert 'node.name: "node-3"' in lines
    assert "http.port: 9202" in lines
    assert "transport.port: 9302" in lines
    assert 'path.data: "/labs/default/node-3/data"' in lines
    assert 'discovery.seed_hosts: ["127.0.0.1:9300", "127.0.0.1:9301", "127.0.0.1:9302"]' in lines
    assert 'cluster.initial_cluster_manager_nodes: ["node-1", "node-2", "node-3"]' in lines
    assert not any(line.startswith("discovery.type") for line in lines)


def test_elasticsearch_7_uses_master_names():
    nodes = layout(2, ELASTICSEARCH, "7.10.2")
    text = render_settings(ELASTICSEARCH, "7.10.2", "shardlab-x", nodes[0], nodes)
    assert 'node.roles: ["master", "data", "ingest"]' in text
    assert 'cluster.initial_master_nodes: ["node-1", "node-2"]' in text


# The relevant lines of OpenSearch 2.19.1's config/jvm.options.
STOCK_JVM_OPTIONS = """\
-Xms1g
-Xmx1g
11-:-XX:+UseG1GC
-Djava.io.tmpdir=${OPENSEARCH_TMPDIR}
-XX:+HeapDumpOnOutOfMemoryError
-XX:HeapDumpPath=data
-XX:ErrorFile=logs/hs_err_pid%p.log
8:-Xloggc:logs/gc.log
9-:-Xlog:gc*,gc+age=trace,safepoint:file=logs/gc.log:utctime,pid,tags:filecount=32,filesize=64m
18-:-Djava.security.manager=allow
"""


def test_jvm_options_put_heap_and_every_path_in_the_node():
    (node,) = layout(1)
    assert render_jvm_options(STOCK_JVM_OPTIONS, 512, node) == (
        "# heap set by shardlab (512 MB)\n"
        "-Xms512m\n"
        "-Xmx512m\n"
        "11-:-XX:+UseG1GC\n"
        "-Djava.io.tmpdir=/labs/default/node-1/tmp\n"
        "-XX:+HeapDumpOnOutOfMemoryError\n"
        "-XX:HeapDumpPath=/labs/default/node-1/logs\n"
        "-XX:ErrorFile=/labs/default/node-1/logs/hs_err_pid%p.log\n"
        "8:-Xloggc:/labs/default/node-1/logs/gc.log\n"
        "9-:-Xlog:gc*,gc+age=trace,safepoint:file=/labs/default/node-1/logs/gc.log"
        ":utctime,pid,tags:filecount=32,filesize=64m\n"
        "18-:-Djava.security.manager=allow\n"
    )


# Real `java -version` outputs (stderr).
DEBIAN_17 = """\
openjdk version "17.0.15" 2025-04-15
OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)
OpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)
"""
ORACLE_8 = """\
java version "1.8.0_292"
Java(TM) SE Runtime Environment (build 1.8.0_292-b10)
Java HotSpot(TM) 64-Bit Server VM (build 25.292-b10, mixed mode)
"""
OPENJDK_21 = """\
openjdk version "21" 2023-09-19
OpenJDK Runtime Environment (build 21+35-2513)
OpenJDK 64-Bit Server VM (build 21+35-2513, mixed mode, sharing)
"""
TEMURIN_25_PROPERTIES = """\
Property settings:
    file.encoding = UTF-8
    java.home = /usr/lib/jvm/temurin-25-jdk-amd64
    java.specification.version = 25
    java.version = 25.0.3
    java.version.date = 2026-04-21

openjdk version "25.0.3" 2026-04-21 LTS
OpenJDK Runtime Environment Temurin-25.0.3+9 (build 25.0.3+9-LTS)
OpenJDK 64-Bit Server VM Temurin-25.0.3+9 (build 25.0.3+9-LTS, mixed mode, sharing)
"""


def test_java_version_parsing():
    debian = parse_java_version(DEBIAN_17)
    assert debian is not None
    assert (debian.major, debian.version, debian.home) == (17, "17.0.15", None)
    oracle = parse_java_version(ORACLE_8)
    assert oracle is not None
    assert (oracle.major, oracle.version) == (8, "1.8.0_292")
    plain = parse_java_version(OPENJDK_21)
    assert plain is not None
    assert (plain.major, plain.version) == (21, "21")
    temurin = parse_java_version(TEMURIN_25_PROPERTIES)
    assert temurin is not None
    assert (temurin.major, temurin.version) == (25, "25.0.3")
    assert temurin.home == Path("/usr/lib/jvm/temurin-25-jdk-amd64")
    assert parse_java_version("bash: java: command not found") is None
    assert major_of("25-ea") == 25


def test_java_home_without_java_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENSEARCH_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(UsageError) as caught:
        find_java(11)
    assert caught.value.line().startswith(f"JAVA_HOME {tmp_path}: has no bin/java")


def test_no_suitable_java_says_what_to_install(tmp_path, monkeypatch):
    for name in ("OPENSEARCH_JAVA_HOME", "JAVA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on PATH
    with pytest.raises(UsageError) as caught:
        find_java(17, jvm_root=tmp_path)
    assert caught.value.line() == (
        "Java: no Java 17 or newer found (install one, e.g. apt-get install "
        "openjdk-17-jre-headless, or set JAVA_HOME)"
    )


# The console of an OpenSearch 2.19.1 node started with an unknown setting (stack trimmed).
FAILED_CONSOLE = """\
[2026-11-22T17:55:18,146][INFO ][o.o.e.ExtensionsManager  ] [node-1] ExtensionsManager initialized
[2026-11-22T17:55:18,748][ERROR][o.o.b.OpenSearchUncaughtExceptionHandler] [node-1] uncaught
org.opensearch.bootstrap.StartupException: java.lang.IllegalArgumentException: unknown setting [x]
\tat org.opensearch.bootstrap.OpenSearch.init(OpenSearch.java:184)
Caused by: java.lang.IllegalArgumentException: unknown setting [foo.bar] please check plugins
\t... 6 more
uncaught exception in thread [main]
java.lang.IllegalArgumentException: unknown setting [foo.bar] please check plugins
For complete error details, refer to the log at /var/lib/shardlab/labs/x/node-1/logs/x.log
"""


def test_log_summary_is_the_root_cause():
    assert summarize_log(FAILED_CONSOLE) == (
        "java.lang.IllegalArgumentException: unknown setting [foo.bar] please check plugins"
    )
    assert summarize_log("") == "(empty log)"
    assert summarize_log("error:\nsomething else went on\n") == "something else went on"


class _AnswersLikeANode(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps(
            {"cluster_name": "shardlab-default", "version": {"number": "2.19.1"}}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def answering_port() -> Iterator[int]:
    """A port of our own that answers GET / like a node (never the live lab's 9200), so
    whether a recorded node reads as running depends on its pid alone."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _AnswersLikeANode)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_state_round_trips_through_json(tmp_path):
    state = recorded_state(tmp_path, 1234)
    assert ClusterState.from_json(state.to_json()) == state
    assert "running" not in state.to_json()
    assert state.urls == ["http://127.0.0.1:9200"]


def test_a_dead_pid_reads_as_down(tmp_path, monkeypatch, answering_port):
    monkeypatch.setenv("SHARDLAB_HOME", str(tmp_path))
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    cluster = LocalCluster("default")
    cluster.directory.mkdir(parents=True)
    (cluster.directory / "lab.json").write_text(
        recorded_state(cluster.directory, int(finished.stdout), answering_port).to_json()
    )
    state = cluster.state()
    assert state is not None
    assert not state.running
    assert not state.nodes[0].running
    cluster.down()  # nothing to stop: no error, pid cleared
    after = cluster.state()
    assert after is not None and after.nodes[0].pid is None


def test_a_live_pid_of_another_program_reads_as_down(tmp_path, monkeypatch, answering_port):
    """Checked right after the spawn, when the exec may not have finished (/proc then reads
    empty): that must not count as the node, however the timing falls."""
    monkeypatch.setenv("SHARDLAB_HOME", str(tmp_path))
    cluster = LocalCluster("default")
    cluster.directory.mkdir(parents=True)
    other = subprocess.Popen(["sleep", "30"])
    try:
        (cluster.directory / "lab.json").write_text(
            recorded_state(cluster.directory, other.pid, answering_port).to_json()
        )
        state = cluster.state()
        assert state is not None and not state.running
    finally:
        other.kill()
        other.wait()


def test_the_same_node_with_its_pid_reads_as_running(tmp_path, monkeypatch, answering_port):
    """The counterpart: a process whose environment names the node's config is the node."""
    monkeypatch.setenv("SHARDLAB_HOME", str(tmp_path))
    cluster = LocalCluster("default")
    cluster.directory.mkdir(parents=True)
    recorded = recorded_state(cluster.directory, None, answering_port)
    config_dir = recorded.nodes[0].layout.config_dir
    node = subprocess.Popen(["sleep", "30"], env={"OPENSEARCH_PATH_CONF": str(config_dir)})
    try:
        (cluster.directory / "lab.json").write_text(
            replace(recorded, nodes=(replace(recorded.nodes[0], pid=node.pid),)).to_json()
        )
        state = cluster.state()
        assert state is not None and state.running
    finally:
        node.kill()
        node.wait()


def test_a_node_answering_for_another_cluster_is_not_the_labs(
    tmp_path, monkeypatch, answering_port
):
    """The lab's pid is alive, but its port is answered by another cluster (the node could
    not bind it): the lab is not running."""
    monkeypatch.setenv("SHARDLAB_HOME", str(tmp_path))
    cluster = LocalCluster("other")
    cluster.directory.mkdir(parents=True)
    recorded = replace(
        recorded_state(cluster.directory, None, answering_port), cluster_name="shardlab-other"
    )
    config_dir = recorded.nodes[0].layout.config_dir
    node = subprocess.Popen(["sleep", "30"], env={"OPENSEARCH_PATH_CONF": str(config_dir)})
    try:
        (cluster.directory / "lab.json").write_text(
            replace(recorded, nodes=(replace(recorded.nodes[0], pid=node.pid),)).to_json()
        )
        state = cluster.state()
        assert state is not None and not state.running
    finally:
        node.kill()
        node.wait()


def test_bad_lab_names_are_refused():
    with pytest.raises(UsageError, match=r"--lab \.\./etc"):
        LocalCluster("../etc")
