"""Driving the native engine in tests: its JSON spec and a run collected to the end.

`make_spec` starts from one base run (1000-doc systembase bulks from 4 closed-loop clients
until 10,000 docs, 1 s intervals, no retries, one runtime thread); a test module that wants
another run passes the fields it changes as overrides.
"""

from __future__ import annotations

import json
import time
from typing import Any

from shardlab import _engine


def make_spec(targets: str | list[str], /, **overrides: Any) -> str:
    """The engine's JSON spec: the base run against `targets` (one URL or a list), with the
    top-level fields in `overrides` replaced whole (`targets` among them: it is positional
    only, so a test can override the targets field itself)."""
    spec: dict[str, Any] = {
        "targets": [targets] if isinstance(targets, str) else list(targets),
        "bulk_path": "/systembase/_bulk",
        "generator": {"kind": "systembase", "variant": "bulk", "seed": 42},
        "bulk": {"docs": 1000},
        "clients": 4,
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


def run_all(
    engine_or_spec: _engine.Engine | str, timeout_s: float = 60.0
) -> tuple[list[_engine.Interval], _engine.Totals]:
    """Start the engine (or one built from a JSON spec), collect its intervals until it has
    finished, and return them with its totals. Fails the test if the run is not over within
    `timeout_s`."""
    engine = _engine.Engine(engine_or_spec) if isinstance(engine_or_spec, str) else engine_or_spec
    engine.start()
    intervals = []
    deadline = time.monotonic() + timeout_s
    while not engine.finished:
        assert time.monotonic() < deadline, "the engine did not finish"
        iv = engine.next_interval(0.1)
        if iv is not None:
            intervals.append(iv)
    return intervals, engine.finish()
