"""`Engine.estimated_bulk_bytes` against the bodies the engine really sends, and the spec error
for a `bulk.docs` body above OpenSearch's 100 MiB http.max_content_length."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from shardlab import _engine


def make_spec(port: int, **overrides: Any) -> str:
    spec: dict[str, Any] = {
        "targets": [f"http://127.0.0.1:{port}"],
        "bulk_path": "/systembase/_bulk",
        "generator": {"kind": "systembase", "variant": "bigbulk", "seed": 42},
        "bulk": {"docs": 1000},
        "clients": 2,
        "schedule": {"kind": "closed"},
        "stop": {"duration_s": None, "docs": 10_000},
        "interval_s": 1.0,
        "retry": {"kind": "none"},
        "threads": 1,
        "request_timeout_s": 10.0,
        "drain_timeout_s": 5.0,
    }
    spec.update(overrides)
    return json.dumps(spec)


@pytest.mark.parametrize("variant", ["bulk", "bigbulk"])
def test_the_estimate_matches_the_bytes_sent(variant: str) -> None:
    sink = _engine.NullSink()
    try:
        generator = {"kind": "systembase", "variant": variant, "seed": 42}
        engine = _engine.Engine(make_spec(sink.port, generator=generator))
        engine.start()
        deadline = time.monotonic() + 60
        while not engine.finished:
            assert time.monotonic() < deadline, "the engine did not finish"
            engine.next_interval(0.1)
        c = engine.finish().counters
    finally:
        sink.close()
    assert c.requests == 10 == c.requests_ok
    assert engine.estimated_bulk_bytes == pytest.approx(c.bytes_sent / c.requests, rel=0.01)


def test_a_bytes_bulk_is_estimated_at_its_size() -> None:
    engine = _engine.Engine(make_spec(9200, bulk={"bytes": 5_000_000}))
    assert engine.estimated_bulk_bytes == 5_000_000


def test_a_docs_bulk_above_100_mib_is_refused() -> None:
    with pytest.raises(_engine.SpecError) as info:
        _engine.Engine(make_spec(9200, bulk={"docs": 100_000}))
    message = str(info.value)
    assert message.startswith("bulk.docs: 100000 documents of ~24,")
    assert "bytes make a ~2.3 GiB bulk body, above the 100 MiB limit" in message
    assert message.endswith("(http.max_content_length): use fewer --bulk-docs or --bulk-bytes")
    assert _engine.Engine(make_spec(9200)).estimated_bulk_bytes < 100 * 1024 * 1024
