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
from shardlab.results import IndexCheck, IntervalRecord, RunOutcome
from shardlab.store import Store
from shardlab.workloads.base import Workload
from shardlab.workloads.index import count_after_refresh, recreate_index, unassigned_shards


def target_record(target: Target) -> dict[str, Any]:
    record = asdict(target)
    record.pop("password")  # never stored
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
    count_problem: list[str] = []
    try:
        index_check: IndexCheck | None = IndexCheck(
            plan.index,
            count_after_refresh(client, plan.index),
            totals.counts.docs_acked,
            unassigned_shards(client, plan.index),
        )
    except (UsageError, ClusterHTTPError) as error:
        index_check = None  # the measurements stand; only the cross-check is missing
        count_problem.append(f"the index could not be counted after the run: {error}")
    summary = summarize(totals, index_check)
    warnings = warnings_for(totals, index_check) + count_problem
    store.end_run(run_id, status, totals, asdict(summary) | {"warnings": warnings})
    return RunOutcome(run_id, status, totals, index_check, warnings)
