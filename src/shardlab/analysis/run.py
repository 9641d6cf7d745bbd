"""Everything said about one run, computed from what the store holds (pure): the seed-style
summary of the measured phase, what the cluster did meanwhile, when rejections began, the
efficiency figures, the driver's self-check, and the warnings.

The end of `shardlab run` and `shardlab runs show` both print this, from the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from shardlab.analysis.activity import ClusterActivity, cluster_activity
from shardlab.analysis.ceiling import RejectionStart, rejections_began
from shardlab.analysis.efficiency import Efficiency, efficiency
from shardlab.analysis.rates import Window
from shardlab.analysis.selfcheck import DriverShape, SelfCheck, driver_activity, self_check
from shardlab.analysis.summary import RunSummary, measured_intervals, summarize, warnings_for
from shardlab.results import Counters, IndexCheck, TargetErrors
from shardlab.store import RunData


@dataclass(frozen=True)
class RunAnalysis:
    summary: RunSummary
    index_check: IndexCheck | None  # the index counted after the run
    docs_acked_total: int  # over the whole run, warm-up included: what the index must hold
    whole_run: Counters  # every count over the whole run, warm-up included
    target_errors: list[TargetErrors]  # connections refused or broken, per target URL
    activity: ClusterActivity | None  # None when the run had no telemetry
    rejections_began: RejectionStart | None  # the "glass ceiling"
    efficiency: Efficiency | None
    self_check: SelfCheck | None
    warnings: list[str]


def stored_index_check(data: RunData) -> IndexCheck | None:
    """From the run's conclusion, or from a summary stored before conclusions were (flat
    `index_doc_count` and the acked count it was compared with)."""
    conclusion = data.run.conclusion or {}
    if conclusion.get("index_check"):
        known = {f.name for f in fields(IndexCheck)}
        return IndexCheck(**{k: v for k, v in conclusion["index_check"].items() if k in known})
    old: dict[str, Any] = data.run.summary or {}
    if old.get("index_doc_count") is not None:
        index = str(data.run.plan.get("index", data.run.workload))
        return IndexCheck(index, old["index_doc_count"], old["docs_acked"])
    return None


def driver_shape(plan: dict[str, Any]) -> DriverShape:
    rate = plan.get("rate_per_s")
    return DriverShape(
        schedule="closed" if rate is None else "fixed",
        clients=int(plan.get("clients", 1)),
        engine_threads=int(plan.get("engine_threads", 1)),
        rate_per_s=rate,
    )


def analyze(data: RunData) -> RunAnalysis:
    plan = data.run.plan
    warmup_s = float(plan.get("warmup_s", 0.0))
    index = plan.get("index")
    summary = summarize(data.intervals, warmup_s)
    measured = measured_intervals(data.intervals, warmup_s)
    whole_run = sum((i.counters for i in data.intervals), Counters())
    index_check = stored_index_check(data)
    in_flight_abandoned = int((data.run.totals or {}).get("in_flight_abandoned", 0))
    departed = sorted({str(e.detail.get("node")) for e in data.events if e.kind == "node_left"})
    warnings = warnings_for(whole_run, in_flight_abandoned, index_check, departed)
    warnings += (data.run.conclusion or {}).get("problems", [])
    if (data.run.totals or {}).get("stopped_by") == "unreachable":
        warnings.append(
            "every node was unreachable for 30 s, so the run stopped before its end: see the "
            "node lines above and the nodes' logs"
        )
    activity = efficiency_figures = checked = None
    if data.samples and measured:
        last = measured[-1]
        window = Window(measured[0].start_unix_s, last.start_unix_s + last.duration_s)
        activity = cluster_activity(data.samples, data.events, data.intervals, window, index)
        efficiency_figures = efficiency(activity, measured, data.events, index)
        driver = driver_activity(data.samples, window)
        checked = self_check(driver_shape(plan), activity, measured, driver)
        warnings += list(checked.warnings)
    warnings += [
        f"probe {e.detail.get('probe', e.probe)} failed: {e.detail.get('error', '?')}"
        for e in data.events
        if e.kind == "probe_error"
    ]
    return RunAnalysis(
        summary=summary,
        index_check=index_check,
        docs_acked_total=whole_run.docs_acked,
        whole_run=whole_run,
        target_errors=[
            TargetErrors(**errors) for errors in (data.run.totals or {}).get("target_errors", [])
        ],
        activity=activity,
        rejections_began=rejections_began(data.intervals, data.samples),
        efficiency=efficiency_figures,
        self_check=checked,
        warnings=warnings,
    )
