"""The native engine with a dead target beside a live NullSink: clients fail over instead of
spinning, refused connections are neither requests nor latencies, and every document's fate
is counted."""

from __future__ import annotations

import socket
import time
from typing import Any

from shardlab import _engine

from .engine_runs import make_spec, run_all

# The `sink` fixture's server threads.
SINK_THREADS = 2

# This module's runs, over the base spec: 100-doc bulks on 2 runtime threads, 0.5 s intervals,
# stopped after a duration (the clients and the duration are each test's own).
FAILOVER: dict[str, Any] = {"bulk": {"docs": 100}, "interval_s": 0.5, "threads": 2}

FATES = ["docs_acked", "docs_rejected", "docs_failed", "docs_unknown", "docs_not_sent"]


def dead_url() -> str:
    """A port on which nothing listens: bound, then let go."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_clients_of_a_dead_target_fail_over_to_the_live_one(sink: _engine.NullSink) -> None:
    live = f"http://127.0.0.1:{sink.port}"
    dead = dead_url()
    # Clients 0 and 2 have the dead target as their home.
    spec = make_spec([dead, live], **FAILOVER, clients=4, stop={"duration_s": 3.0, "docs": None})
    intervals, totals = run_all(_engine.Engine(spec), timeout_s=30.0)
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
    spec = make_spec(
        [dead_url(), dead_url()], **FAILOVER, clients=3, stop={"duration_s": 0.5, "docs": None}
    )
    _, totals = run_all(_engine.Engine(spec), timeout_s=30.0)
    c = totals.counters
    assert time.monotonic() - started < 3
    assert totals.stopped_by == "duration"
    assert (c.requests, c.docs_sent, c.docs_acked) == (0, 0, 0)
    assert c.docs_not_sent == 3 * 100  # each client's one bulk
    assert 2 <= c.connect_errors < 40
    assert sum(e.connect_errors for e in totals.target_errors) == c.connect_errors
    assert totals.service.count == totals.failed_service.count == 0
