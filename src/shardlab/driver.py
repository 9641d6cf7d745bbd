"""The Python face of the native engine: a plan goes in, interval records and totals come out.

Python never touches a document or a request. It compiles the plan into the engine's spec
once, then asks for one interval record at a time (the engine releases the GIL while it
waits), so the progress display and the store keep up while Rust does the work. The first
Ctrl-C stops the load and drains what is in flight; the result is kept and marked.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from shardlab import _engine
from shardlab.cluster.client import Auth
from shardlab.errors import UsageError
from shardlab.plan import LoadPlan, Target
from shardlab.results import (
    Counters,
    ErrorSample,
    Interval,
    LatencySummary,
    TargetErrors,
    Totals,
)
from shardlab.workloads.base import Workload
from shardlab.workloads.index import index_path

BUILD_PROFILE = _engine.BUILD_PROFILE
DRAIN_TIMEOUT_S = 30.0
UNREACHABLE_TIMEOUT_S = 30.0  # every node down this long ends the run
# Only what the engine reads of a bulk response: a 1000-document answer shrinks from ~186 KB
# to ~25 KB, which halved the engine's CPU per document against a real node.
BULK_RESPONSE_FILTER = "filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason"


def engine_spec(plan: LoadPlan, target: Target, workload: Workload) -> dict[str, Any]:
    """The plan as the engine's spec (pure): see src/shardlab/_engine.pyi."""
    headers = []
    if target.user is not None:
        headers.append(["Authorization", Auth(target.user, target.password or "").header()])
    if plan.rate_per_s is None:
        schedule: dict[str, Any] = {"kind": "closed"}
    else:
        schedule = {"kind": "fixed", "rate_per_s": plan.rate_per_s}
    if plan.retry.kind == "none":
        retry: dict[str, Any] = {"kind": "none"}
    else:
        retry = {
            "kind": "backoff",
            "max_attempts": plan.retry.max_attempts,
            "initial_ms": plan.retry.initial_ms,
            "max_ms": plan.retry.max_ms,
        }
    bulk = {"docs": plan.bulk.docs} if plan.bulk.docs is not None else {"bytes": plan.bulk.bytes}
    return {
        "targets": list(target.urls),
        "bulk_path": f"{index_path(plan.index)}/_bulk?{BULK_RESPONSE_FILTER}",
        "headers": headers,
        "generator": workload.generator_spec(plan.variant, plan.seed),
        "bulk": bulk,
        "clients": plan.clients,
        "schedule": schedule,
        "stop": {"duration_s": plan.stop.duration_s, "docs": plan.stop.docs},
        "interval_s": plan.interval_s,
        "retry": retry,
        "threads": plan.engine_threads,
        "request_timeout_s": plan.request_timeout_s,
        "drain_timeout_s": DRAIN_TIMEOUT_S,
        "unreachable_timeout_s": UNREACHABLE_TIMEOUT_S,
        "tls": {
            "verify": target.verify_tls,
            "ca_file": str(target.ca_file) if target.ca_file else None,
        },
    }


def interval_record(interval: _engine.Interval) -> Interval:
    return Interval(
        index=interval.index,
        start_s=interval.start_s,
        duration_s=interval.duration_s,
        counters=Counters.of(interval.counters),
        service=LatencySummary.of(interval.service),
        response=LatencySummary.of(interval.response),
        service_histogram=interval.service.encoded(),
        response_histogram=interval.response.encoded(),
        start_unix_s=interval.start_unix_s,
        schedule_lag_max_ms=interval.schedule_lag_max_ms,
        failed_service=LatencySummary.of(interval.failed_service),
        failed_histogram=interval.failed_service.encoded(),
    )


def totals_record(totals: _engine.Totals) -> Totals:
    return Totals(
        elapsed_s=totals.elapsed_s,
        stopped_by=totals.stopped_by,
        in_flight_abandoned=totals.in_flight_abandoned,
        counters=Counters.of(totals.counters),
        service=LatencySummary.of(totals.service),
        response=LatencySummary.of(totals.response),
        errors=tuple(ErrorSample(e.kind, e.count, e.example) for e in totals.errors),
        service_histogram=totals.service.encoded(),
        response_histogram=totals.response.encoded(),
        started_unix_s=totals.started_unix_s,
        schedule_lag_max_ms=totals.schedule_lag_max_ms,
        failed_service=LatencySummary.of(totals.failed_service),
        target_errors=tuple(
            TargetErrors(t.url, t.connect_errors, t.transport_errors) for t in totals.target_errors
        ),
    )


@dataclass(frozen=True)
class DriveResult:
    totals: Totals
    interrupted: bool  # stopped early by Ctrl-C


def compile_engine(spec: dict[str, Any]) -> _engine.Engine:
    """Validate and compile the spec: no connection is opened yet."""
    try:
        return _engine.Engine(json.dumps(spec))
    except _engine.SpecError as error:
        raise UsageError("load plan", None, str(error)) from None


# In-flight bulk bodies may take at most this share of the machine's memory.
IN_FLIGHT_MEMORY_SHARE = 0.5


def check_in_flight_memory(clients: int, bulk_bytes: int, memory_bytes: int) -> None:
    """Each client holds one bulk body in flight: refuse a plan whose bodies alone would not
    fit (pure)."""
    in_flight_bytes = clients * bulk_bytes
    if in_flight_bytes > IN_FLIGHT_MEMORY_SHARE * memory_bytes:
        gib = 1024**3
        raise UsageError(
            "--clients",
            clients,
            f"with bulks of ~{bulk_bytes / 1024**2:,.1f} MiB would hold "
            f"~{in_flight_bytes / gib:,.1f} GiB in flight, more than half of this machine's "
            f"{memory_bytes / gib:,.1f} GiB",
            "use fewer --clients or smaller bulks (--bulk-docs, --bulk-bytes)",
        )


def drive(engine: _engine.Engine, on_interval: Callable[[Interval], None]) -> DriveResult:
    """Run the compiled load; call `on_interval` once per interval, on this thread."""
    stop_requested = threading.Event()

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        if stop_requested.is_set():
            raise KeyboardInterrupt  # a second Ctrl-C: stop waiting for the drain
        stop_requested.set()
        engine.stop()

    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, on_sigint) if in_main_thread else None
    try:
        engine.start()
        while not engine.finished:
            interval = engine.next_interval(0.2)
            if interval is not None:
                on_interval(interval_record(interval))
        totals = totals_record(engine.finish())
    except BaseException:
        engine.stop()  # never leave native workers sending after Python gave up
        raise
    finally:
        if in_main_thread:
            signal.signal(signal.SIGINT, previous)
    return DriveResult(totals=totals, interrupted=stop_requested.is_set())
