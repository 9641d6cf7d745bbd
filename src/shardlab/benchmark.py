"""One benchmark run, from a validated plan to a stored result.

compile the engine -> record the environment -> prepare the index -> open the run in the
store -> drive the load (each interval stored as it arrives) -> count the index -> store the
totals and summary.
The run's row exists before the first request, so whatever happens later (Ctrl-C, a crash,
a cluster that dies) leaves what was measured in the store, marked with how it ended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from shardlab import __version__
from shardlab.analysis.summary import summarize, warnings_for
from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.driver import BUILD_PROFILE, compile_engine, drive, engine_spec
from shardlab.environment import cluster_environment, host_environment
from shardlab.errors import UsageError
from shardlab.plan import LoadPlan, Target
from shardlab.results import IndexCheck, IntervalRecord, RunOutcome, RunTotals
from shardlab.store import Store
from shardlab.workloads.base import Workload
from shardlab.workloads.index import count_after_refresh, recreate_index, unassigned_shards


def target_record(target: Target) -> dict[str, Any]:
    record = asdict(target)
    record.pop("password")  # never stored
    record["ca_file"] = str(target.ca_file) if target.ca_file else None
    return record


def run_benchmark(
    plan: LoadPlan,
    target: Target,
    workload: Workload,
    client: ClusterClient,
    store: Store,
    on_interval: Callable[[IntervalRecord], None],
    force: bool = False,
) -> RunOutcome:
    # compiled first: a plan the engine refuses must not cost the user their index
    engine = compile_engine(engine_spec(plan, target, workload))
    environment = host_environment(BUILD_PROFILE) | {"cluster": cluster_environment(client)}
    recreate_index(client, plan.index, workload.index_body(plan.index_settings, __version__), force)
    run_id = store.begin_run(
        workload.name, plan.variant, asdict(plan), target_record(target), environment
    )

    def record(interval: IntervalRecord) -> None:
        store.add_interval(run_id, interval)
        on_interval(interval)

    try:
        result = drive(engine, record)
    except KeyboardInterrupt:
        store.end_run(run_id, "interrupted", problem="stopped by Ctrl-C before the drain ended")
        raise
    except BaseException as error:
        store.end_run(run_id, "failed", problem=f"{type(error).__name__}: {error}")
        raise
    totals = result.totals
    status = "interrupted" if result.interrupted else "completed"
    # stored before anything else can fail: the index check below only adds to it
    store.end_run(run_id, status, totals, summary_record(totals, None, []))
    index_check, problems = check_index(client, plan.index, totals.counts.docs_acked)
    warnings = warnings_for(totals, index_check) + problems
    store.set_summary(run_id, summary_record(totals, index_check, warnings))
    return RunOutcome(run_id, status, totals, index_check, warnings)


def summary_record(
    totals: RunTotals, index_check: IndexCheck | None, warnings: list[str]
) -> dict[str, Any]:
    return asdict(summarize(totals, index_check)) | {"warnings": warnings}


def check_index(
    client: ClusterClient, index: str, docs_acked: int
) -> tuple[IndexCheck | None, list[str]]:
    """Count the index after a refresh. A failure here is reported, never fatal: the
    measurements are already stored, only the cross-check is missing."""
    try:
        check = IndexCheck(
            index,
            count_after_refresh(client, index),
            docs_acked,
            unassigned_shards(client, index),
        )
    except (UsageError, ClusterHTTPError, OSError, ValueError, KeyError) as error:
        return None, [
            f"the index could not be counted after the run ({type(error).__name__}: {error})"
        ]
    return check, []
