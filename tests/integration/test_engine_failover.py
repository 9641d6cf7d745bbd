"""The native engine with a dead target beside a live NullSink: clients fail over instead of
spinning, refused connections are neither requests nor latencies, and every document's fate
is counted."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from shardlab import _engine

FATES = ["docs_acked", "docs_rejected", "docs_failed", "docs_unknown", "docs_not_sent"]


def dead_url() -> str:
    """A port on which nothing listens: bound, then let go."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def make_spec(targets: list[str], clients: int, duration_s: float) -> str:
    spec: dict[str, Any] = {
        "targets": targets,
        "bulk_path": "/systembase/_bulk",
        "generator": {"kind": "systembase", "variant": "bulk", "seed": 42},
        "bulk": {"docs": 100},
        "clients": clients,
        "schedule": {"kind": "closed"},
        "stop": {"duration_s": duration_s, "docs": None},
        "interval_s": 0.5,
        "retry": {"kind": "none"},
        "threads": 2,
        "request_timeout_s": 10.0,
        "drain_timeout_s": 5.0,
    }
    return json.dumps(spec)


@pytest.fixture
def sink() -> Iterator[_engine.NullSink]:
    s = _engine.NullSink(threads=2)
    yield s
    s.close()


def run_all(engine: _engine.Engine) -> tuple[list[_engine.Interval], _engine.Totals]:
    engine.start()
    intervals = []
    deadline = time.monotonic() + 30
    while not engine.finished:
        assert time.monotonic() < deadline, "the engine did not finish"
        iv = engine.next_interval(0.1)
        if iv is not None:
            intervals.append(iv)
    return intervals, engine.finish()


def test_clients_of_a_dead_target_fail_over_to_the_live_one(sink: _engine.NullSink) -> None:
    live = f"http://127.0.0.1:{sink.port}"
    dead = dead_url()
    # Clients 0 and 2 have the dead target as their home.
    intervals, totals = run_all(_engine.Engine(make_spec([dead, live], clients=4, duration_s=3.0)))
    c = totals.counters
    print(f"connect_errors in 3 s: {c.connect_errors}")
    assert totals.stopped_by == "duration"
    assert c.docs_acked > 0
    assert (c.docs_acked, c.requests) == (sink.docs, sink.requests)
    assert c.docs_sent == c.docs_acked
    assert c.requests_ok == c.requests
    assert c.docs_rejected == c.docs_failed == c.docs_unknown == c.docs_not_sent == 0
    assert c.requests_transport == 0
    # Probes of the dead target only: a few per second per client at most.
    assert 1 <= c.connect_errors < 4 * 3 * 4
    # Latencies are the sink's answers only.
    assert totals.service.count == totals.response.count == c.requests
    assert totals.failed_service.count == 0
    assert isinstance(totals.failed_service.encoded(), bytes)
    assert [(e.url, e.connect_errors, e.transport_errors) for e in totals.target_errors] == [
        (dead, c.connect_errors, 0),
        (live, 0, 0),
    ]
    assert [e.kind for e in totals.errors] == ["connect"]
    for field in [*FATES, "connect_errors", "requests"]:
        assert sum(getattr(iv.counters, field) for iv in intervals) == getattr(c, field), field
    assert sum(iv.service.count for iv in intervals) == totals.service.count
    assert sum(iv.failed_service.count for iv in intervals) == 0


def test_documents_no_target_took_are_not_sent_and_the_run_ends() -> None:
    started = time.monotonic()
    spec = make_spec([dead_url(), dead_url()], clients=3, duration_s=0.5)
    _, totals = run_all(_engine.Engine(spec))
    c = totals.counters
    assert time.monotonic() - started < 3
    assert totals.stopped_by == "duration"
    assert (c.requests, c.docs_sent, c.docs_acked) == (0, 0, 0)
    assert c.docs_not_sent == 3 * 100  # each client's one bulk
    assert 2 <= c.connect_errors < 40
    assert sum(e.connect_errors for e in totals.target_errors) == c.connect_errors
    assert totals.service.count == totals.failed_service.count == 0
