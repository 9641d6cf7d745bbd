"""Was the driver, not the cluster, the limit? Warnings with advice when the engine's threads
or the Python side ran out of CPU, when an open model could not keep its schedule or its
requests queued in the client, when the driver's host had no CPU left, or when a closed loop
left the cluster idle waiting for more requests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shardlab.analysis.activity import ClusterActivity, ratio
from shardlab.analysis.rates import Window, counter_stats, gauge_stats, series_by_key
from shardlab.results import Counters, Interval

if TYPE_CHECKING:
    from shardlab.telemetry.probe import Sample

SCHEDULES = ("closed", "fixed", "poisson")

ENGINE_BUSY_SHARE = 0.8  # engine cores used / engine threads
PYTHON_BUSY_CORES = 0.8  # the Python side holds the GIL: one core at most
LAG_SHARE_OF_PERIOD = 0.1  # mean schedule lag / each client's period
LAG_MAX_MS = 1000.0
QUEUEING_RATIO = 2.0  # response p99 / service p99
QUEUEING_GAP_MS = 50.0  # response p99 - service p99
QUEUEING_INTERVAL_SHARE = 0.1  # of the intervals with requests
HOST_IDLE_MIN_PERCENT = 10.0
# A busy host is the driver's concern only when the driver takes a real share of it: a local
# lab's node saturating the host while the driver uses 0.02 cores is the expected picture.
HOST_BUSY_DRIVER_MIN_CORES = 0.1
IDLE_CPU_SHARE = 0.5  # nodes' cores used / their allocated processors
IDLE_QUEUE_MEAN = 0.5  # a write queue that was empty most of the time


@dataclass(frozen=True)
class DriverShape:
    """The part of the load plan the self-check needs, as plain values."""

    schedule: str  # closed | fixed | poisson
    clients: int
    engine_threads: int
    rate_per_s: float | None = None  # total over all clients; None for a closed loop

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule {self.schedule!r}: must be one of {', '.join(SCHEDULES)}")

    @property
    def open_model(self) -> bool:
        return self.schedule != "closed"

    @property
    def client_period_ms(self) -> float | None:
        """Each client's mean time between requests: the engine runs each at rate / clients."""
        if not self.open_model or not self.rate_per_s:
            return None
        return 1000.0 * self.clients / self.rate_per_s


@dataclass(frozen=True)
class DriverActivity:
    """The driver's process over the window (probe `driver`) and its host (probe `host`)."""

    process_cores_used: float | None
    engine_cores_used: float | None
    python_cores_used: float | None  # the process minus the engine when not reported apart
    rss_max_bytes: float | None
    host_idle_percent_mean: float | None


def driver_activity(samples: Sequence[Sample], window: Window) -> DriverActivity:
    series = series_by_key(samples)

    def cores(metric: str) -> float | None:
        stats = counter_stats(series.get(("driver", metric), []), window)
        rate_ms_per_s = stats.rate_per_s if stats else None
        return rate_ms_per_s / 1000.0 if rate_ms_per_s is not None else None

    process = cores("process.cpu_time_ms_total")
    engine = cores("engine.cpu_time_ms_total")
    python = cores("python.cpu_time_ms_total")
    if python is None and process is not None and engine is not None:
        python = max(process - engine, 0.0)
    rss = gauge_stats(series.get(("driver", "process.rss_bytes"), []), window)
    idle = gauge_stats(series.get(("host", "cpu.idle_percent"), []), window)
    return DriverActivity(
        process_cores_used=process,
        engine_cores_used=engine,
        python_cores_used=python,
        rss_max_bytes=rss.max if rss else None,
        host_idle_percent_mean=idle.mean if idle else None,
    )


@dataclass(frozen=True)
class SelfCheck:
    engine_cores_used: float | None
    engine_threads: int
    python_cores_used: float | None
    host_idle_percent_mean: float | None
    schedule_lag_mean_ms: float | None  # per request
    schedule_lag_max_ms: float | None
    client_period_ms: float | None  # open models
    queueing_intervals: int  # response p99 far above service p99
    intervals_with_requests: int
    node_cpu_cores_used: float | None
    node_allocated_processors: float | None
    warnings: tuple[str, ...]


def queued_in_client(interval: Interval) -> bool:
    """Requests waited for a free client: the response clock (from due) ran far ahead of the
    service clock (from sent)."""
    response_ms, service_ms = interval.response.p99_ms, interval.service.p99_ms
    return response_ms > QUEUEING_RATIO * service_ms and response_ms - service_ms > QUEUEING_GAP_MS


def _rejections_seen(activity: ClusterActivity) -> bool:
    return bool(
        (activity.node_write_rejected or 0) > 0
        or activity.engine_requests_http_429
        or activity.engine_docs_rejected
        or activity.engine_retries
    )


def self_check(
    shape: DriverShape,
    activity: ClusterActivity,
    intervals_in_window: Sequence[Interval],
    driver: DriverActivity,
) -> SelfCheck:
    notes: list[str] = []
    busy = [i for i in intervals_in_window if i.counters.requests > 0]
    counts = sum((i.counters for i in busy), Counters())
    lag_mean_ms = counts.schedule_lag_us / counts.requests / 1000.0 if counts.requests else None
    lag_max_ms = max((i.schedule_lag_max_ms for i in busy), default=None)
    period_ms = shape.client_period_ms
    queueing = sum(1 for i in busy if queued_in_client(i))

    engine = driver.engine_cores_used
    if engine is not None and engine >= ENGINE_BUSY_SHARE * shape.engine_threads:
        notes.append(
            f"the engine used {engine:.2f} cores with {shape.engine_threads} threads: the "
            "driver may be the limit; raise --threads or run the driver on its own machine"
        )
    python = driver.python_cores_used
    if python is not None and python >= PYTHON_BUSY_CORES:
        notes.append(
            f"the driver's Python side used {python:.2f} of the one core it can use: it may "
            "be the limit; sample telemetry less often (raise --sample-interval)"
        )
    idle = driver.host_idle_percent_mean
    driver_cores = driver.process_cores_used
    driver_matters = driver_cores is None or driver_cores >= HOST_BUSY_DRIVER_MIN_CORES
    if idle is not None and idle < HOST_IDLE_MIN_PERCENT and driver_matters:
        notes.append(
            f"the driver's host was only {idle:.0f}% idle: the driver (and nodes on the same "
            "host) competed for CPU; run the driver on its own machine"
        )
    if shape.open_model and lag_mean_ms is not None and period_ms is not None:
        late = lag_mean_ms > LAG_SHARE_OF_PERIOD * period_ms
        if late or (lag_max_ms or 0.0) > LAG_MAX_MS:
            notes.append(
                f"requests went out {lag_mean_ms:.0f} ms late on average ({period_ms:.0f} ms "
                f"between each client's requests), {lag_max_ms or 0.0:.0f} ms at worst: the "
                "driver did not keep the schedule; add --clients or --threads, or lower --rate"
            )
    if shape.open_model and busy and queueing >= QUEUEING_INTERVAL_SHARE * len(busy):
        notes.append(
            f"in {queueing} of {len(busy)} intervals the response p99 was over "
            f"{QUEUEING_RATIO:g}x the service p99: requests waited for a free client; add "
            "--clients, unless the cluster's write queues were full (then it is the limit)"
        )
    used = activity.cpu_cores_used_total
    allocated = activity.allocated_processors_total
    cpu_share = ratio(used, allocated)
    if (
        not shape.open_model
        and cpu_share is not None
        and cpu_share < IDLE_CPU_SHARE
        and activity.write_queue_mean is not None
        and activity.write_queue_mean < IDLE_QUEUE_MEAN
        and not _rejections_seen(activity)
    ):
        notes.append(
            f"the nodes used {used or 0.0:.1f} of their {allocated or 0.0:.0f} processors "
            f"({cpu_share:.0%}) with empty write queues and no rejections: the cluster "
            f"waited for the driver; add --clients (now {shape.clients})"
        )
    return SelfCheck(
        engine_cores_used=engine,
        engine_threads=shape.engine_threads,
        python_cores_used=python,
        host_idle_percent_mean=idle,
        schedule_lag_mean_ms=lag_mean_ms,
        schedule_lag_max_ms=lag_max_ms,
        client_period_ms=period_ms,
        queueing_intervals=queueing,
        intervals_with_requests=len(busy),
        node_cpu_cores_used=used,
        node_allocated_processors=allocated,
        warnings=tuple(notes),
    )
