"""The glass ceiling: the moment the cluster began refusing work, seen by the engine (a
429, or items rejected) or by a node (its write thread pool's rejected count rose).

Rejections are what the seeds watched for ("rejected execution (queue capacity 50)", seed
000): the load at that moment is what the cluster could take without errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from shardlab.analysis.rates import run_start_unix_s, series_by_key
from shardlab.results import Counters, Interval

if TYPE_CHECKING:
    from shardlab.telemetry.probe import Sample

ENGINE = "engine"
NODE_REJECTED_METRIC = "thread_pool.write.rejected_total"


@dataclass(frozen=True)
class RejectionStart:
    time_unix_s: float  # an interval's start, or the node sample that first showed a rise
    since_start_s: float | None  # seconds since the run started
    seen_by: str  # "engine" or the node's name
    interval_index: int | None  # the engine interval, when the engine saw it first


def rejected_in(counters: Counters) -> bool:
    """Whether the cluster refused some of this work: a whole request got 429, or items were
    rejected. Item errors count only when rejections caused them: rejected items either
    stay rejected (docs_rejected) or are retried (the engine retries only 429 items)."""
    return counters.requests_http_429 > 0 or counters.docs_rejected > 0 or counters.retries > 0


def first_engine_rejection(intervals: Sequence[Interval]) -> Interval | None:
    in_time = sorted(intervals, key=lambda interval: interval.start_unix_s)
    return next((i for i in in_time if rejected_in(i.counters)), None)


def first_node_rejection(
    samples: Sequence[Sample], not_before_unix_s: float | None = None
) -> tuple[float, str] | None:
    """(time, node) of the first node sample whose write rejected count rose since the one
    before (after a restart, any count above zero is a rise); samples before
    `not_before_unix_s` are only a baseline."""
    first: tuple[float, str] | None = None
    for (node, metric), points in series_by_key(samples, "nodes").items():
        if metric != NODE_REJECTED_METRIC:
            continue
        for (_, before), (time_unix_s, after) in pairwise(points):
            if not_before_unix_s is not None and time_unix_s < not_before_unix_s:
                continue
            rose = after > before or (after < before and after > 0)
            if rose:
                if first is None or (time_unix_s, node) < first:
                    first = (time_unix_s, node)
                break
    return first


def rejections_began(
    intervals: Sequence[Interval], samples: Sequence[Sample]
) -> RejectionStart | None:
    """The earliest rejection the engine or any node saw during the run, or None. On a tie
    the engine's is kept: it says which interval."""
    run_start = run_start_unix_s(intervals)
    by_engine = first_engine_rejection(intervals)
    by_node = first_node_rejection(samples, run_start)
    if by_engine is not None and (by_node is None or by_engine.start_unix_s <= by_node[0]):
        return RejectionStart(
            time_unix_s=by_engine.start_unix_s,
            since_start_s=by_engine.start_s,
            seen_by=ENGINE,
            interval_index=by_engine.index,
        )
    if by_node is not None:
        time_unix_s, node = by_node
        return RejectionStart(
            time_unix_s=time_unix_s,
            since_start_s=time_unix_s - run_start if run_start is not None else None,
            seen_by=node,
            interval_index=None,
        )
    return None
