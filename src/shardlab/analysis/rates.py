"""Telemetry series over the measured window: the increase and per-second rate of a
cumulative counter, and the mean, maximum and last value of a gauge.

A series is the time-ordered `(time_unix_s, value)` points of one source and metric. Only
points inside the window (edges included) count, and nothing is extrapolated to the window's
edges: a counter's increase is what was observed between its first and last sample in the
window, and its rate is that increase over the time those samples span.

A counter that goes down means its source restarted and counted again from zero, so the
point after the drop contributes its whole value (what was counted since the restart), never
a negative difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from shardlab.results import Interval

if TYPE_CHECKING:
    from shardlab.telemetry.probe import Sample

Point = tuple[float, float]  # (time_unix_s, value)
SeriesKey = tuple[str, str]  # (source, metric)

COUNTER_SUFFIX = "_total"


@dataclass(frozen=True)
class Window:
    """The measured phase: the run minus its warm-up, on the wall clock."""

    start_unix_s: float
    end_unix_s: float

    def __post_init__(self) -> None:
        if self.end_unix_s < self.start_unix_s:
            raise ValueError(
                f"window ends ({self.end_unix_s}) before it starts ({self.start_unix_s})"
            )

    @property
    def duration_s(self) -> float:
        return self.end_unix_s - self.start_unix_s

    def holds(self, time_unix_s: float) -> bool:
        return self.start_unix_s <= time_unix_s <= self.end_unix_s


def is_counter(metric: str) -> bool:
    """A cumulative counter as the source reports it (`..._total`); anything else is a gauge."""
    return metric.endswith(COUNTER_SUFFIX)


def series_by_key(
    samples: Iterable[Sample], probe: str | None = None
) -> dict[SeriesKey, list[Point]]:
    """Samples grouped by (source, metric), each series in time order; only `probe`'s when
    given."""
    grouped: dict[SeriesKey, list[Point]] = {}
    for sample in samples:
        if probe is not None and sample.probe != probe:
            continue
        grouped.setdefault((sample.source, sample.metric), []).append(
            (sample.time_unix_s, sample.value)
        )
    for points in grouped.values():
        points.sort(key=lambda point: point[0])
    return grouped


def points_in(points: Sequence[Point], window: Window) -> list[Point]:
    """The points inside the window, in time order."""
    return sorted((p for p in points if window.holds(p[0])), key=lambda point: point[0])


@dataclass(frozen=True)
class CounterStats:
    increase: float  # counted between the first and the last sample in the window
    rate_per_s: float | None  # increase / span_s; None when the samples span no time
    span_s: float
    resets: int  # drops seen: the source restarted
    samples: int


def increase_of(points: Sequence[Point]) -> tuple[float, int]:
    """(increase, resets) over time-ordered counter points, a drop counted as a reset."""
    increase = 0.0
    resets = 0
    for (_, before), (_, after) in pairwise(points):
        if after >= before:
            increase += after - before
        else:
            resets += 1
            increase += after  # counted again from zero since the restart
    return increase, resets


def counter_stats(points: Sequence[Point], window: Window) -> CounterStats | None:
    """None when the counter has no sample in the window."""
    inside = points_in(points, window)
    if not inside:
        return None
    increase, resets = increase_of(inside)
    span_s = inside[-1][0] - inside[0][0]
    return CounterStats(
        increase=increase,
        rate_per_s=increase / span_s if span_s > 0 else None,
        span_s=span_s,
        resets=resets,
        samples=len(inside),
    )


def counter_increase(points: Sequence[Point], window: Window) -> float | None:
    stats = counter_stats(points, window)
    return stats.increase if stats else None


def counter_rate_per_s(points: Sequence[Point], window: Window) -> float | None:
    stats = counter_stats(points, window)
    return stats.rate_per_s if stats else None


@dataclass(frozen=True)
class GaugeStats:
    mean: float  # plain: the sampler reads at a fixed period, each sample stands for as long
    time_weighted_mean: float  # each sample held until the next, the last until window end
    min: float
    max: float
    last: float
    samples: int


def time_weighted_mean(inside: Sequence[Point], end_unix_s: float) -> float:
    """Sample-and-hold mean of time-ordered points, the last held until `end_unix_s`; the
    plain mean when they span no time at all."""
    times = [t for t, _ in inside[1:]] + [max(end_unix_s, inside[-1][0])]
    weights = [after - t for (t, _), after in zip(inside, times, strict=True)]
    total_s = sum(weights)
    if total_s <= 0:
        return sum(v for _, v in inside) / len(inside)
    return sum(v * w for (_, v), w in zip(inside, weights, strict=True)) / total_s


def gauge_stats(points: Sequence[Point], window: Window) -> GaugeStats | None:
    """None when the gauge has no sample in the window."""
    inside = points_in(points, window)
    if not inside:
        return None
    values = [v for _, v in inside]
    return GaugeStats(
        mean=sum(values) / len(values),
        time_weighted_mean=time_weighted_mean(inside, window.end_unix_s),
        min=min(values),
        max=max(values),
        last=values[-1],
        samples=len(values),
    )


def gauge_mean(points: Sequence[Point], window: Window) -> float | None:
    stats = gauge_stats(points, window)
    return stats.mean if stats else None


def gauge_max(points: Sequence[Point], window: Window) -> float | None:
    stats = gauge_stats(points, window)
    return stats.max if stats else None


def gauge_last(points: Sequence[Point], window: Window) -> float | None:
    stats = gauge_stats(points, window)
    return stats.last if stats else None


def run_start_unix_s(intervals: Sequence[Interval]) -> float | None:
    """When the run started on the wall clock: the first interval's start minus its offset."""
    if not intervals:
        return None
    first = min(intervals, key=lambda interval: interval.start_unix_s)
    return first.start_unix_s - first.start_s


def run_end_unix_s(intervals: Sequence[Interval]) -> float | None:
    if not intervals:
        return None
    return max(interval.start_unix_s + interval.duration_s for interval in intervals)


def intervals_in(intervals: Iterable[Interval], window: Window) -> list[Interval]:
    """The engine intervals whose midpoint lies in the window, in time order: a warm-up
    boundary that cuts an interval gives it to the side holding most of it."""
    inside = [i for i in intervals if window.holds(i.start_unix_s + i.duration_s / 2)]
    return sorted(inside, key=lambda interval: interval.start_unix_s)
