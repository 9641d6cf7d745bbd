"""`shardlab run WORKLOAD`: parse -> plan -> provision -> run -> store -> report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from shardlab.analysis.summary import summarize
from shardlab.benchmark import run_benchmark
from shardlab.cli.cluster import start_local_cluster
from shardlab.cli.common import LabOption, StoreOption, console, open_store
from shardlab.cluster.client import ClusterClient
from shardlab.errors import UsageError
from shardlab.plan import (
    BulkSize,
    IndexSettings,
    LoadPlan,
    RetryPolicy,
    StopCondition,
    Target,
    parse_count,
    parse_duration_s,
    parse_size_bytes,
    parse_targets,
)
from shardlab.report.live import LiveProgress
from shardlab.report.tables import documents_line, summary_table
from shardlab.workloads import WORKLOADS, workload_named

Opt = typer.Option


def run(
    workload_name: Annotated[
        str, typer.Argument(metavar="WORKLOAD", help=f"One of: {', '.join(WORKLOADS)}.")
    ],
    variant: Annotated[
        str, Opt(help="bulk, or bigbulk (adds data1/data2 of 12000 chars).")
    ] = "bulk",
    shards: Annotated[int, Opt(help="number_of_shards (seed: 5).")] = 5,
    replicas: Annotated[int, Opt(help="number_of_replicas (seed: 1).")] = 1,
    refresh: Annotated[str, Opt(help="refresh_interval: 1s, 30s, -1 (seed: 30s).")] = "30s",
    clients: Annotated[int, Opt(help="Concurrent keep-alive connections.")] = 8,
    bulk_docs: Annotated[
        int | None, Opt(help="Documents per bulk request [default: 1000].")
    ] = None,
    bulk_bytes: Annotated[str | None, Opt(help="Or bulk request size, e.g. 5mb.")] = None,
    duration: Annotated[str | None, Opt(help="Run time, e.g. 60s, 10m [default: 60s].")] = None,
    docs: Annotated[str | None, Opt(help="Or stop after this many documents, e.g. 1m.")] = None,
    target: Annotated[
        str | None, Opt(help="Node URL(s), comma-separated [default: the local cluster].")
    ] = None,
    user: Annotated[str | None, Opt(help="Basic-auth user for --target.")] = None,
    password: Annotated[str | None, Opt(envvar="SHARDLAB_PASSWORD", help="Its password.")] = None,
    ca_cert: Annotated[
        Path | None, Opt(help="PEM file of a CA to trust for https targets, besides the system's.")
    ] = None,
    insecure: Annotated[
        bool, Opt(help="Accept any certificate from https targets (a lab's self-signed one).")
    ] = False,
    index: Annotated[str | None, Opt(help="Index name [default: the workload's].")] = None,
    force: Annotated[bool, Opt(help="Drop the index even if shardlab did not create it.")] = False,
    retry: Annotated[str, Opt(help="none (count errors, as the seeds) or backoff.")] = "none",
    rate: Annotated[float | None, Opt(help="Total bulk requests/s [default: closed loop].")] = None,
    interval: Annotated[str, Opt(help="Reporting interval.")] = "1s",
    seed: Annotated[int, Opt(help="Seed of the document generator.")] = 1,
    threads: Annotated[int, Opt(help="Native engine threads.")] = 1,
    lab: LabOption = "default",
    store: StoreOption = None,
) -> None:
    """Run a workload against a cluster and print the seed-style results table.

    Without --target the local cluster is used, started first if it is not running (and
    left running: `shardlab cluster down` stops it). The workload's index is dropped and
    recreated before the run, but only if shardlab created it.
    """
    workload = workload_named(workload_name)
    if password is not None and user is None:
        raise UsageError("--password", "(hidden)", "needs --user")
    if docs is not None and duration is None:
        stop = StopCondition(duration_s=None, docs=parse_count("--docs", docs))
    else:
        stop = StopCondition(
            duration_s=parse_duration_s("--duration", duration or "60s"),
            docs=parse_count("--docs", docs) if docs else None,
        )
    plan = LoadPlan(
        workload=workload.name,
        variant=workload.check_variant(variant),
        index=workload.default_index if index is None else index,
        index_settings=IndexSettings(shards, replicas, refresh.strip()),
        clients=clients,
        bulk=BulkSize(
            docs=bulk_docs if bulk_docs is not None or bulk_bytes else 1000,
            bytes=parse_size_bytes("--bulk-bytes", bulk_bytes) if bulk_bytes else None,
        ),
        stop=stop,
        rate_per_s=rate,
        retry=RetryPolicy(kind=retry),  # type: ignore[arg-type]  # checked by RetryPolicy
        interval_s=parse_duration_s("--interval", interval),
        seed=seed,
        engine_threads=threads,
    )
    if target is None:
        state = start_local_cluster(lab)
        load_target = Target(urls=tuple(state.urls), kind="local", lab=lab)
    else:
        load_target = Target(
            parse_targets(target),
            "remote",
            user=user,
            password=password,
            ca_file=ca_cert,
            verify_tls=not insecure,
        )
    client = ClusterClient.for_target(load_target)

    with open_store(store) as results:
        console.print(
            f"[bold]{plan.workload}/{plan.variant}[/] -> {', '.join(load_target.urls)}: "
            f"{plan.index_settings.shards} shard(s), {plan.index_settings.replicas} replica(s), "
            f"refresh {plan.index_settings.refresh_interval}, {plan.clients} clients"
        )
        with LiveProgress(plan, console) as live:
            outcome = run_benchmark(
                plan, load_target, workload, client, results, live.update, force
            )
        assert outcome.totals is not None
        summary = summarize(outcome.totals, outcome.index_check)
        console.print(summary_table(summary, f"run {outcome.run_id} ({outcome.status})"))
        console.print(documents_line(summary))
        for warning in outcome.warnings:
            console.print(f"[yellow]warning:[/] {warning}")
        console.print(f"stored as run {outcome.run_id} in {results.path}")
    if target is None:
        lab_option = "" if lab == "default" else f" --lab {lab}"
        console.print(
            f"the local cluster keeps running; `shardlab cluster down{lab_option}` stops it"
        )
    if outcome.status == "interrupted":
        raise typer.Exit(130)
