"""Builders for telemetry rows and engine intervals, so tests state only what matters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shardlab.results import Counters, Interval, LatencySummary
from shardlab.telemetry.probe import Event, Sample


def series(
    source: str, metric: str, points: Sequence[tuple[float, float]], probe: str = "nodes"
) -> list[Sample]:
    return [Sample(t, probe, source, metric, v) for t, v in points]


def event(time_unix_s: float, kind: str, probe: str = "cluster", **detail: Any) -> Event:
    return Event(time_unix_s, probe, kind, detail)


def layout_event(
    time_unix_s: float, phase: str, nodes: dict[str, tuple[int, int]], **rest: Any
) -> Event:
    per_node = {n: {"primaries": p, "replicas": r} for n, (p, r) in nodes.items()}
    detail = {"phase": phase, "index": "systembase", "nodes": per_node, "unassigned": 0}
    return Event(time_unix_s, "cluster", "layout", {**detail, **rest})


def interval(
    start_s: float,
    run_start_unix_s: float = 1000.0,
    duration_s: float = 1.0,
    service_p99_ms: float = 0.0,
    response_p99_ms: float = 0.0,
    schedule_lag_max_ms: float = 0.0,
    **counts: int,
) -> Interval:
    return Interval(
        index=int(start_s),
        start_s=start_s,
        duration_s=duration_s,
        counters=Counters(**counts),
        service=LatencySummary(p99_ms=service_p99_ms),
        response=LatencySummary(p99_ms=response_p99_ms),
        start_unix_s=run_start_unix_s + start_s,
        schedule_lag_max_ms=schedule_lag_max_ms,
    )
