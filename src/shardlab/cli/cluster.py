"""`shardlab cluster up | down | status | logs`: local clusters started from a distribution."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table

from shardlab.cli.common import LabOption, console
from shardlab.cluster.local import ClusterState, LocalCluster, LocalClusterSpec
from shardlab.plan import parse_size_bytes

app = typer.Typer(help="Start, stop and inspect a local cluster.", no_args_is_help=True)
Opt = typer.Option


def _bring_up(spec: LocalClusterSpec, timeout_s: float) -> ClusterState:
    """Start (or reuse) the lab's cluster with a spinner, and a bar while downloading.

    Notices (the account the JVM runs as) are said once the cluster is up, after the
    spinner, which vanishes; a bad option is reported alone, before anything happens.
    """
    cluster = LocalCluster(spec.lab)
    notices: list[str] = []
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("starting the local cluster", total=None)

        def on_status(line: str) -> None:
            progress.update(task, description=line)

        def on_download(done_bytes: int, total_bytes: int) -> None:
            progress.update(task, completed=done_bytes, total=total_bytes or None)

        state = cluster.up(spec, on_status, on_download, timeout_s, on_notice=notices.append)
    for notice in notices:
        console.print(notice)
    return state


def start_local_cluster(lab: str) -> ClusterState:
    """The running cluster of `lab`, or a newly started one with the defaults."""
    state = LocalCluster(lab).state()
    if state is not None and state.running:
        return state
    state = _bring_up(LocalClusterSpec(lab=lab), timeout_s=180)
    console.print(f"started {_describe(state)}")
    return state


def _describe(state: ClusterState) -> str:
    nodes = len(state.nodes)
    return (
        f"{state.flavor} {state.version} ({nodes} node{'s' * (nodes != 1)}, "
        f"heap {state.nodes[0].heap_mb} MB, Java {state.java_version}) at {', '.join(state.urls)}"
    )


@app.command()
def up(
    nodes: Annotated[int, Opt(help="Number of nodes.")] = 1,
    heap: Annotated[str | None, Opt(help="JVM heap per node, e.g. 1g [default: from RAM].")] = None,
    version: Annotated[str, Opt(help="Distribution version.")] = "2.19.1",
    flavor: Annotated[str, Opt(help="opensearch or elasticsearch (7.10 OSS).")] = "opensearch",
    distribution: Annotated[
        Path | None, Opt(help="A local distribution zip, for offline use.")
    ] = None,
    timeout: Annotated[float, Opt(help="Seconds to wait for green.")] = 180.0,
    lab: LabOption = "default",
) -> None:
    """Download (once), configure and start a local cluster, and wait for green."""
    heap_mb = parse_size_bytes("--heap", heap) // 2**20 if heap else None
    spec = LocalClusterSpec(
        flavor=flavor,
        version=version,
        nodes=nodes,
        heap_mb=heap_mb,
        lab=lab,
        distribution_zip=distribution,
    )
    state = _bring_up(spec, timeout)
    console.print(f"running: {_describe(state)}")


@app.command()
def down(
    wipe: Annotated[bool, Opt(help="Also delete the nodes' data.")] = False,
    lab: LabOption = "default",
) -> None:
    """Stop the local cluster (its data is kept unless --wipe)."""
    cluster = LocalCluster(lab)
    if cluster.state() is None:
        console.print(f"no local cluster '{lab}' is known")
        return
    with console.status("stopping the local cluster"):
        cluster.down(wipe=wipe)
    console.print(f"stopped the local cluster '{lab}'" + (" and wiped its data" if wipe else ""))


@app.command()
def status(lab: LabOption = "default") -> None:
    """Show the local cluster's nodes, ports, pids and whether they run."""
    state = LocalCluster(lab).state()
    if state is None:
        console.print(f"no local cluster '{lab}': start one with shardlab cluster up")
        return
    console.print(f"{'running' if state.running else 'down'}: {_describe(state)}")
    table = Table(title_justify="left")
    for header in ("node", "roles", "pid", "http", "transport", "running", "data"):
        table.add_column(header)
    for node in state.nodes:
        table.add_row(
            node.name,
            ",".join(node.roles),
            str(node.pid),
            str(node.http_port),
            str(node.transport_port),
            "yes" if node.running else "no",
            str(node.layout.data_dir),
        )
    console.print(table)


@app.command()
def logs(
    node: Annotated[str | None, Opt(help="Node name [default: the first].")] = None,
    lines: Annotated[int, Opt(help="How many of the last lines.")] = 50,
    lab: LabOption = "default",
) -> None:
    """Print the last lines of a node's log."""
    path = LocalCluster(lab).log_path(node)
    with path.open(errors="replace") as log:
        for line in deque(log, maxlen=lines):
            console.print(line.rstrip("\n"), markup=False)
