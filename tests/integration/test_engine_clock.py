"""The engine's one clock (interval wall times comparable with `time.time()`) and its
schedule lag (due -> sent), against the in-process NullSink."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from shardlab import _engine

from .engine_runs import make_spec, run_all

# This module's run, over the base spec: 10-doc bulks from 2 clients on a fixed 40/s
# schedule for 0.6 s, in 0.1 s intervals.
PACED: dict[str, Any] = {
    "bulk": {"docs": 10},
    "clients": 2,
    "schedule": {"kind": "fixed", "rate_per_s": 40.0},
    "stop": {"duration_s": 0.6, "docs": None},
    "interval_s": 0.1,
}


def test_interval_wall_times_follow_time_time(sink: _engine.NullSink) -> None:
    before = time.time()
    intervals, totals = run_all(make_spec(f"http://127.0.0.1:{sink.port}", **PACED))
    after = time.time()
    assert before - 0.01 <= totals.started_unix_s <= before + 1.0
    assert len(intervals) >= 5
    for iv in intervals:
        assert iv.start_unix_s == pytest.approx(totals.started_unix_s + iv.start_s, abs=1e-6)
        assert totals.started_unix_s <= iv.start_unix_s <= after
    for a, b in itertools.pairwise(intervals):
        assert b.start_unix_s == pytest.approx(a.start_unix_s + a.duration_s, abs=1e-6)
    assert intervals[0].start_unix_s == totals.started_unix_s


def test_a_kept_schedule_has_little_lag(sink: _engine.NullSink) -> None:
    intervals, totals = run_all(make_spec(f"http://127.0.0.1:{sink.port}", **PACED))
    c = totals.counters
    assert c.requests >= 20
    assert 0 <= c.schedule_lag_us / c.requests / 1000 <= totals.schedule_lag_max_ms
    assert totals.schedule_lag_max_ms < 200, "10-doc bulks at 40/s are sent on time"
    assert sum(iv.counters.schedule_lag_us for iv in intervals) == c.schedule_lag_us
    assert max(iv.schedule_lag_max_ms for iv in intervals) == totals.schedule_lag_max_ms


def test_a_schedule_the_client_cannot_keep_shows_growing_lag(sink: _engine.NullSink) -> None:
    # One client asked for 2000 bulks/s of 5000 docs: each takes milliseconds to build and
    # send, so every request goes out later than the one before it was due.
    spec = make_spec(
        f"http://127.0.0.1:{sink.port}",
        **{
            **PACED,
            "clients": 1,
            "bulk": {"docs": 5000},
            "schedule": {"kind": "fixed", "rate_per_s": 2000.0},
            "stop": {"duration_s": 0.5, "docs": None},
        },
    )
    intervals, totals = run_all(spec)
    c = totals.counters
    mean_lag_ms = c.schedule_lag_us / c.requests / 1000
    assert totals.schedule_lag_max_ms > 50
    assert mean_lag_ms > 10
    # due -> answered includes due -> sent
    assert totals.response.max_ms >= totals.schedule_lag_max_ms
    later = [iv.schedule_lag_max_ms for iv in intervals if iv.counters.requests]
    assert later[-1] > later[0], "the client falls further behind"
