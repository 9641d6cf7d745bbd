"""The seed-style summary of a run, and the warnings that say how far to trust it."""

from __future__ import annotations

from dataclasses import dataclass

from shardlab.results import IndexCheck, RunTotals


@dataclass(frozen=True)
class RunSummary:
    """The seeds' columns (# samples, average response time, throughput, # errors, error
    rate), where a sample is one bulk request as in their JMeter tables, plus documents/s
    and percentiles."""

    samples: int
    avg_response_ms: float
    ops_per_s: float
    errors: int
    error_rate: float  # a fraction: 0.018 is the seed's "1.8 %"
    docs_per_s: float
    docs_acked: int
    docs_rejected: int
    docs_failed: int
    retries: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    elapsed_s: float
    index_doc_count: int | None
    count_matches: bool | None


def summarize(totals: RunTotals, index_check: IndexCheck | None = None) -> RunSummary:
    counts = totals.counts
    elapsed_s = totals.elapsed_s
    per_s = 1.0 / elapsed_s if elapsed_s > 0 else 0.0
    return RunSummary(
        samples=counts.requests,
        avg_response_ms=totals.service.mean_ms,
        ops_per_s=counts.requests * per_s,
        errors=counts.requests_with_errors,
        error_rate=counts.requests_with_errors / counts.requests if counts.requests else 0.0,
        docs_per_s=counts.docs_acked * per_s,
        docs_acked=counts.docs_acked,
        docs_rejected=counts.docs_rejected,
        docs_failed=counts.docs_failed,
        retries=counts.retries,
        p50_ms=totals.service.p50_ms,
        p90_ms=totals.service.p90_ms,
        p99_ms=totals.service.p99_ms,
        max_ms=totals.service.max_ms,
        elapsed_s=elapsed_s,
        index_doc_count=index_check.doc_count if index_check else None,
        count_matches=index_check.matches if index_check else None,
    )


REJECTION_WARN_FRACTION = 0.01


def warnings_for(totals: RunTotals, index_check: IndexCheck | None) -> list[str]:
    """Measurement-quality problems, each with what it means for the numbers."""
    notes: list[str] = []
    counts = totals.counts
    if counts.requests == 0:
        notes.append("no bulk request was answered: there is nothing to measure")
        return notes
    rejected_requests = counts.requests_http_429 + counts.requests_item_errors
    settled = counts.docs_settled
    if counts.docs_rejected and counts.docs_rejected >= REJECTION_WARN_FRACTION * settled:
        share = counts.docs_rejected / settled
        notes.append(
            f"{share:.1%} of documents were rejected (429, {rejected_requests} requests): the "
            "cluster, not the driver, is the limit; fewer clients find the error-free rate"
        )
    if counts.requests_transport:
        notes.append(
            f"{counts.requests_transport} requests got no HTTP answer (refused, reset or timed "
            "out): check the nodes' logs"
        )
    if totals.in_flight_abandoned:
        notes.append(
            f"{totals.in_flight_abandoned} requests were still unanswered when the run stopped; "
            "the index may hold documents the driver did not count"
        )
    if index_check is not None and index_check.unassigned_shards:
        notes.append(
            f"{index_check.unassigned_shards} shard copies of {index_check.index} could not be "
            "allocated (replicas need more nodes): only the primaries did the work"
        )
    if index_check is not None and not index_check.matches:
        notes.append(
            f"the index holds {index_check.doc_count} documents but the driver counted "
            f"{index_check.docs_acked} as indexed"
        )
    return notes
