"""The lab state record: lab.json in the lab's directory, what `up` started and where.

It is only a record. Whether a node runs is computed when the lab is read (local.py), never
stored, so a crashed or rebooted lab reads as down rather than as stale "running". A file
that is not such a record (hand-edited, truncated, from another program) is a UsageError
naming the file, never a traceback.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from shardlab.cluster import node_process
from shardlab.cluster.node_config import NodeLayout
from shardlab.errors import UsageError

STATE_FILE = "lab.json"


@dataclass(frozen=True)
class NodeState:
    name: str
    pid: int | None  # None once stopped
    http_port: int
    transport_port: int
    roles: tuple[str, ...]
    directory: Path
    heap_mb: int
    running: bool = False  # computed on load, never stored

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def process_alive(self) -> bool:
        return node_process.is_node_process(self.pid, self.layout.config_dir)

    @property
    def layout(self) -> NodeLayout:
        return NodeLayout(
            self.name, self.roles, self.http_port, self.transport_port, self.directory
        )


@dataclass(frozen=True)
class ClusterState:
    lab: str
    flavor: str
    version: str
    cluster_name: str
    distribution_home: Path
    java_home: Path
    java_version: str
    run_as_user: str
    started_at: str  # ISO 8601, UTC
    nodes: tuple[NodeState, ...] = field(default_factory=tuple)

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    @property
    def running(self) -> bool:
        """Every node alive and answering."""
        return bool(self.nodes) and all(node.running for node in self.nodes)

    def to_json(self) -> str:
        record = asdict(self)
        for node in record["nodes"]:
            node.pop("running")
        return json.dumps(record, indent=2, default=str) + "\n"

    @classmethod
    def from_json(cls, text: str) -> ClusterState:
        """Raises ValueError, KeyError or TypeError when `text` is not such a record."""
        record = json.loads(text)
        nodes = tuple(
            NodeState(**{**n, "roles": tuple(n["roles"]), "directory": Path(n["directory"])})
            for n in record.pop("nodes")
        )
        for node in nodes:  # the numbers go to os.kill and into node settings
            numbers = (node.http_port, node.transport_port, node.heap_mb)
            if not all(type(n) is int for n in numbers) or type(node.pid) not in (int, type(None)):
                raise TypeError(f"node {node.name!r}: pid, ports and heap_mb must be integers")
        return cls(
            **{
                **record,
                "distribution_home": Path(record["distribution_home"]),
                "java_home": Path(record["java_home"]),
            },
            nodes=nodes,
        )


def read_record(lab_dir: Path) -> ClusterState | None:
    """The lab's record, or None when it has none (never started)."""
    path = lab_dir / STATE_FILE
    if not path.is_file():
        return None
    try:
        return ClusterState.from_json(path.read_text())
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        # ValueError covers bad JSON and bad UTF-8; the others a wrong or missing field.
        found = f"no field {error}" if isinstance(error, KeyError) else str(error)
        raise UsageError(
            STATE_FILE,
            path,
            f"is not a shardlab lab record ({found})",
            "remove the lab directory, or fix the file",
        ) from None


def write_record(lab_dir: Path, state: ClusterState) -> None:
    """Replace the record atomically: a reader sees the old one or the new one, never half."""
    path = lab_dir / STATE_FILE
    part = path.with_suffix(".json.part")
    part.write_text(state.to_json())
    os.replace(part, path)
