"""The seed-style summary of a run's measured phase, and the warnings that say how far to
trust it.

The summary is computed from the stored intervals, never from live state: the intervals of
the warm-up are left out, the counters of the others are added, and their HdrHistograms are
merged (natively) into one per clock, so every percentile is exact, never an average of
percentiles. `shardlab runs show` computes the same summary from the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shardlab._engine import merge_histograms
from shardlab.results import Counters, IndexCheck, Interval, LatencySummary

# An interval whose start lies this close before the warm-up's end is measured: intervals
# start a few microseconds after their nominal time.
_START_SLACK_S = 1e-3


@dataclass(frozen=True)
class RunSummary:
    """The seeds' columns (# samples, average response time, throughput, # errors, error
    rate), where a sample is one bulk request as in their JMeter tables, plus documents/s
    and both latency clocks: service (sent -> answered; what JMeter's "average response
    time" measured in a closed loop) and response (due by the schedule -> answered, which
    adds the time a request waited in the client)."""

    samples: int
    ops_per_s: float
    errors: int
    error_rate: float  # a fraction: 0.018 is the seed's "1.8 %"
    docs_per_s: float
    docs_acked: int
    docs_rejected: int
    docs_failed: int
    retries: int
    measured_s: float  # the measured phase: the run minus its warm-up
    warmup_s: float
    intervals: int  # in the measured phase
    service: LatencySummary
    response: LatencySummary


def measured_intervals(intervals: Sequence[Interval], warmup_s: float) -> list[Interval]:
    """The intervals after the warm-up (all of them without one)."""
    return [i for i in intervals if i.start_s >= warmup_s - _START_SLACK_S]


def merged_latency(encoded: Sequence[bytes]) -> LatencySummary:
    """One exact summary from several stored HdrHistograms (the engine's own merge)."""
    return LatencySummary.of(merge_histograms(list(encoded)))


def summarize(intervals: Sequence[Interval], warmup_s: float = 0.0) -> RunSummary:
    measured = measured_intervals(intervals, warmup_s)
    counters = sum((i.counters for i in measured), Counters())
    measured_s = sum(i.duration_s for i in measured)
    per_s = 1.0 / measured_s if measured_s > 0 else 0.0
    return RunSummary(
        samples=counters.requests,
        ops_per_s=counters.requests * per_s,
        errors=counters.requests_with_errors,
        error_rate=counters.requests_with_errors / counters.requests if counters.requests else 0.0,
        docs_per_s=counters.docs_acked * per_s,
        docs_acked=counters.docs_acked,
        docs_rejected=counters.docs_rejected,
        docs_failed=counters.docs_failed,
        retries=counters.retries,
        measured_s=measured_s,
        warmup_s=warmup_s,
        intervals=len(measured),
        service=merged_latency([i.service_histogram for i in measured]),
        response=merged_latency([i.response_histogram for i in measured]),
    )


REJECTION_WARN_FRACTION = 0.01


def warnings_for(
    counters: Counters,
    in_flight_abandoned: int,
    index_check: IndexCheck | None,
    nodes_left: Sequence[str] = (),
) -> list[str]:
    """Measurement-quality problems of the whole run, each with what it means.
    `nodes_left`: nodes seen leaving the cluster during the run."""
    notes: list[str] = []
    if nodes_left:
        notes.append(
            f"node {', '.join(nodes_left)} left the cluster during the run: see when, and "
            "whether it came back, in the cluster lines above"
        )
    if counters.requests == 0:
        notes.append("no bulk request was answered: there is nothing to measure")
        return notes
    rejected_requests = counters.requests_http_429 + counters.requests_item_errors
    settled = counters.docs_settled
    if counters.docs_rejected and counters.docs_rejected >= REJECTION_WARN_FRACTION * settled:
        share = counters.docs_rejected / settled
        notes.append(
            f"{share:.1%} of documents were rejected (429, {rejected_requests} requests): the "
            "cluster, not the driver, is the limit; fewer clients find the error-free rate"
        )
    if counters.requests_transport:
        notes.append(
            f"{counters.requests_transport} requests got no HTTP answer (reset or timed out "
            f"after sending): the fate of their {counters.docs_unknown:,} documents is unknown"
        )
    if counters.connect_errors:
        notes.append(
            f"{counters.connect_errors:,} connections could not be made; their bulks went to "
            "other nodes (nothing was sent on them)"
        )
    if in_flight_abandoned:
        notes.append(
            f"{in_flight_abandoned} requests were still unanswered when the run stopped; "
            "the index may hold documents the driver did not count"
        )
    if index_check is not None and index_check.unassigned_shards:
        why = (
            "a node left during the run"
            if nodes_left
            else "replicas need more nodes: only the primaries did the work"
        )
        notes.append(
            f"{index_check.unassigned_shards} shard copies of {index_check.index} were "
            f"unassigned after the run ({why})"
        )
    if index_check is not None and index_check.docs_lost:
        notes.append(
            f"the index holds {index_check.doc_count} documents but the cluster acknowledged "
            f"{index_check.docs_acked}: {index_check.docs_lost} acknowledged documents were lost"
        )
    elif index_check is not None and index_check.extra:
        notes.append(
            f"the index holds {index_check.doc_count} documents, more than the "
            f"{index_check.docs_acked} acknowledged and {index_check.docs_unknown} of unknown "
            "outcome: something else writes to it"
        )
    return notes
