"""Every command-line shortcut becomes one frozen, validated `LoadPlan` before anything runs.

The engine, the store and the reports only ever see plans and results. Validation is pure
(no I/O), and each problem is a `UsageError` naming the option, so a bad value stops the
run before a cluster is started or a connection opened.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from shardlab.errors import UsageError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_DURATION_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "": 1.0}
# OpenSearch time values accepted by index.refresh_interval (plus -1 to disable refresh).
_REFRESH = re.compile(r"^(-1|\d+(nanos|micros|ms|s|m|h|d))$")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g)?\s*$", re.IGNORECASE)
_SIZE_UNIT_BYTES = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2}
_SIZE_UNIT_BYTES |= {"g": 1024**3, "gb": 1024**3}
_COUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmKM])?\s*$")

MAX_SHARDS = 1024  # OpenSearch's own per-index limit
MAX_BULK_DOCS = 100_000
MAX_BULK_BYTES = 100 * 1024**2  # OpenSearch's default http.max_content_length
MAX_CLIENTS = 100_000
MAX_ENGINE_THREADS = 256
MIN_INTERVAL_S = 0.001
MAX_SEED = 2**64 - 1
# OpenSearch index names: lowercase, none of these characters, no leading _ - +, not . or ..
_INDEX_FORBIDDEN = set('\\/*?"<>| ,#:')


def parse_duration_s(option: str, text: str) -> float:
    """'60s', '5m', '1.5h', '250ms' or a bare number of seconds."""
    match = _DURATION.match(text)
    if not match:
        raise UsageError(option, text, "is not a duration", "use e.g. 60s, 5m or 1h")
    seconds = float(match.group(1)) * _DURATION_UNIT_S[match.group(2) or ""]
    if seconds <= 0:
        raise UsageError(option, text, "must be longer than zero")
    return seconds


def parse_size_bytes(option: str, text: str) -> int:
    """'5mb', '512kb', '1000000' (bytes); binary units."""
    match = _SIZE.match(text)
    if not match:
        raise UsageError(option, text, "is not a size", "use e.g. 5mb, 512kb or a byte count")
    unit = (match.group(2) or "").lower()
    size = int(float(match.group(1)) * _SIZE_UNIT_BYTES[unit])
    if size < 1:
        raise UsageError(option, text, "must be at least 1 byte")
    return size


def parse_count(option: str, text: str) -> int:
    """'1000000', '500k', '2m' (decimal: k = 1,000, m = 1,000,000)."""
    match = _COUNT.match(text)
    if not match:
        raise UsageError(option, text, "is not a count", "use e.g. 1000000, 500k or 2m")
    scale = {"k": 1_000, "m": 1_000_000}.get((match.group(2) or "").lower(), 1)
    count = int(float(match.group(1)) * scale)
    if count < 1:
        raise UsageError(option, text, "must be at least 1")
    return count


def parse_refresh_interval(text: str) -> str:
    value = text.strip()
    if not _REFRESH.match(value):
        raise UsageError(
            "--refresh", text, "is not a refresh interval", "use e.g. 1s, 30s, or -1 to disable"
        )
    return value


def parse_targets(text: str) -> tuple[str, ...]:
    urls = tuple(part.strip().rstrip("/") for part in text.split(",") if part.strip())
    if not urls:
        raise UsageError("--target", text, "names no URL", "use e.g. http://127.0.0.1:9200")
    for url in urls:
        match = re.match(r"^(https?)://[^/\s:]+(?::(\d{1,5}))?$", url)
        if not match:
            raise UsageError(
                "--target",
                url,
                "is not a node URL",
                "use http://host:port, e.g. http://10.0.0.4:9200",
            )
        if match.group(2) and not 1 <= int(match.group(2)) <= 65535:
            raise UsageError("--target", url, "has no valid port", "ports run from 1 to 65535")
    return urls


def check_index_name(name: str) -> str:
    """OpenSearch's rules for index names, checked before any request names the index: a
    wildcard or _all here would turn 'drop the benchmark index' into 'drop every index'."""
    problem = None
    if not name:
        problem = "is empty"
    elif name != name.lower():
        problem = "must be lowercase"
    elif _INDEX_FORBIDDEN & set(name):
        problem = 'must not contain any of \\ / * ? " < > | space , # :'
    elif name[0] in "_-+" or name in (".", ".."):
        problem = "must not start with _ - + or be . or .."
    elif len(name.encode()) > 255:
        problem = "is longer than 255 bytes"
    if problem:
        raise UsageError("--index", repr(name), problem, "choose a plain name like systembase-2")
    return name


def _at_least(option: str, value: int, minimum: int) -> int:
    if value < minimum:
        raise UsageError(option, value, f"must be at least {minimum}")
    return value


def _within(option: str, value: float, minimum: float, maximum: float, hint: str = "") -> None:
    if not (math.isfinite(value) and minimum <= value <= maximum):
        raise UsageError(option, value, f"must be from {minimum:,} to {maximum:,}", hint)


@dataclass(frozen=True)
class IndexSettings:
    shards: int
    replicas: int
    refresh_interval: str

    def __post_init__(self) -> None:
        _at_least("--shards", self.shards, 1)
        if self.shards > MAX_SHARDS:
            raise UsageError("--shards", self.shards, f"must be at most {MAX_SHARDS}")
        _at_least("--replicas", self.replicas, 0)
        parse_refresh_interval(self.refresh_interval)


@dataclass(frozen=True)
class RetryPolicy:
    """`none`: errors are counted, not retried (the seeds measure raw errors).
    `backoff`: rejected items are resent after initial_ms * 2^k, capped at max_ms."""

    kind: Literal["none", "backoff"] = "none"
    max_attempts: int = 8
    initial_ms: int = 50
    max_ms: int = 5_000

    def __post_init__(self) -> None:
        if self.kind not in ("none", "backoff"):
            raise UsageError("--retry", self.kind, "is not a retry policy", "use none or backoff")
        _at_least("--retry max attempts", self.max_attempts, 1)


@dataclass(frozen=True)
class BulkSize:
    """Exactly one of docs / bytes: a bulk request carries that many documents, or documents
    are appended until the body reaches that many bytes."""

    docs: int | None = 1000  # seed appendix: "Each bulk insert batch comprised 1000 documents"
    bytes: int | None = None

    def __post_init__(self) -> None:
        if (self.docs is None) == (self.bytes is None):
            raise UsageError("--bulk-docs/--bulk-bytes", None, "give one of the two, not both")
        if self.docs is not None:
            _within("--bulk-docs", self.docs, 1, MAX_BULK_DOCS)
        if self.bytes is not None:
            _within(
                "--bulk-bytes",
                self.bytes,
                1,
                MAX_BULK_BYTES,
                "OpenSearch's default http.max_content_length is 100mb",
            )


@dataclass(frozen=True)
class StopCondition:
    """The run ends at whichever comes first."""

    duration_s: float | None = 60.0
    docs: int | None = None

    def __post_init__(self) -> None:
        if self.duration_s is None and self.docs is None:
            raise UsageError("--duration/--docs", None, "give at least one")


@dataclass(frozen=True)
class TelemetryPlan:
    """What the probes watch while the load runs: on by default, every second."""

    enabled: bool = True
    sample_interval_s: float = 1.0

    def __post_init__(self) -> None:
        _within("--sample-interval", self.sample_interval_s, 0.1, 3600.0, "use e.g. 1s")


@dataclass(frozen=True)
class LoadPlan:
    workload: str
    variant: str
    index: str
    index_settings: IndexSettings
    clients: int = 8
    bulk: BulkSize = field(default_factory=BulkSize)
    stop: StopCondition = field(default_factory=StopCondition)
    rate_per_s: float | None = None  # None: closed model, each client sends as soon as answered
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    interval_s: float = 1.0
    seed: int = 1
    engine_threads: int = 1
    request_timeout_s: float = 120.0
    warmup_s: float = 0.0  # the first intervals are warm-up: left out of the summary
    telemetry: TelemetryPlan = field(default_factory=TelemetryPlan)

    def __post_init__(self) -> None:
        check_index_name(self.index)
        _at_least("--clients", self.clients, 1)
        _within("--clients", self.clients, 1, MAX_CLIENTS)
        _within("--threads", self.engine_threads, 1, MAX_ENGINE_THREADS)
        _within("--seed", self.seed, 0, MAX_SEED)
        if self.rate_per_s is not None and not (
            math.isfinite(self.rate_per_s) and self.rate_per_s > 0
        ):
            raise UsageError("--rate", self.rate_per_s, "must be a number above zero")
        if self.interval_s < MIN_INTERVAL_S:
            raise UsageError("--interval", f"{self.interval_s}s", "must be at least 1ms")
        if self.warmup_s < 0 or not math.isfinite(self.warmup_s):
            raise UsageError("--warmup", f"{self.warmup_s}s", "must be zero or more")
        duration_s = self.stop.duration_s
        if duration_s is not None and self.warmup_s >= duration_s:
            raise UsageError(
                "--warmup",
                f"{self.warmup_s:g}s",
                f"leaves nothing to measure in a {duration_s:g}s run",
                "make --duration longer than --warmup",
            )


@dataclass(frozen=True)
class Target:
    """Where the load goes: a local lab started by shardlab, or a remote cluster."""

    urls: tuple[str, ...]
    kind: Literal["local", "remote"]
    lab: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None  # trusted besides the system's CAs, for https targets
    verify_tls: bool = True  # False: accept any certificate (a lab's self-signed one)
