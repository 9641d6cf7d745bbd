"""The results store (SQLite): runs, intervals, histograms, telemetry. See runs.py."""

from shardlab.store.runs import RunData, Store, StoredRun
from shardlab.store.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "RunData", "Store", "StoredRun"]
