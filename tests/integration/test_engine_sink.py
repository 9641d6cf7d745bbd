"""The native engine against the in-process NullSink (a real HTTP/1.1 server)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from shardlab import _engine

from .engine_runs import make_spec, run_all

COUNTER_FIELDS = [
    "requests",
    "requests_ok",
    "requests_item_errors",
    "requests_http_429",
    "requests_http_other",
    "requests_transport",
    "docs_sent",
    "docs_acked",
    "docs_rejected",
    "docs_failed",
    "retries",
    "bytes_sent",
    "bytes_received",
]


def test_docs_stop_sends_exactly_the_docs(sink: _engine.NullSink) -> None:
    engine = _engine.Engine(make_spec(f"http://127.0.0.1:{sink.port}"))
    intervals, totals = run_all(engine)
    c = totals.counters
    assert totals.stopped_by == "docs"
    assert c.docs_acked == 10_000 == sink.docs
    assert c.requests == 10 == sink.requests == c.requests_ok
    assert c.docs_sent == 10_000
    assert c.docs_rejected == c.docs_failed == c.retries == 0
    assert c.bytes_sent > 10_000 * 300
    assert c.bytes_received > 0
    assert totals.service.count == 10 == totals.response.count
    assert 0 < totals.service.p50_ms <= totals.service.max_ms
    assert totals.response.p50_ms >= totals.service.p50_ms
    assert totals.in_flight_abandoned == 0
    assert totals.errors == []
    assert isinstance(totals.service.encoded(), bytes)
    assert [iv.index for iv in intervals] == list(range(len(intervals)))
    for field in COUNTER_FIELDS:
        assert sum(getattr(iv.counters, field) for iv in intervals) == getattr(c, field), field
    assert sum(iv.service.count for iv in intervals) == totals.service.count
    assert engine.next_interval(0.01) is None
    # finish() is repeatable
    assert engine.finish().counters.docs_acked == 10_000


def test_last_bulk_is_partial_and_bytes_bulks_work(sink: _engine.NullSink) -> None:
    spec = make_spec(
        f"http://127.0.0.1:{sink.port}",
        bulk={"bytes": 50_000},
        clients=3,
        stop={"duration_s": None, "docs": 1234},
    )
    _, totals = run_all(_engine.Engine(spec))
    assert totals.counters.docs_acked == 1234 == sink.docs
    # ~130 docs per 50 kB bulk: 10 bulks, the last one partial
    assert 8 <= totals.counters.requests <= 12


def test_duration_stop_with_fixed_rate(sink: _engine.NullSink) -> None:
    spec = make_spec(
        f"http://127.0.0.1:{sink.port}",
        bulk={"docs": 100},
        schedule={"kind": "fixed", "rate_per_s": 40.0},
        stop={"duration_s": 1.5, "docs": None},
        interval_s=0.5,
    )
    intervals, totals = run_all(_engine.Engine(spec))
    assert totals.stopped_by == "duration"
    assert 1.5 <= totals.elapsed_s < 2.5
    # due at 0, 25 ms, ... 1475 ms: 60 requests
    assert 56 <= totals.counters.requests <= 61
    assert len(intervals) >= 3
    assert sum(iv.counters.requests for iv in intervals) == totals.counters.requests


def test_stop_early(sink: _engine.NullSink) -> None:
    spec = make_spec(
        f"http://127.0.0.1:{sink.port}",
        schedule={"kind": "poisson", "rate_per_s": 100.0},
        stop={"duration_s": 60.0, "docs": None},
        interval_s=0.2,
    )
    engine = _engine.Engine(spec)
    engine.start()
    assert engine.next_interval(5.0) is not None
    engine.stop()
    engine.stop()  # safe twice
    totals = engine.finish()
    assert totals.stopped_by == "stop"
    assert totals.elapsed_s < 5
    assert totals.counters.requests > 0
    assert totals.counters.docs_acked == sink.docs


def test_a_target_that_never_answers_is_given_up_without_spinning() -> None:
    """Nothing listens: no request is sent (a refused connection is not one), the clients
    back off instead of spinning, and a run that stops only on a doc count gives up once
    every target has been down for unreachable_timeout_s."""
    spec = json.loads(
        make_spec("http://127.0.0.1:1", stop={"duration_s": None, "docs": 5000}, clients=2)
    )
    spec["unreachable_timeout_s"] = 1.0
    _, totals = run_all(_engine.Engine(json.dumps(spec)))
    c = totals.counters
    assert totals.stopped_by == "unreachable"
    assert c.requests == 0 == c.docs_sent == c.docs_acked
    assert c.docs_not_sent == 2 * 1000  # each client's one bulk, never sent
    assert 1 <= c.connect_errors <= 20  # backing off: 50, 100, 200, 400 ms...
    (target,) = totals.target_errors
    assert (target.url, target.connect_errors) == ("http://127.0.0.1:1", c.connect_errors)
    assert [e.kind for e in totals.errors] == ["connect"]
    assert "127.0.0.1:1" in totals.errors[0].example


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"clients": 0}, "clients: must be at least 1"),
        ({"bulk": {"docs": "x"}}, 'bulk.docs: invalid type: string "x", expected u64'),
        (
            {"targets": ["ftp://127.0.0.1:9200"]},
            "targets[0]: expected http://host:port or https://host:port",
        ),
        ({"stop": {"duration_s": None, "docs": None}}, "stop: set duration_s, docs, or both"),
        ({"surprise": 1}, "unknown field `surprise`"),
        ({"interval_s": 0.0}, "interval_s: "),
        ({"interval_s": 0.0005}, "interval_s: must be at least 0.001"),
        ({"interval_s": float("inf")}, "interval_s: "),
        ({"threads": 0}, "threads: must be at least 1"),
        ({"threads": 257}, "threads: at most 256"),
        ({"clients": 100_001}, "clients: at most 100000"),
        ({"bulk": {"docs": 100_001}}, "bulk.docs: at most 100000"),
        (
            {"bulk": {"bytes": 104_857_601}},
            "bulk.bytes: at most 104857600 (OpenSearch's default http.max_content_length)",
        ),
        ({"schedule": {"kind": "fixed", "rate_per_s": 0.0}}, "schedule.rate_per_s: "),
        ({"schedule": {"kind": "poisson", "rate_per_s": float("nan")}}, "schedule.rate_per_s: "),
        ({"schedule": {"kind": "fixed", "rate_per_s": float("inf")}}, "schedule.rate_per_s: "),
        ({"request_timeout_s": 0.0}, "request_timeout_s: "),
        ({"request_timeout_s": float("inf")}, "request_timeout_s: "),
        ({"drain_timeout_s": 0.0}, "drain_timeout_s: "),
        ({"drain_timeout_s": float("nan")}, "drain_timeout_s: "),
        ({"stop": {"duration_s": 0.0, "docs": None}}, "stop.duration_s: "),
        ({"stop": {"duration_s": float("inf"), "docs": None}}, "stop.duration_s: "),
        ({"stop": {"duration_s": None, "docs": 0}}, "stop.docs: must be at least 1"),
    ],
)
def test_bad_spec_names_the_field(override: dict[str, Any], message: str) -> None:
    with pytest.raises(_engine.SpecError) as info:
        _engine.Engine(make_spec("http://127.0.0.1:9200", **override))
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bounds_themselves_are_accepted() -> None:
    _engine.Engine(
        make_spec(
            "http://127.0.0.1:9200",
            interval_s=0.001,
            threads=256,
            clients=100_000,
            bulk={"bytes": 104_857_600},
        )
    )
    _engine.Engine(make_spec("http://127.0.0.1:9200", bulk={"docs": 100_000}))


def test_a_huge_bytes_bulk_generates_only_the_claimed_docs(sink: _engine.NullSink) -> None:
    # Before: the whole 100 MiB bulk was generated (seconds of CPU on the single runtime
    # thread) and then cut to the one doc the budget allowed.
    spec = make_spec(
        f"http://127.0.0.1:{sink.port}",
        bulk={"bytes": 104_857_600},
        clients=1,
        stop={"duration_s": None, "docs": 1},
    )
    t0 = time.process_time()
    _, totals = run_all(_engine.Engine(spec))
    cpu = time.process_time() - t0
    assert totals.counters.docs_acked == 1 == sink.docs
    assert totals.counters.bytes_sent < 10_000
    assert cpu < 0.1, f"{cpu:.3f} CPU-s for one doc"


def test_finish_before_start_is_an_error() -> None:
    engine = _engine.Engine(make_spec("http://127.0.0.1:9200"))
    with pytest.raises(RuntimeError):
        engine.finish()
    assert _engine.BUILD_PROFILE in ("release", "debug")


def test_drain_timeout_abandons_unanswered_requests() -> None:
    # A listening socket that never accepts: connections complete in the backlog, requests
    # are never answered.
    import socket

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        spec = make_spec(
            f"http://127.0.0.1:{silent.getsockname()[1]}",
            clients=2,
            stop={"duration_s": 0.3, "docs": None},
            drain_timeout_s=0.3,
            request_timeout_s=30.0,
        )
        _, totals = run_all(_engine.Engine(spec))
    assert totals.stopped_by == "duration"
    assert totals.in_flight_abandoned == 2
    assert totals.counters.requests == 0
    assert 0.6 <= totals.elapsed_s < 3


def test_clients_are_spread_over_every_target() -> None:
    # client i talks to targets[i % len(targets)]: 3 clients over 2 nodes -> 2 and 1 connections
    first, second = _engine.NullSink(), _engine.NullSink()
    try:
        targets = [f"http://127.0.0.1:{first.port}", f"http://127.0.0.1:{second.port}"]
        spec = json.loads(make_spec(targets[0], clients=3, stop={"duration_s": 1.0, "docs": None}))
        spec["targets"] = targets
        _, totals = run_all(_engine.Engine(json.dumps(spec)))
        assert first.docs > 0 and second.docs > 0
        assert first.docs + second.docs == totals.counters.docs_acked
    finally:
        first.close()
        second.close()
