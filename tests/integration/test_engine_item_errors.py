"""The native engine against a real Python HTTP/1.1 server answering with item errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from shardlab import _engine

ACKED = {
    "_index": "systembase",
    "_id": "y",
    "_version": 1,
    "result": "created",
    "_shards": {"total": 1, "successful": 1, "failed": 0},
    "_seq_no": 0,
    "_primary_term": 1,
    "status": 201,
}
REJECTED = {
    "_index": "systembase",
    "_id": "x",
    "status": 429,
    "error": {
        "type": "es_rejected_execution_exception",
        "reason": "rejected execution of coordinating operation [shard_detail=[systembase][0]]",
    },
}


class BulkServer(ThreadingHTTPServer):
    """Request k (1-based, over all connections) is answered HTTP 429 as a whole when k % 5
    == 0; otherwise item j is rejected (429) when j % 3 == 0. With `first_only`, only docs
    never seen before are rejected, so every retry succeeds."""

    daemon_threads = True

    def __init__(self, first_only: bool) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.first_only = first_only
        self.lock = threading.Lock()
        self.requests = 0
        self.received = 0  # docs, counting resent ones again
        self.seen: set[str] = set()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: BulkServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.headers["Content-Type"] == "application/x-ndjson"
        lines = body.decode().splitlines()
        ids = [json.loads(doc)["correlationId"] for doc in lines[1::2]]
        srv = self.server
        with srv.lock:
            srv.requests += 1
            srv.received += len(ids)
            k = srv.requests
            fresh = [i not in srv.seen for i in ids]
            srv.seen.update(ids)
        if k % 5 == 0 and (not srv.first_only or all(fresh)):
            self.answer(429, b'{"error":"too many requests","status":429}')
            return
        items = [
            {"index": REJECTED if j % 3 == 0 and (fresh[j] or not srv.first_only) else ACKED}
            for j in range(len(ids))
        ]
        errors = any(i["index"]["status"] != 201 for i in items)
        self.answer(200, json.dumps({"took": 3, "errors": errors, "items": items}).encode())

    def answer(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def serve(first_only: bool) -> Iterator[BulkServer]:
    server = BulkServer(first_only)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def always() -> Iterator[BulkServer]:
    yield from serve(first_only=False)


@pytest.fixture
def first_only() -> Iterator[BulkServer]:
    yield from serve(first_only=True)


def make_spec(port: int, retry: dict[str, Any]) -> str:
    return json.dumps(
        {
            "targets": [f"http://127.0.0.1:{port}"],
            "bulk_path": "/systembase/_bulk",
            "headers": [["Authorization", "Basic eDp5"]],
            "generator": {"kind": "systembase", "variant": "bulk", "seed": 7},
            "bulk": {"docs": 300},
            "clients": 3,
            "schedule": {"kind": "closed"},
            "stop": {"duration_s": None, "docs": 3000},
            "interval_s": 0.5,
            "retry": retry,
            "threads": 2,
            "request_timeout_s": 10.0,
            "drain_timeout_s": 10.0,
        }
    )


def run(spec: str) -> _engine.Totals:
    engine = _engine.Engine(spec)
    engine.start()
    return engine.finish()


def assert_unique_docs(c: _engine.Counters, unique: int) -> None:
    """docs_sent counts every retry again; each unique doc ends exactly once as acked,
    rejected or failed."""
    assert c.docs_acked + c.docs_rejected + c.docs_failed == unique


def test_item_errors_without_retry_are_counted_exactly(always: BulkServer) -> None:
    totals = run(make_spec(always.server_address[1], {"kind": "none"}))
    c = totals.counters
    # 10 bulks of 300: bulks 5 and 10 are rejected whole (600 docs); each of the other 8
    # has 100 items rejected (j % 3 == 0) and 200 acked.
    assert c.requests == 10 == always.requests
    assert c.requests_http_429 == 2
    assert c.requests_item_errors == 8
    assert c.docs_acked == 8 * 200
    assert c.docs_rejected == 600 + 8 * 100
    assert c.docs_failed == 0
    assert c.retries == 0
    assert c.docs_sent == 3000 == always.received
    assert_unique_docs(c, 3000)
    kinds = {e.kind: e for e in totals.errors}
    assert kinds["item 429 es_rejected_execution_exception"].count == 800
    assert kinds["item 429 es_rejected_execution_exception"].example.startswith(
        "rejected execution of coordinating operation"
    )
    assert kinds["http 429"].count == 2


def test_backoff_retries_until_acked(first_only: BulkServer) -> None:
    retry = {"kind": "backoff", "max_attempts": 4, "initial_ms": 5, "max_ms": 20}
    totals = run(make_spec(first_only.server_address[1], retry))
    c = totals.counters
    # Every bulk's first attempt is rejected (whole or in part), every retry accepted.
    assert c.docs_acked == 3000
    assert c.docs_rejected == 0 == c.docs_failed
    assert c.retries == 10
    assert c.requests == 20 == first_only.requests
    assert c.docs_sent > 3000
    assert_unique_docs(c, 3000)
    assert c.docs_sent == first_only.received  # resent docs counted again
    assert len(first_only.seen) == 3000
    assert "item 429 es_rejected_execution_exception" in {e.kind for e in totals.errors}


def test_backoff_gives_up_after_max_attempts(always: BulkServer) -> None:
    retry = {"kind": "backoff", "max_attempts": 2, "initial_ms": 1, "max_ms": 2}
    totals = run(make_spec(always.server_address[1], retry))
    c = totals.counters
    assert c.docs_acked + c.docs_rejected == 3000
    assert_unique_docs(c, 3000)
    assert c.docs_sent == always.received > 3000  # resent docs counted again
    assert len(always.seen) == 3000
    assert c.docs_rejected > 0
    assert c.retries == 10  # every bulk had rejections on its first attempt
    assert c.requests == 20
