"""The one place where options, as a user types them, become a `LoadPlan` and a `Target`.

`shardlab run` calls it with its command-line options; sweeps and plan files build the same
`RunOptions` and get the same validation and the same one-line errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shardlab.errors import UsageError
from shardlab.plan import (
    BulkSize,
    IndexSettings,
    LoadPlan,
    RetryPolicy,
    StopCondition,
    Target,
    TelemetryPlan,
    parse_count,
    parse_duration_s,
    parse_size_bytes,
    parse_targets,
)
from shardlab.workloads.base import Workload


@dataclass(frozen=True)
class RunOptions:
    """The options of `shardlab run`, unparsed; None means the default."""

    variant: str = "bulk"
    shards: int = 5
    replicas: int = 1
    refresh: str = "30s"
    clients: int = 8
    bulk_docs: int | None = None
    bulk_bytes: str | None = None
    duration: str | None = None
    docs: str | None = None
    rate: float | None = None
    retry: str = "none"
    interval: str = "1s"
    seed: int = 1
    threads: int = 1
    index: str | None = None
    warmup: str = "0s"
    sample_interval: str = "1s"
    telemetry: bool = True


def _stop_condition(duration: str | None, docs: str | None) -> StopCondition:
    if docs is not None and duration is None:
        return StopCondition(duration_s=None, docs=parse_count("--docs", docs))
    return StopCondition(
        duration_s=parse_duration_s("--duration", duration or "60s"),
        docs=parse_count("--docs", docs) if docs else None,
    )


def _warmup_s(text: str) -> float:
    return 0.0 if text.strip() in ("0", "0s") else parse_duration_s("--warmup", text)


def plan_from_options(workload: Workload, options: RunOptions) -> LoadPlan:
    """Parse and validate every option (pure): a UsageError names the first bad one."""
    bulk_docs = options.bulk_docs
    return LoadPlan(
        workload=workload.name,
        variant=workload.check_variant(options.variant),
        index=workload.default_index if options.index is None else options.index,
        index_settings=IndexSettings(options.shards, options.replicas, options.refresh.strip()),
        clients=options.clients,
        bulk=BulkSize(
            docs=bulk_docs if bulk_docs is not None or options.bulk_bytes else 1000,
            bytes=parse_size_bytes("--bulk-bytes", options.bulk_bytes)
            if options.bulk_bytes
            else None,
        ),
        stop=_stop_condition(options.duration, options.docs),
        rate_per_s=options.rate,
        retry=RetryPolicy(kind=options.retry),  # type: ignore[arg-type]  # checked there
        interval_s=parse_duration_s("--interval", options.interval),
        seed=options.seed,
        engine_threads=options.threads,
        warmup_s=_warmup_s(options.warmup),
        telemetry=TelemetryPlan(
            enabled=options.telemetry,
            sample_interval_s=parse_duration_s("--sample-interval", options.sample_interval),
        ),
    )


def check_credentials(user: str | None, password: str | None) -> None:
    if password is not None and user is None:
        raise UsageError("--password", "(hidden)", "needs --user")


def remote_target(
    urls: str,
    user: str | None = None,
    password: str | None = None,
    ca_cert: Path | None = None,
    insecure: bool = False,
) -> Target:
    """A running cluster named by its node URLs (`--target`)."""
    check_credentials(user, password)
    return Target(
        parse_targets(urls),
        "remote",
        user=user,
        password=password,
        ca_file=ca_cert,
        verify_tls=not insecure,
    )
