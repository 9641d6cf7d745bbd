"""One benchmark run, from a validated plan to a stored result:

prepare (compile the engine, record the environment, recreate the index) -> open the run in
the store -> run(plan) (the load, each interval and its telemetry stored as they arrive) ->
store the totals -> count the index -> store the conclusion and the summary.

The run's row exists before the first request, so whatever happens later (Ctrl-C, a crash,
a cluster that dies) leaves what was measured in the store, marked with how it ended.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass

from shardlab.analysis.run import RunAnalysis, analyze
from shardlab.benchmark.conclude import StoreRecorder, check_index, target_record
from shardlab.benchmark.execute import RunResult, run
from shardlab.benchmark.prepare import prepare
from shardlab.cluster.client import ClusterClient
from shardlab.plan import LoadPlan, Target
from shardlab.results import IndexCheck, Interval, Totals
from shardlab.store import Store
from shardlab.telemetry.probe import ProbeContext
from shardlab.workloads.base import Workload

__all__ = ["RunOutcome", "RunResult", "run", "run_benchmark"]


@dataclass(frozen=True)
class RunOutcome:
    """What one `shardlab run` produced, as stored."""

    run_id: int
    status: str  # completed | interrupted | failed
    analysis: RunAnalysis


def run_benchmark(
    plan: LoadPlan,
    target: Target,
    workload: Workload,
    client: ClusterClient,
    store: Store,
    on_interval: Callable[[Interval], None],
    force: bool = False,
) -> RunOutcome:
    prepared = prepare(plan, target, workload, client, force)
    run_id = store.begin_run(
        workload.name,
        plan.variant,
        asdict(plan),
        target_record(target),
        prepared.environment,
        prepared.engine_spec,
    )
    probe_context = ProbeContext(client, plan.index, target.kind == "local", os.getpid())
    concluded: list[tuple[IndexCheck | None, list[str]]] = []

    def conclude(totals: Totals) -> None:
        """The totals are stored before anything else can fail; the index count only adds."""
        status = status_of(totals)
        problem = UNREACHABLE if totals.stopped_by == "unreachable" else None
        store.end_run(run_id, status, totals, problem=problem)
        counters = totals.counters
        concluded.append(
            check_index(client, plan.index, counters.docs_acked, counters.docs_unknown)
        )

    try:
        result = run(
            plan,
            prepared.engine,
            probe_context,
            StoreRecorder(store, run_id),
            on_interval,
            conclude,
        )
    except KeyboardInterrupt:
        store.end_run(run_id, "interrupted", problem="stopped by Ctrl-C before the drain ended")
        raise
    except BaseException as error:
        store.end_run(run_id, "failed", problem=f"{type(error).__name__}: {error}")
        raise
    index_check, problems = concluded[0]
    store.set_conclusion(
        run_id,
        {
            "index_check": asdict(index_check) if index_check else None,
            "problems": problems,
            "probes": result.telemetry,
        },
    )
    analysis = analyze(store.run_data(run_id))
    store.set_summary(run_id, asdict(analysis))
    return RunOutcome(run_id, status_of(result.totals), analysis)


UNREACHABLE = "every node was unreachable for 30 s: the run stopped"


def status_of(totals: Totals) -> str:
    """completed; interrupted (Ctrl-C); failed (every node unreachable)."""
    return {"stop": "interrupted", "unreachable": "failed"}.get(totals.stopped_by, "completed")
