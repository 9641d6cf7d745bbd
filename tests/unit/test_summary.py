from shardlab.analysis.summary import summarize, warnings_for
from shardlab.results import Counts, IndexCheck, Latency, RunTotals


def totals(**counts) -> RunTotals:
    return RunTotals(
        elapsed_s=2.0,
        stopped_by="duration",
        in_flight_abandoned=0,
        counts=Counts(**counts),
        service=Latency(
            count=10, mean_ms=50.0, p50_ms=40.0, p90_ms=80.0, p99_ms=120.0, max_ms=130.0
        ),
        response=Latency(),
    )


def test_seed_columns_by_hand():
    # 10 bulk requests in 2 s, 8 fully indexed, 1 with rejected items, 1 whole 429
    run = totals(
        requests=10,
        requests_ok=8,
        requests_item_errors=1,
        requests_http_429=1,
        docs_sent=10_000,
        docs_acked=8_500,
        docs_rejected=1_500,
    )
    summary = summarize(run, IndexCheck("systembase", 8_500, 8_500))
    assert summary.samples == 10
    assert summary.ops_per_s == 5.0
    assert summary.errors == 2
    assert summary.error_rate == 0.2
    assert summary.docs_per_s == 4_250.0
    assert summary.avg_response_ms == 50.0
    assert summary.count_matches is True


def test_rejections_warn_that_the_cluster_is_the_limit():
    run = totals(
        requests=10,
        requests_ok=9,
        requests_item_errors=1,
        docs_sent=10_000,
        docs_acked=9_800,
        docs_rejected=200,
    )
    notes = warnings_for(run, IndexCheck("systembase", 9_800, 9_800))
    assert len(notes) == 1
    assert "2.0% of documents were rejected" in notes[0]


def test_no_warning_for_a_clean_run_and_one_for_a_count_mismatch():
    clean = totals(requests=4, requests_ok=4, docs_sent=4000, docs_acked=4000)
    assert warnings_for(clean, IndexCheck("systembase", 4000, 4000)) == []
    mismatch = warnings_for(clean, IndexCheck("systembase", 3999, 4000))
    assert mismatch == ["the index holds 3999 documents but the driver counted 4000 as indexed"]


def test_counts_add_fieldwise():
    assert Counts(requests=1, docs_acked=5) + Counts(requests=2, retries=1) == Counts(
        requests=3, docs_acked=5, retries=1
    )


def test_unallocated_replicas_are_said():
    clean = totals(requests=4, requests_ok=4, docs_sent=4000, docs_acked=4000)
    check = IndexCheck("systembase", 4000, 4000, unassigned_shards=5)
    assert warnings_for(clean, check) == [
        "5 shard copies of systembase could not be allocated (replicas need more nodes): "
        "only the primaries did the work"
    ]
