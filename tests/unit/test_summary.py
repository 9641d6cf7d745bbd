"""The seed-style summary of the measured phase, from stored intervals: counters added,
histograms merged by the engine. Latencies are encoded with HdrHistogram's own Python
implementation (an independent encoder), so the merge is checked against hand-computed
percentiles."""

import base64

import pytest
from hdrh.histogram import HdrHistogram

from shardlab.analysis.summary import measured_intervals, summarize, warnings_for
from shardlab.results import Counters, IndexCheck, Interval, LatencySummary


def encoded(latencies_ms: list[float]) -> bytes:
    histogram = HdrHistogram(1, 3_600_000_000, 3)  # microseconds, as the engine records
    for ms in latencies_ms:
        histogram.record_value(round(ms * 1000))
    return base64.b64decode(histogram.encode())


def interval(index: int, latencies_ms: list[float], **counters: int) -> Interval:
    return Interval(
        index=index,
        start_s=index + 0.0002,  # intervals start a little after their nominal second
        duration_s=1.0,
        counters=Counters(**counters),
        service=LatencySummary(count=len(latencies_ms)),
        response=LatencySummary(count=len(latencies_ms)),
        service_histogram=encoded(latencies_ms),
        response_histogram=encoded([ms + 5 for ms in latencies_ms]),
        start_unix_s=1_000.0 + index,
    )


def test_seed_columns_by_hand():
    # 10 bulk requests in 2 s, 8 fully indexed, 1 with rejected items, 1 whole 429
    intervals = [
        interval(0, [10.0] * 5, requests=5, requests_ok=5, docs_acked=5_000),
        interval(
            1,
            [30.0] * 5,
            requests=5,
            requests_ok=3,
            requests_item_errors=1,
            requests_http_429=1,
            docs_acked=3_500,
            docs_rejected=1_500,
        ),
    ]
    summary = summarize(intervals)
    assert summary.samples == 10
    assert summary.ops_per_s == 5.0
    assert summary.errors == 2
    assert summary.error_rate == 0.2
    assert summary.docs_per_s == 4_250.0
    assert summary.measured_s == 2.0
    assert summary.service.mean_ms == pytest.approx(20.0, rel=1e-3)  # (5*10 + 5*30) / 10
    assert summary.response.mean_ms == pytest.approx(25.0, rel=1e-3)  # 5 ms later each


def test_warmup_intervals_are_left_out_and_percentiles_are_exact():
    # warm-up: 2 s of slow requests; measured: 100 requests of 1..100 ms, then 10 of 200 ms
    intervals = [
        interval(0, [900.0] * 50, requests=50, docs_acked=50_000),
        interval(1, [800.0] * 50, requests=50, docs_acked=50_000),
        interval(2, [float(ms) for ms in range(1, 101)], requests=100, docs_acked=100_000),
        interval(3, [200.0] * 10, requests=10, docs_acked=10_000),
    ]
    assert [i.index for i in measured_intervals(intervals, 2.0)] == [2, 3]
    summary = summarize(intervals, warmup_s=2.0)
    assert summary.samples == 110 and summary.intervals == 2 and summary.warmup_s == 2.0
    assert summary.docs_per_s == 55_000.0  # 110,000 docs in 2 s
    service = summary.service
    assert service.count == 110
    assert service.p50_ms == pytest.approx(55.0, rel=1e-3)  # the 55th of 110 values
    assert service.p90_ms == pytest.approx(99.0, rel=1e-3)  # the 99th
    assert service.p99_ms == pytest.approx(200.0, rel=1e-3)  # the 109th: one of the 200s
    assert service.max_ms == pytest.approx(200.0, rel=1e-3)
    assert service.mean_ms == pytest.approx((5050 + 2000) / 110, rel=1e-3)
    # with the warm-up's 100 slow requests, of 210: the 105th is a 200, the 189th a 900
    whole = summarize(intervals).service
    assert whole.p50_ms == pytest.approx(200.0, rel=1e-3)
    assert whole.p90_ms == pytest.approx(900.0, rel=1e-3)


def test_rejections_warn_that_the_cluster_is_the_limit():
    counters = Counters(
        requests=10,
        requests_ok=9,
        requests_item_errors=1,
        docs_sent=10_000,
        docs_acked=9_800,
        docs_rejected=200,
    )
    notes = warnings_for(counters, 0, IndexCheck("systembase", 9_800, 9_800))
    assert len(notes) == 1
    assert "2.0% of documents were rejected" in notes[0]


def test_no_warning_for_a_clean_run_and_one_for_a_count_mismatch():
    clean = Counters(requests=4, requests_ok=4, docs_sent=4000, docs_acked=4000)
    assert warnings_for(clean, 0, IndexCheck("systembase", 4000, 4000)) == []
    lost = warnings_for(clean, 0, IndexCheck("systembase", 3999, 4000))
    assert lost == [
        "the index holds 3999 documents but the cluster acknowledged 4000: 1 acknowledged "
        "documents were lost"
    ]


def test_the_end_check_is_acked_at_most_stored_at_most_acked_plus_unknown():
    # 5,000 documents of 5 bulks whose connection broke after sending: any of them may be in
    within = IndexCheck("systembase", doc_count=12_000, docs_acked=10_000, docs_unknown=5_000)
    assert within.matches and within.docs_lost == 0 and within.unknown_stored == 2_000
    assert IndexCheck("systembase", 10_000, 10_000, docs_unknown=5_000).unknown_stored == 0
    short = IndexCheck("systembase", 9_990, 10_000, docs_unknown=5_000)
    assert not short.matches and short.docs_lost == 10
    over = IndexCheck("systembase", 15_001, 10_000, docs_unknown=5_000)
    assert not over.matches and over.extra == 1 and over.docs_lost == 0


def test_counts_add_fieldwise():
    assert Counters(requests=1, docs_acked=5) + Counters(requests=2, retries=1) == Counters(
        requests=3, docs_acked=5, retries=1
    )


def test_unallocated_replicas_are_said():
    clean = Counters(requests=4, requests_ok=4, docs_sent=4000, docs_acked=4000)
    check = IndexCheck("systembase", 4000, 4000, unassigned_shards=5)
    assert warnings_for(clean, 0, check) == [
        "5 shard copies of systembase were unassigned after the run (replicas need more "
        "nodes: only the primaries did the work)"
    ]
    after_a_departure = warnings_for(clean, 0, check, nodes_left=["node-2"])
    assert after_a_departure == [
        "node node-2 left the cluster during the run: see when, and whether it came back, in "
        "the cluster lines above",
        "5 shard copies of systembase were unassigned after the run (a node left during the run)",
    ]
