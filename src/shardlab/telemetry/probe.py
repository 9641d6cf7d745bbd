"""What every probe shares: the rows it returns, the context it is built from, and the one
interface the sampler drives (`sample(now_unix_s)`, then `close(now_unix_s)` at the end).

Times are wall-clock seconds since the Unix epoch, the same time base as the engine's
intervals (`Interval.start_unix_s`), so any sample can be put beside the load.

Metric names carry their unit (`_bytes`, `_ms`, `_percent`); a name ending in `_total` is
a cumulative counter as the source reports it (rates come from differences, in analysis),
anything else is a gauge read at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from shardlab.cluster.client import ClusterClient


@dataclass(frozen=True)
class Sample:
    """One value at one time: `probe` read `metric` of `source` (a node name, `host`,
    `driver`, `cluster`)."""

    time_unix_s: float
    probe: str
    source: str
    metric: str
    value: float


@dataclass(frozen=True)
class Event:
    """Something that happened, not a number: a health change, the shard layout, a node
    that joined or left, a probe that failed."""

    time_unix_s: float
    probe: str
    kind: str
    detail: dict[str, Any] = field(default_factory=dict)


Row = Sample | Event


@dataclass(frozen=True)
class ProbeContext:
    """What a probe may need to know about the run it watches."""

    client: ClusterClient  # the cluster's admin API
    index: str  # the run's index
    cluster_is_local: bool  # a local lab: the cluster's nodes share this host
    driver_pid: int  # the process running the engine (this one)


class Probe(Protocol):
    name: str

    def sample(self, now_unix_s: float) -> Sequence[Row]:
        """Read once; raise on failure (the sampler counts and logs it, never fatal)."""
        ...

    def close(self, now_unix_s: float) -> Sequence[Row]:
        """The last rows at the end of the run (e.g. the final shard layout)."""
        ...
