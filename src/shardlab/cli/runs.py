"""`shardlab runs list | show ID`: everything a run measured, read back from the store."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from shardlab.analysis.summary import RunSummary
from shardlab.cli.common import StoreOption, console, open_store
from shardlab.report.tables import (
    documents_line,
    errors_table,
    intervals_table,
    runs_table,
    summary_table,
)

app = typer.Typer(help="List and show stored runs.", no_args_is_help=True)


@app.command("list")
def list_runs(
    limit: Annotated[int, typer.Option(help="How many of the newest runs.")] = 50,
    store: StoreOption = None,
) -> None:
    """List stored runs, newest first."""
    with open_store(store) as results:
        runs = results.runs(limit)
        if not runs:
            console.print(f"no runs in {results.path} yet: try shardlab run systembase")
            return
        console.print(runs_table(runs))


@app.command("show")
def show_run(
    run_id: Annotated[int, typer.Argument(metavar="ID", help="Run id, from shardlab runs list.")],
    intervals: Annotated[bool, typer.Option(help="Print the per-interval series too.")] = False,
    store: StoreOption = None,
) -> None:
    """Show one run: plan, target, environment, results table, warnings and errors."""
    with open_store(store) as results:
        run = results.run(run_id)
        console.print(f"[bold]run {run.id}[/]: {run.workload}/{run.variant}, {run.status}")
        console.print(f"started {run.started_at}, ended {run.ended_at or '-'} on {run.hostname}")
        if run.problem:
            console.print(f"[yellow]problem:[/] {run.problem}")
        for title, record in (
            ("plan", run.plan),
            ("target", run.target),
            ("environment", run.environment),
        ):
            console.print(f"[bold]{title}[/] {json.dumps(record, sort_keys=True)}")
        if run.summary:
            fields = {k: v for k, v in run.summary.items() if k != "warnings"}
            summary = RunSummary(**fields)
            console.print(summary_table(summary, "results"))
            console.print(documents_line(summary))
            for warning in run.summary.get("warnings", []):
                console.print(f"[yellow]warning:[/] {warning}")
        else:
            console.print("no summary: the run did not finish; its intervals are below")
        series = results.intervals(run_id)
        if intervals or not run.summary:
            console.print(intervals_table(series))
        else:
            console.print(f"{len(series)} intervals stored (--intervals prints them)")
        errors = results.errors(run_id)
        if errors:
            console.print(errors_table(errors))
