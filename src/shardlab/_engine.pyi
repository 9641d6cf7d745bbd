"""The native load engine (Rust, crates/native). Python describes, Rust runs.

`EngineSpec` is a JSON document (see `shardlab.driver.engine_spec`); it is validated once
when `Engine` is built, so a bad spec fails before any connection opens, with a message
that names the field. A run is coarse-grained: `start`, then `next_interval` once per
interval (the GIL is released while it waits), `stop` on Ctrl-C, `finish` for the totals.
`merge_histograms` merges stored interval histograms into exact percentiles.
"""

from collections.abc import Sequence
from typing import final

BUILD_PROFILE: str
"""'release' or 'debug': recorded with every run; bench/ refuses to time 'debug'."""

class SpecError(ValueError):
    """The engine spec is invalid; the message names the field."""

@final
class LatencySummary:
    """Percentiles of one HdrHistogram, in milliseconds (microsecond resolution)."""

    @property
    def count(self) -> int: ...
    @property
    def mean_ms(self) -> float: ...
    @property
    def p50_ms(self) -> float: ...
    @property
    def p90_ms(self) -> float: ...
    @property
    def p99_ms(self) -> float: ...
    @property
    def p999_ms(self) -> float: ...
    @property
    def max_ms(self) -> float: ...
    @property
    def min_ms(self) -> float: ...
    def encoded(self) -> bytes:
        """The histogram in HdrHistogram's compressed V2 format (for storage)."""

@final
class Counters:
    """What happened in one interval, or in the whole run. All counts are exact.

    Every document generated ends in exactly one of five fates: `docs_acked`,
    `docs_rejected`, `docs_failed` (the cluster answered), `docs_unknown` (sent, no answer)
    or `docs_not_sent`."""

    @property
    def requests(self) -> int:
        """Bulk requests whose body was (at least partly) sent, answered or not (a 'sample'
        in the seeds' JMeter tables). A connection that could not be made is not a request
        (see `connect_errors`): its bulk is sent again to another target."""
    @property
    def requests_ok(self) -> int:
        """Requests answered 2xx with every item indexed."""
    @property
    def requests_item_errors(self) -> int:
        """Requests answered 2xx with `errors: true` (some items failed)."""
    @property
    def requests_http_429(self) -> int:
        """Requests answered 429 as a whole."""
    @property
    def requests_http_other(self) -> int:
        """Requests answered with any other non-2xx status."""
    @property
    def requests_transport(self) -> int:
        """Requests sent that got no HTTP answer: the connection broke (reset, closed) or
        the request timed out. Their documents are `docs_unknown`."""
    @property
    def docs_sent(self) -> int:
        """Documents of the requests sent (`requests`), counting each retry again."""
    @property
    def docs_acked(self) -> int:
        """Documents the cluster confirmed as indexed (item status 2xx)."""
    @property
    def docs_rejected(self) -> int:
        """Documents finally rejected with 429 / es_rejected_execution_exception."""
    @property
    def docs_failed(self) -> int:
        """Documents the cluster answered with any other error (an item error, a non-2xx
        status other than 429, or an unreadable answer)."""
    @property
    def docs_unknown(self) -> int:
        """Documents sent without an answer (the connection broke or timed out after the
        body left, or the request was abandoned at the drain timeout): the cluster may or
        may not have applied them. Never resent, as that could index them twice."""
    @property
    def docs_not_sent(self) -> int:
        """Documents generated but never sent: no target took a connection before the run
        stopped (or the drain timeout ran out first). Normally 0, since a bulk whose
        connection was refused is sent to another live target."""
    @property
    def connect_errors(self) -> int:
        """Connections that could not be made (refused, timed out, TLS or HTTP handshake
        failed, or closed before taking a request). Not requests; each puts its target on a
        backoff (50 ms doubling to 5 s) while clients use the other targets."""
    @property
    def retries(self) -> int:
        """Retry requests sent (only with retry backoff)."""
    @property
    def bytes_sent(self) -> int: ...
    @property
    def bytes_received(self) -> int: ...
    @property
    def schedule_lag_us(self) -> int:
        """Summed over requests: how late each was sent after it was due (µs); divide by
        requests for the mean. Retries count too (due when their backoff ends)."""

@final
class Interval:
    """One interval's record, swapped out of every worker and merged once."""

    @property
    def index(self) -> int:
        """0, 1, 2, ... in order."""
    @property
    def start_s(self) -> float:
        """Seconds since the run started."""
    @property
    def start_unix_s(self) -> float:
        """The same start on the wall clock (seconds since the Unix epoch, like
        `time.time()`): the run's wall start plus `start_s`, so it never jumps."""
    @property
    def duration_s(self) -> float: ...
    @property
    def counters(self) -> Counters: ...
    @property
    def service(self) -> LatencySummary:
        """Sent -> answered, for requests answered 2xx (item errors included). Requests
        without an answer have no latency; see `failed_service` for other answers."""
    @property
    def response(self) -> LatencySummary:
        """Due (by the schedule) -> answered, for the requests in `service`; equals service
        plus queueing in the client (and any wait for a live target)."""
    @property
    def failed_service(self) -> LatencySummary:
        """Sent -> answered, for requests answered with a non-2xx status (429 as a whole,
        5xx, ...), kept apart so that fast refusals do not flatter `service`."""
    @property
    def schedule_lag_max_ms(self) -> float:
        """The largest single schedule lag (due -> sent) in this interval."""

@final
class ErrorSample:
    """One kind of error and how often it was seen (bounded: the first 20 kinds)."""

    @property
    def kind(self) -> str:
        """e.g. 'item 429 es_rejected_execution_exception', 'http 503', 'transport' (sent,
        no answer), 'connect' (no connection)."""
    @property
    def count(self) -> int: ...
    @property
    def example(self) -> str:
        """The first message seen of this kind, cut to 300 characters."""

@final
class TargetErrors:
    """Connection errors of one target URL over the run."""

    @property
    def url(self) -> str:
        """As given in the spec's `targets`."""
    @property
    def connect_errors(self) -> int:
        """Connections to this target that could not be made (see
        `Counters.connect_errors`)."""
    @property
    def transport_errors(self) -> int:
        """Requests sent to this target that got no answer: the connection broke or the
        request timed out after sending (see `Counters.requests_transport`)."""

@final
class Totals:
    @property
    def started_unix_s(self) -> float:
        """The wall clock at the run's start (seconds since the Unix epoch, like `time.time()`)."""
    @property
    def elapsed_s(self) -> float: ...
    @property
    def stopped_by(self) -> str:
        """'duration', 'docs', 'stop' (asked to stop early), or 'unreachable' (every target
        was down for unreachable_timeout_s)."""
    @property
    def in_flight_abandoned(self) -> int:
        """Bulks still unfinished when the drain timeout ran out. Not counted in
        `requests`; their documents are `docs_unknown` if sent, else `docs_not_sent`
        (or `docs_rejected` if awaiting a retry after a 429)."""
    @property
    def counters(self) -> Counters: ...
    @property
    def service(self) -> LatencySummary:
        """As `Interval.service`, over the run."""
    @property
    def response(self) -> LatencySummary:
        """As `Interval.response`, over the run."""
    @property
    def failed_service(self) -> LatencySummary:
        """As `Interval.failed_service`, over the run."""
    @property
    def schedule_lag_max_ms(self) -> float:
        """The largest single schedule lag (due -> sent) of the run."""
    @property
    def errors(self) -> list[ErrorSample]: ...
    @property
    def target_errors(self) -> list[TargetErrors]:
        """One per target URL, in the spec's order, for every target."""

@final
class Engine:
    def __new__(cls, spec_json: str) -> Engine:
        """Compile and validate the spec. Raises SpecError naming the bad field."""
    @property
    def estimated_bulk_bytes(self) -> int:
        """The estimated body bytes of one bulk request: `bulk.bytes`, or `bulk.docs` times
        the mean item (action line + document) of a sample of the spec's documents."""
    def start(self) -> None:
        """Open connections and start the workers in background threads; returns at once."""
    def next_interval(self, timeout_s: float) -> Interval | None:
        """The next finished interval, or None after timeout_s (or when the run is over
        and every interval has been handed out). Releases the GIL while waiting."""
    @property
    def finished(self) -> bool:
        """True once the run ended and every interval has been handed out."""
    def stop(self) -> None:
        """Stop sending new requests; in-flight ones are drained. Safe to call twice."""
    def finish(self) -> Totals:
        """Wait for the run to end (releasing the GIL) and return its totals. Raises
        RuntimeError if the engine thread panicked (`finished` is True all the same)."""

@final
class NullSink:
    """A minimal HTTP/1.1 server on 127.0.0.1 answering every bulk request at once with a
    success response whose item count matches the request (for tests and bench/)."""

    def __new__(cls, port: int = 0, threads: int = 1) -> NullSink: ...
    @property
    def port(self) -> int: ...
    @property
    def requests(self) -> int: ...
    @property
    def docs(self) -> int:
        """Documents seen (NDJSON action lines)."""
    def close(self) -> None: ...

def merge_histograms(encoded: Sequence[bytes]) -> LatencySummary:
    """Merge histograms stored by `LatencySummary.encoded()` into one summary (exact
    percentiles over any set of intervals). Empty items are skipped; an empty list gives
    the all-zero summary. Raises ValueError naming the index of undecodable bytes."""
