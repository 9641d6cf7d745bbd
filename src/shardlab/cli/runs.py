"""`shardlab runs list | show ID`: everything a run measured, read back from the store, for
people (tables) and for scripts (`--json`, `--csv`; see docs/results-json.md)."""

from __future__ import annotations

import csv
import json
import sys
from typing import Annotated, Any

import typer

from shardlab.analysis.run import analyze
from shardlab.analysis.timeline import HOST_COLUMNS, node_columns, timeline
from shardlab.cli.common import StoreOption, console, open_store
from shardlab.errors import UsageError
from shardlab.report.records import LIST_FIELDS, list_document, list_record, run_document
from shardlab.report.run_view import run_view
from shardlab.report.tables import errors_table, intervals_table, runs_table, timeline_table

app = typer.Typer(help="List and show stored runs.", no_args_is_help=True)


def _print_json(document: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(document, indent=2, default=str) + "\n")


@app.command("list")
def list_runs(
    limit: Annotated[int, typer.Option(help="How many of the newest runs.")] = 50,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON (schema shardlab.runs-list/1).")
    ] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV, one row per run.")] = False,
    store: StoreOption = None,
) -> None:
    """List stored runs, newest first."""
    if as_json and as_csv:
        raise UsageError("--json/--csv", None, "choose one of the two")
    with open_store(store) as results:
        runs = results.runs(limit)
        if as_json:
            _print_json(list_document(runs, str(results.path)))
        elif as_csv:
            writer = csv.DictWriter(sys.stdout, fieldnames=LIST_FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(list_record(run) for run in runs)
        elif not runs:
            console.print(f"no runs in {results.path} yet: try shardlab run systembase")
        else:
            console.print(runs_table(runs))


@app.command("show")
def show_run(
    run_id: Annotated[int, typer.Argument(metavar="ID", help="Run id, from shardlab runs list.")],
    intervals: Annotated[bool, typer.Option(help="Print the per-interval series too.")] = False,
    telemetry: Annotated[
        bool,
        typer.Option(help="Print the load beside the node, host and driver series, per interval."),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print JSON (schema shardlab.run/1); with --telemetry, every sample."
        ),
    ] = False,
    store: StoreOption = None,
) -> None:
    """Show one run, recomputed from the store: plan, environment, the seed-style results of
    the measured phase, what the cluster did, warnings and errors."""
    with open_store(store) as results:
        data = results.run_data(run_id)
    analysis = analyze(data)
    if as_json:
        _print_json(run_document(data, analysis, telemetry))
        return
    run = data.run
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
    if not data.intervals:
        console.print("no intervals were stored: the load never started")
    else:
        for renderable in run_view(analysis, "results"):
            console.print(renderable)
    if intervals:
        console.print(intervals_table(data.intervals))
    if telemetry:
        nodes = sorted({s.source for s in data.samples if s.probe == "nodes"})
        console.print(
            timeline_table(
                "load, host and driver",
                HOST_COLUMNS,
                timeline(data.intervals, data.samples, HOST_COLUMNS),
            )
        )
        for node in nodes:
            columns = node_columns(node)
            console.print(
                timeline_table(
                    f"node {node}", columns, timeline(data.intervals, data.samples, columns)
                )
            )
    elif not intervals:
        console.print(
            f"{len(data.intervals)} intervals and {len(data.samples)} telemetry samples stored "
            "(--intervals and --telemetry print them)"
        )
    if data.errors:
        console.print(errors_table(data.errors))
