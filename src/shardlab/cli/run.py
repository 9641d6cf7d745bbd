"""`shardlab run WORKLOAD`: parse -> plan -> provision -> run -> store -> report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from shardlab.benchmark import run_benchmark
from shardlab.cli.cluster import start_local_cluster
from shardlab.cli.common import LabOption, StoreOption, console, err_console, open_store
from shardlab.cluster.client import ClusterClient
from shardlab.options import RunOptions, check_credentials, plan_from_options, remote_target
from shardlab.plan import Target
from shardlab.report.live import LiveProgress
from shardlab.report.run_view import run_view
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
    warmup: Annotated[
        str, Opt(help="Warm-up at the start of the run, left out of the summary, e.g. 15s.")
    ] = "0s",
    sample_interval: Annotated[
        str, Opt(help="How often the probes sample node, host and driver stats.")
    ] = "1s",
    telemetry: Annotated[
        bool, Opt(help="Sample node, cluster, host and driver stats while the load runs.")
    ] = True,
    lab: LabOption = "default",
    store: StoreOption = None,
) -> None:
    """Run a workload against a cluster and print the seed-style results table.

    Without --target the local cluster is used, started first if it is not running (and
    left running: `shardlab cluster down` stops it). The workload's index is dropped and
    recreated before the run, but only if shardlab created it.
    """
    workload = workload_named(workload_name)
    check_credentials(user, password)
    options = RunOptions(
        variant=variant,
        shards=shards,
        replicas=replicas,
        refresh=refresh,
        clients=clients,
        bulk_docs=bulk_docs,
        bulk_bytes=bulk_bytes,
        duration=duration,
        docs=docs,
        rate=rate,
        retry=retry,
        interval=interval,
        seed=seed,
        threads=threads,
        index=index,
        warmup=warmup,
        sample_interval=sample_interval,
        telemetry=telemetry,
    )
    remote = None if target is None else remote_target(target, user, password, ca_cert, insecure)
    plan = plan_from_options(workload, options)
    if remote is None:
        state = start_local_cluster(lab)
        load_target = Target(urls=tuple(state.urls), kind="local", lab=lab)
    else:
        load_target = remote
    client = ClusterClient.for_target(load_target)

    with open_store(store) as results:
        settings = plan.index_settings
        console.print(
            f"[bold]{plan.workload}/{plan.variant}[/] -> {', '.join(load_target.urls)}: "
            f"{settings.shards} shard(s), {settings.replicas} replica(s), "
            f"refresh {settings.refresh_interval}, {plan.clients} clients"
            + (f", warm-up {plan.warmup_s:g}s" if plan.warmup_s else "")
        )
        with LiveProgress(plan, console) as live:
            outcome = run_benchmark(
                plan, load_target, workload, client, results, live.update, force
            )
        for renderable in run_view(outcome.analysis, f"run {outcome.run_id} ({outcome.status})"):
            console.print(renderable)
        console.print(f"stored as run {outcome.run_id} in {results.path}")
    if target is None:
        lab_option = "" if lab == "default" else f" --lab {lab}"
        console.print(
            f"the local cluster keeps running; `shardlab cluster down{lab_option}` stops it"
        )
    if outcome.status == "interrupted":
        raise typer.Exit(130)
    check = outcome.analysis.index_check
    if check is not None and check.docs_lost:
        err_console.print(
            f"[red]error:[/] {check.docs_lost:,} acknowledged documents are not in {check.index}"
        )
        raise typer.Exit(1)
    if outcome.status == "failed":
        raise typer.Exit(1)
