"""`merge_histograms`: the stored interval histograms of a run merge back into its totals'
exact percentiles (no cluster: the engine runs against the in-process NullSink)."""

from __future__ import annotations

import pytest

from shardlab import _engine

from .engine_runs import make_spec, run_all


def test_merged_intervals_give_the_run_totals(sink: _engine.NullSink) -> None:
    spec = make_spec(
        f"http://127.0.0.1:{sink.port}",
        bulk={"docs": 50},
        stop={"duration_s": None, "docs": 100_000},
        interval_s=0.02,
        threads=2,
    )
    intervals, totals = run_all(spec)
    assert totals.service.count == 2000 == sink.requests
    assert len(intervals) >= 2
    for latency in ("service", "response"):
        whole = getattr(totals, latency)
        merged = _engine.merge_histograms([getattr(iv, latency).encoded() for iv in intervals])
        assert merged.count == whole.count
        assert merged.p99_ms == whole.p99_ms
        assert (merged.p50_ms, merged.max_ms, merged.min_ms) == (
            whole.p50_ms,
            whole.max_ms,
            whole.min_ms,
        )
        assert merged.mean_ms == pytest.approx(whole.mean_ms)
    # any subset merges too: the first interval alone is itself
    first = intervals[0].service
    alone = _engine.merge_histograms((first.encoded(),))
    assert (alone.count, alone.p99_ms) == (first.count, first.p99_ms)


def test_nothing_merges_to_zero_and_empty_items_are_skipped() -> None:
    zero = _engine.merge_histograms([])
    assert (zero.count, zero.p50_ms, zero.p99_ms, zero.max_ms, zero.mean_ms) == (0, 0, 0, 0, 0)
    assert _engine.merge_histograms([b"", b""]).count == 0
    assert isinstance(zero.encoded(), bytes)
    assert _engine.merge_histograms([zero.encoded(), b""]).count == 0


def test_undecodable_bytes_name_their_index() -> None:
    good = _engine.merge_histograms([]).encoded()
    with pytest.raises(ValueError, match=r"^encoded\[1\]: not a V2-compressed HdrHistogram"):
        _engine.merge_histograms([good, b"not a histogram"])
    with pytest.raises(TypeError):
        _engine.merge_histograms(["text"])  # type: ignore[list-item]
