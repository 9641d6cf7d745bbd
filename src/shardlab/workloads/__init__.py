"""What runs: one file per workload, each a `Workload` record; the registry is below."""

from __future__ import annotations

from shardlab.errors import UsageError
from shardlab.workloads.base import Workload
from shardlab.workloads.systembase import SYSTEMBASE

WORKLOADS: dict[str, Workload] = {SYSTEMBASE.name: SYSTEMBASE}


def workload_named(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        known = ", ".join(sorted(WORKLOADS))
        raise UsageError("workload", name, "is not known", f"choose one of: {known}") from None
