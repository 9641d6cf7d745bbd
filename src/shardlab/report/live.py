"""The live view of a run: a progress bar fed by the same interval records the store gets."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from shardlab.plan import LoadPlan
from shardlab.results import Counters, Interval


class LiveProgress:
    """Docs/s, ops/s, p50/p99 and errors of the last interval; the bar runs on time or on
    documents, whichever stop condition the plan has."""

    def __init__(self, plan: LoadPlan, console: Console) -> None:
        self._by_docs = plan.stop.duration_s is None
        self._interval_s = plan.interval_s
        self._total = float((plan.stop.docs if self._by_docs else plan.stop.duration_s) or 0)
        self._sum = Counters()
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[line]}"),
            console=console,
            transient=False,
            # redrawn once per interval, in update(): a 10 Hz redraw cost more CPU than the
            # whole rest of the Python side of a run
            auto_refresh=False,
        )
        self._task = self._progress.add_task(
            plan.workload, total=self._total, line="starting the load..."
        )

    def __enter__(self) -> LiveProgress:
        return self  # the bar appears with the first interval, once the load really runs

    def __exit__(self, *exc: object) -> None:
        if self._progress.live.is_started:
            self._progress.stop()

    def update(self, interval: Interval) -> None:
        if not self._progress.live.is_started:
            self._progress.start()
        counts = interval.counters
        self._sum = self._sum + counts
        done = self._sum.docs_sent if self._by_docs else interval.start_s + interval.duration_s
        if interval.duration_s < 0.5 * self._interval_s:
            # the drain after the stop: answers to requests sent earlier, over a sliver of
            # time; its rate would overstate the run, so the bar keeps the last full one
            self._progress.update(self._task, completed=min(done, self._total), refresh=True)
            return
        per_s = 1.0 / interval.duration_s
        line = (
            f"{counts.docs_acked * per_s:>9,.0f} docs/s  {counts.requests * per_s:>6,.1f} ops/s  "
            f"p50 {interval.service.p50_ms:,.0f} ms  p99 {interval.service.p99_ms:,.0f} ms  "
            f"errors {self._sum.requests_with_errors:,}"
        )
        self._progress.update(self._task, completed=min(done, self._total), line=line, refresh=True)
