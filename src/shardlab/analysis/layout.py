"""The seeds' shard-layout notation: the number of shards on each node joined by dashes,
"2-2-1" for five shards on three nodes (seed 000, "Baseline Results - 3 Nodes").

Nodes are listed by name in natural order (digits compared as numbers, so node-2 comes
before node-10), never by count: the seeds' layouts such as "1-2-2-2-1-2" follow the nodes,
not the counts, and a fixed order lets two runs on the same nodes be read side by side. A
node holding no shard of the index shows as "0".

Three notations, all in that node order:
- `copies`: primaries and replicas together per node, "2-2-2" for 3 shards x 1 replica on 3
  nodes: what each node indexes;
- `primaries_only`: the seeds' own notation, primaries per node ("the layout of replica
  shards is not included");
- `split`: both apart, "1p1r-1p1r-1p1r", with "0" for a node holding none.
Unassigned copies belong to no node and are kept as a separate count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shardlab.telemetry.probe import Event

LAYOUT_EVENT = "layout"


@dataclass(frozen=True)
class NodeShards:
    node: str
    primaries: int
    replicas: int

    @property
    def copies(self) -> int:
        return self.primaries + self.replicas


@dataclass(frozen=True)
class ShardLayout:
    """Where one index's shard copies were at one moment; build it with `shard_layout`."""

    index: str
    phase: str  # start | end
    time_unix_s: float
    nodes: tuple[NodeShards, ...]  # natural order of node names
    unassigned: int
    copies: str  # "2-2-2": primaries + replicas per node
    primaries_only: str  # "1-1-1": the seeds' notation
    split: str  # "1p1r-1p1r-1p1r"
    shard_copies: int  # assigned copies, primaries and replicas
    primaries: int
    replicas: int


def natural_key(name: str) -> tuple[tuple[int, str], ...]:
    """Sort key comparing runs of digits as numbers: node-2 < node-10."""
    parts = re.split(r"(\d+)", name)
    # re.split with one group alternates text (even positions) and digits (odd positions)
    return tuple((int(part), "") if i % 2 else (-1, part) for i, part in enumerate(parts))


def in_node_order(names: Iterable[str]) -> list[str]:
    return sorted(set(names), key=lambda name: (natural_key(name), name))


def copies_notation(nodes: Sequence[NodeShards]) -> str:
    return "-".join(str(n.copies) for n in nodes)


def primaries_notation(nodes: Sequence[NodeShards]) -> str:
    return "-".join(str(n.primaries) for n in nodes)


def split_notation(nodes: Sequence[NodeShards]) -> str:
    return "-".join(f"{n.primaries}p{n.replicas}r" if n.copies else "0" for n in nodes)


def shard_layout(
    index: str,
    phase: str,
    time_unix_s: float,
    per_node: Mapping[str, tuple[int, int]],
    unassigned: int = 0,
    all_nodes: Iterable[str] = (),
) -> ShardLayout:
    """From (primaries, replicas) per node; `all_nodes` adds nodes that hold none."""
    names = in_node_order([*per_node, *all_nodes])
    nodes = tuple(NodeShards(name, *per_node.get(name, (0, 0))) for name in names)
    return ShardLayout(
        index=index,
        phase=phase,
        time_unix_s=time_unix_s,
        nodes=nodes,
        unassigned=unassigned,
        copies=copies_notation(nodes),
        primaries_only=primaries_notation(nodes),
        split=split_notation(nodes),
        shard_copies=sum(n.copies for n in nodes),
        primaries=sum(n.primaries for n in nodes),
        replicas=sum(n.replicas for n in nodes),
    )


def layout_from_detail(
    detail: Mapping[str, Any], time_unix_s: float, all_nodes: Iterable[str] = ()
) -> ShardLayout:
    """From a `layout` event's detail: {"phase", "index", "nodes": {node: {"primaries": n,
    "replicas": m}}, "unassigned": k}; a missing count is 0."""
    nodes: Mapping[str, Mapping[str, Any]] = detail.get("nodes") or {}
    per_node = {
        str(name): (int(counts.get("primaries", 0)), int(counts.get("replicas", 0)))
        for name, counts in nodes.items()
    }
    return shard_layout(
        index=str(detail.get("index", "")),
        phase=str(detail.get("phase", "")),
        time_unix_s=time_unix_s,
        per_node=per_node,
        unassigned=int(detail.get("unassigned", 0)),
        all_nodes=all_nodes,
    )


def start_and_end_layouts(
    events: Iterable[Event], index: str | None = None, all_nodes: Iterable[str] = ()
) -> tuple[ShardLayout | None, ShardLayout | None]:
    """The first `start` and the last `end` layout (of `index` when given)."""
    node_names = list(all_nodes)
    layouts = [
        layout_from_detail(event.detail, event.time_unix_s, node_names)
        for event in sorted(events, key=lambda e: e.time_unix_s)
        if event.kind == LAYOUT_EVENT and (index is None or event.detail.get("index") == index)
    ]
    starts = [layout for layout in layouts if layout.phase == "start"]
    ends = [layout for layout in layouts if layout.phase == "end"]
    return (starts[0] if starts else None, ends[-1] if ends else None)
