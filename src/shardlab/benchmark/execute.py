"""During the load: `run(plan) -> RunResult`, the one way the engine is driven.

The engine runs on its own threads; this thread takes one interval record at a time and
hands it, with the telemetry gathered meanwhile, to a `Recorder` (the store, for a normal
run). The probes sample on the sampler's thread on the same wall clock as the intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from shardlab import _engine
from shardlab.driver import drive
from shardlab.plan import LoadPlan
from shardlab.results import Interval, Totals
from shardlab.telemetry.probe import ProbeContext, Row
from shardlab.telemetry.probes import probes_for
from shardlab.telemetry.sampler import Sampler


class Recorder(Protocol):
    """Where a run's measurements go as they arrive."""

    def interval(self, interval: Interval) -> None: ...

    def telemetry(self, rows: Sequence[Row]) -> None: ...


@dataclass(frozen=True)
class RunResult:
    totals: Totals
    interrupted: bool  # stopped early by Ctrl-C
    telemetry: dict[str, Any] = field(default_factory=dict)  # SamplerStats, as stored


def run(
    plan: LoadPlan,
    engine: _engine.Engine,
    probe_context: ProbeContext,
    recorder: Recorder,
    on_interval: Callable[[Interval], None] = lambda interval: None,
    after_load: Callable[[Totals], None] = lambda totals: None,
) -> RunResult:
    """Drive the engine to the end of the plan. `after_load` runs once the load has ended
    and before the probes take their last rows, so that what it does (refreshing and
    counting the index) shows in them: the final layout and index stats."""
    sampler = None
    if plan.telemetry.enabled:
        sampler = Sampler(probes_for(probe_context), plan.telemetry.sample_interval_s)
        sampler.start()

    def record(interval: Interval) -> None:
        recorder.interval(interval)
        if sampler is not None:
            recorder.telemetry(sampler.drain())
        on_interval(interval)

    try:
        result = drive(engine, record)
        after_load(result.totals)
    finally:
        if sampler is not None:
            sampler.stop()
            recorder.telemetry(sampler.drain())
    stats = asdict(sampler.stats()) if sampler is not None else {}
    return RunResult(result.totals, result.interrupted, stats)
