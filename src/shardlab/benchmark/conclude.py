"""After the load: store the totals at once, then count the index and store the summary.

The totals are stored before anything else can fail; counting the index only adds to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.errors import UsageError
from shardlab.plan import Target
from shardlab.results import IndexCheck, Interval
from shardlab.store import Store
from shardlab.telemetry.probe import Row
from shardlab.workloads.index import count_after_refresh, unassigned_shards


def target_record(target: Target) -> dict[str, Any]:
    record = asdict(target)
    record.pop("password")  # never stored
    record["ca_file"] = str(target.ca_file) if target.ca_file else None
    return record


class StoreRecorder:
    """The store as a run's `Recorder`: each interval and its telemetry as it arrives."""

    def __init__(self, store: Store, run_id: int) -> None:
        self.store = store
        self.run_id = run_id

    def interval(self, interval: Interval) -> None:
        self.store.add_interval(self.run_id, interval)

    def telemetry(self, rows: Sequence[Row]) -> None:
        if rows:
            self.store.add_telemetry(self.run_id, rows)


def check_index(
    client: ClusterClient, index: str, docs_acked: int, docs_unknown: int = 0
) -> tuple[IndexCheck | None, list[str]]:
    """Count the index after a refresh. A failure here is reported, never fatal: the
    measurements are already stored, only the cross-check is missing."""
    try:
        check = IndexCheck(
            index,
            count_after_refresh(client, index),
            docs_acked,
            unassigned_shards(client, index),
            docs_unknown,
        )
    except (UsageError, ClusterHTTPError, OSError, ValueError, KeyError) as error:
        return None, [
            f"the index could not be counted after the run ({type(error).__name__}: {error})"
        ]
    return check, []
