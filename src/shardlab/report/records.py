"""Runs as plain records for scripts: `runs list --json|--csv` and `runs show --json`.

The shapes are documented in docs/results-json.md and versioned by their `schema` field;
a field is only ever added, never renamed or given another meaning, within a version.
Pure functions of stored data, so a store written by an older shardlab gives the same keys
(with null where it did not measure something).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from shardlab.analysis.run import RunAnalysis
from shardlab.store import RunData, StoredRun

LIST_SCHEMA = "shardlab.runs-list/1"
RUN_SCHEMA = "shardlab.run/1"

LIST_FIELDS = (
    "id",
    "started_at",
    "ended_at",
    "workload",
    "variant",
    "status",
    "shards",
    "replicas",
    "refresh_interval",
    "clients",
    "samples",
    "docs_per_s",
    "ops_per_s",
    "error_rate",
    "service_mean_ms",
    "service_p99_ms",
    "response_p99_ms",
    "measured_s",
    "warmup_s",
)


def _summary_figures(stored: dict[str, Any] | None) -> dict[str, Any]:
    """The headline figures of a stored summary, from either shape it was stored in: today's
    (`summary` with a `service` and a `response` clock) or the flat one of stores written
    before warm-up existed (whose `avg_response_ms` and `p99_ms` were service time)."""
    if not stored:
        return {}
    if "summary" in stored:
        summary = stored["summary"]
        return {
            "samples": summary["samples"],
            "docs_per_s": summary["docs_per_s"],
            "ops_per_s": summary["ops_per_s"],
            "error_rate": summary["error_rate"],
            "service_mean_ms": summary["service"]["mean_ms"],
            "service_p99_ms": summary["service"]["p99_ms"],
            "response_p99_ms": summary["response"]["p99_ms"],
            "measured_s": summary["measured_s"],
            "warmup_s": summary["warmup_s"],
        }
    return {
        "samples": stored.get("samples"),
        "docs_per_s": stored.get("docs_per_s"),
        "ops_per_s": stored.get("ops_per_s"),
        "error_rate": stored.get("error_rate"),
        "service_mean_ms": stored.get("avg_response_ms"),
        "service_p99_ms": stored.get("p99_ms"),
        "response_p99_ms": None,
        "measured_s": stored.get("elapsed_s"),
        "warmup_s": 0.0,
    }


def list_record(run: StoredRun) -> dict[str, Any]:
    """One run as a flat record: the columns of `runs list`, unformatted."""
    settings = run.plan.get("index_settings", {})
    record: dict[str, Any] = {
        "id": run.id,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "workload": run.workload,
        "variant": run.variant,
        "status": run.status,
        "shards": settings.get("shards"),
        "replicas": settings.get("replicas"),
        "refresh_interval": settings.get("refresh_interval"),
        "clients": run.plan.get("clients"),
    }
    figures = _summary_figures(run.summary)
    record |= {name: figures.get(name) for name in LIST_FIELDS if name not in record}
    return record


def list_document(runs: list[StoredRun], store_path: str) -> dict[str, Any]:
    return {"schema": LIST_SCHEMA, "store": store_path, "runs": [list_record(r) for r in runs]}


def run_document(data: RunData, analysis: RunAnalysis, telemetry: bool) -> dict[str, Any]:
    """Everything `runs show` prints, and with `telemetry` the stored samples and events."""
    run = data.run
    document: dict[str, Any] = {
        "schema": RUN_SCHEMA,
        "run": {
            "id": run.id,
            "workload": run.workload,
            "variant": run.variant,
            "status": run.status,
            "started_at": run.started_at,
            "ended_at": run.ended_at,
            "started_unix_s": run.started_unix_s,
            "hostname": run.hostname,
            "problem": run.problem,
        },
        "plan": run.plan,
        "target": run.target,
        "environment": run.environment,
        "engine_spec": run.engine_spec,
        "analysis": asdict(analysis),
        "errors": [asdict(e) for e in data.errors],
        "intervals": [
            {
                "index": i.index,
                "start_s": i.start_s,
                "start_unix_s": i.start_unix_s,
                "duration_s": i.duration_s,
                "counters": asdict(i.counters),
                "service": asdict(i.service),
                "response": asdict(i.response),
                "failed_service": asdict(i.failed_service),
                "schedule_lag_max_ms": i.schedule_lag_max_ms,
            }
            for i in data.intervals
        ],
    }
    if telemetry:
        document["telemetry"] = {
            "samples": [asdict(s) for s in data.samples],
            "events": [asdict(e) for e in data.events],
        }
    return document
