"""What a run measured, as plain records: the engine's output converted once, in `driver`,
and read back from the store in the same shape, so analysis and reports work alike on a
live run and on one stored a week ago."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def _field(source: Any, name: str) -> Any:
    """A field of an engine object or a mapping (store row) by name."""
    return source[name] if isinstance(source, dict) else getattr(source, name)


@dataclass(frozen=True)
class Counters:
    requests: int = 0
    requests_ok: int = 0
    requests_item_errors: int = 0
    requests_http_429: int = 0
    requests_http_other: int = 0
    requests_transport: int = 0
    docs_sent: int = 0
    docs_acked: int = 0
    docs_rejected: int = 0
    docs_failed: int = 0
    retries: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    schedule_lag_us: int = 0  # summed over requests: how late each was sent after it was due
    docs_unknown: int = 0  # sent, then no answer: the cluster may or may not have applied them
    docs_not_sent: int = 0  # generated, but no target took a connection before the run ended
    connect_errors: int = 0  # connection attempts that failed: not requests, nothing was sent

    @property
    def docs_settled(self) -> int:
        """Distinct documents whose fate is known (docs_sent counts every retry again)."""
        return self.docs_acked + self.docs_rejected + self.docs_failed

    @property
    def requests_with_errors(self) -> int:
        """Bulk requests that did not fully succeed: the seeds' "# errors" (JMeter counted a
        sample as failed when the bulk response had any failure)."""
        return self.requests - self.requests_ok

    @classmethod
    def of(cls, source: Any) -> Counters:
        """From any object or mapping with these field names (engine objects, store rows)."""
        return cls(**{f.name: int(_field(source, f.name)) for f in fields(cls)})

    def __add__(self, other: Counters) -> Counters:
        return Counters(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )


@dataclass(frozen=True)
class LatencySummary:
    """Percentiles of one latency histogram, in milliseconds."""

    count: int = 0
    mean_ms: float = 0.0
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    p999_ms: float = 0.0
    max_ms: float = 0.0
    min_ms: float = 0.0

    @classmethod
    def of(cls, source: Any) -> LatencySummary:
        return cls(
            int(_field(source, "count")),
            *(float(_field(source, f.name)) for f in fields(cls) if f.name != "count"),
        )


@dataclass(frozen=True)
class Interval:
    index: int
    start_s: float  # seconds since the run started
    duration_s: float
    counters: Counters
    service: LatencySummary
    response: LatencySummary
    start_unix_s: float = 0.0  # the same start on the wall clock, the time base of telemetry
    schedule_lag_max_ms: float = 0.0
    # service time of answers with an error status (429, 5xx): apart from the 2xx above
    failed_service: LatencySummary = field(default_factory=LatencySummary)
    failed_histogram: bytes = b""
    service_histogram: bytes = b""  # HdrHistogram V2 compressed, for later merges
    response_histogram: bytes = b""


@dataclass(frozen=True)
class ErrorSample:
    kind: str
    count: int
    example: str


@dataclass(frozen=True)
class Totals:
    elapsed_s: float
    stopped_by: str  # duration | docs | stop
    in_flight_abandoned: int
    counters: Counters
    service: LatencySummary
    response: LatencySummary
    errors: tuple[ErrorSample, ...] = ()
    service_histogram: bytes = b""
    response_histogram: bytes = b""
    started_unix_s: float = 0.0
    schedule_lag_max_ms: float = 0.0
    failed_service: LatencySummary = field(default_factory=LatencySummary)
    target_errors: tuple[TargetErrors, ...] = ()


@dataclass(frozen=True)
class TargetErrors:
    """Connection trouble with one target URL over the whole run."""

    url: str
    connect_errors: int  # connections that could not be made (nothing was sent)
    transport_errors: int  # requests sent that got no answer (their documents are unknown)


@dataclass(frozen=True)
class IndexCheck:
    """The index's document count after a refresh, against what the driver counted.

    Acknowledged documents must all be there; documents whose request got no answer (sent,
    then the connection broke or timed out) may or may not be: acked <= stored <= acked +
    unknown. Fewer than acked is the one real loss."""

    index: str
    doc_count: int
    docs_acked: int
    unassigned_shards: int = 0  # e.g. replicas on a one-node cluster: the index stayed yellow
    docs_unknown: int = 0

    @property
    def docs_lost(self) -> int:
        """Acknowledged documents the index does not hold."""
        return max(0, self.docs_acked - self.doc_count)

    @property
    def unknown_stored(self) -> int:
        """Of the documents with unknown outcome, how many the index holds (at most)."""
        return max(0, min(self.doc_count - self.docs_acked, self.docs_unknown))

    @property
    def extra(self) -> int:
        """Documents beyond acked + unknown: written by someone else, or counted twice."""
        return max(0, self.doc_count - self.docs_acked - self.docs_unknown)

    @property
    def matches(self) -> bool:
        """acked <= stored <= acked + unknown."""
        return self.docs_lost == 0 and self.extra == 0
