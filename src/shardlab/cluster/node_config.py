"""What a local node is given, as plain functions of plain data: heap, ports, settings file,
jvm.options. No I/O here; `local` writes the results and starts the processes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shardlab.cluster.distribution import Flavor

MIN_HEAP_MB = 512  # below this OpenSearch 2.x/3.x start slowly and GC constantly
MAX_HEAP_MB = 4096  # beyond this a lab node mostly takes page cache the benchmark needs
HEAP_STEP_MB = 256
HTTP_PORT_BASE = 9200
TRANSPORT_PORT_BASE = 9300
PORT_RANGE = 100  # 9200-9299 and 9300-9399, as the servers themselves pick


def default_heap_mb(nodes: int, total_memory_bytes: int) -> int:
    """Heap per node: a quarter of RAM shared by the nodes, in 256 MB steps, 512-4096 MB.

    Elastic's rule is "at most half of RAM for the heap, the rest for the page cache", for a
    machine that runs nothing else. A lab machine also runs the load driver (and on a laptop,
    everything else), so the nodes together get a quarter: indexing and search speed come
    from the page cache, not from a heap bigger than the workload needs. 4 GB per node is
    plenty for benchmark indices and keeps startup and full GCs short; 512 MB is the least a
    node runs comfortably with. Examples: 24 GB, 1 node -> 4096; 24 GB, 3 nodes -> 2048;
    8 GB, 1 node -> 2048; 4 GB, 3 nodes -> 512 (the floor wins).
    """
    if nodes < 1:
        raise ValueError("nodes must be at least 1")
    share_mb = total_memory_bytes // (1024 * 1024) // 4 // nodes
    stepped_mb = share_mb // HEAP_STEP_MB * HEAP_STEP_MB
    return max(MIN_HEAP_MB, min(MAX_HEAP_MB, stepped_mb))


def choose_ports(
    count: int, preferred_base: int, is_free: Callable[[int], bool], any_free: Callable[[], int]
) -> list[int]:
    """`count` ports, the first free ones from preferred_base on, else any free port."""
    ports = [p for p in range(preferred_base, preferred_base + PORT_RANGE) if is_free(p)][:count]
    while len(ports) < count:
        port = any_free()
        if port not in ports:
            ports.append(port)
    return ports


@dataclass(frozen=True)
class NodeLayout:
    """One node of a lab: its name, roles, ports and directories under the lab directory."""

    name: str
    roles: tuple[str, ...]
    http_port: int
    transport_port: int
    directory: Path

    @property
    def config_dir(self) -> Path:
        return self.directory / "config"

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def logs_dir(self) -> Path:
        return self.directory / "logs"

    @property
    def tmp_dir(self) -> Path:
        return self.directory / "tmp"

    @property
    def console_log(self) -> Path:
        """The process's stdout and stderr (JVM errors before logging starts land here)."""
        return self.logs_dir / "console.log"


def node_name(index: int) -> str:
    return f"node-{index + 1}"


def plan_layout(
    lab_dir: Path,
    roles: Sequence[tuple[str, ...]],
    http_ports: Sequence[int],
    transport_ports: Sequence[int],
) -> list[NodeLayout]:
    """One NodeLayout per entry of `roles` (the node count is len(roles))."""
    return [
        NodeLayout(
            node_name(i), tuple(r), http_ports[i], transport_ports[i], lab_dir / node_name(i)
        )
        for i, r in enumerate(roles)
    ]


def default_roles(flavor: Flavor, version: str, nodes: int) -> list[tuple[str, ...]]:
    """Every node does everything for now (manager-eligible, data, ingest)."""
    return [(flavor.manager_role(version), "data", "ingest")] * nodes


def render_settings(
    flavor: Flavor, version: str, cluster_name: str, node: NodeLayout, nodes: Sequence[NodeLayout]
) -> str:
    """The node's opensearch.yml / elasticsearch.yml (JSON values are valid YAML)."""
    settings: dict[str, object] = {
        "cluster.name": cluster_name,
        "node.name": node.name,
        "node.roles": list(node.roles),
        "network.host": "127.0.0.1",
        "http.port": node.http_port,
        "transport.port": node.transport_port,
        "path.data": str(node.data_dir),
        "path.logs": str(node.logs_dir),
    }
    if len(nodes) == 1:
        settings["discovery.type"] = "single-node"
    else:
        manager_role = flavor.manager_role(version)
        settings["discovery.seed_hosts"] = [f"127.0.0.1:{n.transport_port}" for n in nodes]
        settings[flavor.initial_managers_setting(version)] = [
            n.name for n in nodes if manager_role in n.roles
        ]
    lines = [f"# Written by shardlab for {flavor.name} {version}; rewritten on every start."]
    lines += [f"{key}: {json.dumps(value)}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


_HEAP_LINE = re.compile(r"^(?:[\d-]+:)?-Xm[sx]\S+$")
_HEAP_DUMP = re.compile(r"-XX:HeapDumpPath=\S+")
_TMPDIR = re.compile(r"-Djava\.io\.tmpdir=\S+")
_RELATIVE_LOGS = re.compile(r"(?<=[=:])logs/")


def render_jvm_options(original: str, heap_mb: int, node: NodeLayout) -> str:
    """The distribution's jvm.options with the heap set and every path inside the node.

    The stock file points heap dumps, hs_err and GC logs at paths relative to the
    distribution (shared, read-only for the service account) and the temp dir at an
    environment variable; all of them move into the node's own directory.
    """
    kept: list[str] = []
    for line in original.splitlines():
        if _HEAP_LINE.match(line.strip()):
            continue
        line = _HEAP_DUMP.sub(f"-XX:HeapDumpPath={node.logs_dir}", line)
        line = _TMPDIR.sub(f"-Djava.io.tmpdir={node.tmp_dir}", line)
        line = _RELATIVE_LOGS.sub(f"{node.logs_dir}/", line)
        kept.append(line)
    heap = [f"# heap set by shardlab ({heap_mb} MB)", f"-Xms{heap_mb}m", f"-Xmx{heap_mb}m"]
    return "\n".join([*heap, *kept]) + "\n"
