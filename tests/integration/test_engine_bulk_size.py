"""`Engine.estimated_bulk_bytes` against the bodies the engine really sends, and the spec error
for a `bulk.docs` body above OpenSearch's 100 MiB http.max_content_length."""

from __future__ import annotations

from typing import Any

import pytest

from shardlab import _engine

from .engine_runs import make_spec, run_all

# Specs that are only built, never run, name this target.
TARGET = "http://127.0.0.1:9200"

# This module's run, over the base spec: the big systembase docs, from 2 clients.
BIGBULK: dict[str, Any] = {
    "generator": {"kind": "systembase", "variant": "bigbulk", "seed": 42},
    "clients": 2,
}


@pytest.mark.parametrize("variant", ["bulk", "bigbulk"])
def test_the_estimate_matches_the_bytes_sent(variant: str, sink: _engine.NullSink) -> None:
    generator = {"kind": "systembase", "variant": variant, "seed": 42}
    engine = _engine.Engine(
        make_spec(f"http://127.0.0.1:{sink.port}", **{**BIGBULK, "generator": generator})
    )
    _, totals = run_all(engine)
    c = totals.counters
    assert c.requests == 10 == c.requests_ok
    assert engine.estimated_bulk_bytes == pytest.approx(c.bytes_sent / c.requests, rel=0.01)


def test_a_bytes_bulk_is_estimated_at_its_size() -> None:
    engine = _engine.Engine(make_spec(TARGET, **BIGBULK, bulk={"bytes": 5_000_000}))
    assert engine.estimated_bulk_bytes == 5_000_000


def test_a_docs_bulk_above_100_mib_is_refused() -> None:
    with pytest.raises(_engine.SpecError) as info:
        _engine.Engine(make_spec(TARGET, **BIGBULK, bulk={"docs": 100_000}))
    message = str(info.value)
    assert message.startswith("bulk.docs: 100000 documents of ~24,")
    assert "bytes make a ~2.3 GiB bulk body, above the 100 MiB limit" in message
    assert message.endswith("(http.max_content_length): use fewer --bulk-docs or --bulk-bytes")
    assert _engine.Engine(make_spec(TARGET, **BIGBULK)).estimated_bulk_bytes < 100 * 1024 * 1024
