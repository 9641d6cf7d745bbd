"""Local clusters: a lab is labs_dir()/<lab> with lab.json (lab_state.py) and one folder per
node.

`up` checks the spec, finds Java, fetches and unpacks the distribution, and only then picks
the account the JVM runs as (as root, creating the service account), writes each node's
config, starts the nodes detached (they outlive shardlab) and waits until the cluster is
ready (health.py: green, or yellow only for replicas no node can take); `down` stops them.
A node counts as running when its pid is alive (and is that node) and its HTTP port answers.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from shardlab.cluster import distribution, node_process, service_user
from shardlab.cluster.client import ClusterClient, ClusterHTTPError
from shardlab.cluster.distribution import Flavor
from shardlab.cluster.health import check_readiness
from shardlab.cluster.java import JavaRuntime, find_java
from shardlab.cluster.lab_state import ClusterState, NodeState, read_record, write_record
from shardlab.cluster.node_config import (
    HTTP_PORT_BASE,
    TRANSPORT_PORT_BASE,
    NodeLayout,
    choose_ports,
    default_heap_mb,
    default_roles,
    plan_layout,
    render_jvm_options,
    render_settings,
)
from shardlab.cluster.service_user import Access, RunAs
from shardlab.environment import host_memory_bytes
from shardlab.errors import UsageError
from shardlab.paths import labs_dir

__all__ = ["ClusterState", "LocalCluster", "LocalClusterSpec", "NodeState", "default_heap_mb"]

StatusCallback = Callable[[str], None]
POLL_S = 0.5


@dataclass(frozen=True)
class LocalClusterSpec:
    flavor: str = "opensearch"
    version: str = "2.19.1"
    nodes: int = 1
    heap_mb: int | None = None  # None: default_heap_mb(nodes, this machine's memory)
    lab: str = "default"
    distribution_zip: Path | None = None  # offline: use this zip (its version wins)


class LocalCluster:
    def __init__(self, lab: str = "default") -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", lab):
            raise UsageError("--lab", lab, "is not a valid lab name", "use letters, digits, -_.")
        self.lab = lab
        self.directory = labs_dir() / lab

    # -- state -----------------------------------------------------------------------------

    def state(self) -> ClusterState | None:
        """The recorded lab with each node's liveness (pid is that node AND HTTP answers)."""
        recorded = read_record(self.directory)
        if recorded is None:
            return None
        nodes = tuple(
            replace(
                node,
                running=node.process_alive() and _answers(node.url, recorded.cluster_name),
            )
            for node in recorded.nodes
        )
        return replace(recorded, nodes=nodes)

    def log_path(self, node_name: str | None = None) -> Path:
        recorded = read_record(self.directory)
        if recorded is None or not recorded.nodes:
            raise UsageError(
                "--lab", self.lab, "has never been started", "run `shardlab cluster up`"
            )
        if node_name is None:
            return recorded.nodes[0].layout.console_log
        for node in recorded.nodes:
            if node.name == node_name:
                return node.layout.console_log
        names = ", ".join(node.name for node in recorded.nodes)
        raise UsageError("--node", node_name, "no such node in this lab", f"one of: {names}")

    # -- up --------------------------------------------------------------------------------

    def up(
        self,
        spec: LocalClusterSpec,
        on_status: StatusCallback | None = None,
        on_download: distribution.ProgressCallback | None = None,
        timeout_s: float = 120,
        on_notice: StatusCallback | None = None,
    ) -> ClusterState:
        """Start the lab (or reuse it if it already runs this flavor, version and size).

        `on_status` gets passing progress lines, `on_notice` the lines worth keeping (which
        account the JVM runs as), by default on_status too. Everything the user can get wrong
        is checked before anything changes on the machine (the service account included).
        """
        status = on_status or (lambda line: None)
        notice = on_notice or status
        if spec.nodes < 1:
            raise UsageError("--nodes", spec.nodes, "must be at least 1")
        if spec.lab != self.lab:
            raise ValueError(f"spec for lab {spec.lab!r} given to LocalCluster({self.lab!r})")
        if spec.heap_mb is not None and spec.heap_mb < 256:
            raise UsageError("--heap", f"{spec.heap_mb} MB", "is too small", "use 512 or more")
        flavor = distribution.flavor_named(spec.flavor)
        version = spec.version
        if spec.distribution_zip is not None:
            version = distribution.read_zip_version(spec.distribution_zip, flavor)
        distribution.check_version(version)

        current = self.state()
        if current is not None and any(node.running for node in current.nodes):
            same = (current.flavor, current.version, len(current.nodes)) == (
                flavor.name,
                version,
                spec.nodes,
            )
            if same and current.running:
                status(f"lab '{self.lab}' already runs {flavor.name} {version}: reusing it")
                return current
            if not same:
                raise UsageError(
                    "--lab",
                    self.lab,
                    f"already runs {current.flavor} {current.version} with "
                    f"{len(current.nodes)} node(s)",
                    "run `shardlab cluster down` first",
                )
            stopped = [node.name for node in current.nodes if not node.running]
            status(f"lab '{self.lab}': starting {', '.join(stopped)} again")
            return self._restart_stopped(current, flavor, status, timeout_s)

        min_java, max_java = flavor.java_range(version)
        java = find_java(min_java, max_java, flavor.new_java_home_variable)
        status(f"Java {java.version} at {java.home}")
        if spec.distribution_zip is not None:
            zip_path = spec.distribution_zip
        else:
            zip_path = distribution.fetch(flavor, version, on_download)
        status(f"unpacking {zip_path.name}")
        home = distribution.unpack(zip_path)

        run_as = service_user.current_run_as()  # as root, may create the account: not earlier
        if (run_as_notice := run_as.notice()) is not None:
            notice(run_as_notice)
        heap_mb = spec.heap_mb or default_heap_mb(spec.nodes, host_memory_bytes())
        layouts = self._prepare_nodes(flavor, version, home, heap_mb, spec.nodes, run_as, java)
        state = ClusterState(
            lab=self.lab,
            flavor=flavor.name,
            version=version,
            cluster_name=f"shardlab-{self.lab}",
            distribution_home=home,
            java_home=java.home,
            java_version=java.version,
            run_as_user=run_as.user,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            nodes=tuple(
                NodeState(
                    n.name, None, n.http_port, n.transport_port, n.roles, n.directory, heap_mb
                )
                for n in layouts
            ),
        )
        try:
            state = self._start(state, flavor, java, run_as, status)
            return self._wait_ready(state, timeout_s, status)
        except BaseException:
            self.down()
            raise

    def _prepare_nodes(
        self,
        flavor: Flavor,
        version: str,
        home: Path,
        heap_mb: int,
        count: int,
        run_as: RunAs,
        java: JavaRuntime,
    ) -> list[NodeLayout]:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.directory.chmod(0o755)
        service_user.check_access(  # before writing anything the account could not use
            run_as,
            [
                Access(java.java_bin, "-x", "Java", "set JAVA_HOME to a Java all users can run"),
                Access(home / flavor.bin_script, "-x", "distribution"),
                Access(home / "lib", "-r", "distribution"),
                Access(self.directory, "-x", "lab directory"),
            ],
        )
        probes = (node_process.port_is_free, node_process.any_free_port)
        layouts = plan_layout(
            self.directory,
            default_roles(flavor, version, count),
            choose_ports(count, HTTP_PORT_BASE, *probes),
            choose_ports(count, TRANSPORT_PORT_BASE, *probes),
        )
        stock_config = home / "config"
        for node in layouts:
            shutil.rmtree(node.config_dir, ignore_errors=True)  # fresh config on every start
            shutil.copytree(stock_config, node.config_dir)
            for directory in (node.data_dir, node.logs_dir, node.tmp_dir):
                directory.mkdir(parents=True, exist_ok=True)
            settings = render_settings(flavor, version, f"shardlab-{self.lab}", node, layouts)
            (node.config_dir / flavor.config_file).write_text(settings)
            jvm_options = (stock_config / "jvm.options").read_text()
            (node.config_dir / "jvm.options").write_text(
                render_jvm_options(jvm_options, heap_mb, node)
            )
            service_user.hand_over(run_as, node.directory)
        service_user.check_access(
            run_as, [Access(node.data_dir, "-w", "node directory") for node in layouts]
        )
        return layouts

    def _restart_stopped(
        self, current: ClusterState, flavor: Flavor, status: StatusCallback, timeout_s: float
    ) -> ClusterState:
        """Start the nodes of a partly running lab that are not running (a node that died or
        was killed), with the lab's recorded config, ports and data; the others keep
        running and serving."""
        min_java, max_java = flavor.java_range(current.version)
        java = find_java(min_java, max_java, flavor.new_java_home_variable)
        run_as = service_user.current_run_as()
        stopped = tuple(node for node in current.nodes if not node.running)
        started = self._start(replace(current, nodes=stopped), flavor, java, run_as, status)
        by_name = {node.name: node for node in started.nodes}
        state = replace(
            current, nodes=tuple(by_name.get(node.name, node) for node in current.nodes)
        )
        write_record(self.directory, state)
        return self._wait_ready(state, timeout_s, status)

    def _start(
        self,
        state: ClusterState,
        flavor: Flavor,
        java: JavaRuntime,
        run_as: RunAs,
        status: StatusCallback,
    ) -> ClusterState:
        env = {**os.environ}
        env.pop(flavor.java_opts_variable, None)  # the heap comes from jvm.options only
        env.pop("JAVA_TOOL_OPTIONS", None)
        env[flavor.java_home_variable(state.version)] = str(java.home)
        started: list[NodeState] = []
        for node in state.nodes:
            layout = node.layout
            node_env = {
                **env,
                flavor.path_conf_variable: str(layout.config_dir),
                flavor.tmpdir_variable: str(layout.tmp_dir),
                "HOME": str(layout.directory),
            }
            pid = node_process.launch(
                [str(state.distribution_home / flavor.bin_script)],
                state.distribution_home,
                node_env,
                layout.console_log,
                run_as,
            )
            started.append(replace(node, pid=pid))
            status(f"{node.name}: started (pid {pid}, http {node.http_port})")
        state = replace(state, nodes=tuple(started))
        write_record(self.directory, state)  # before waiting, so `down` can always find the pids
        return state

    def _wait_ready(
        self, state: ClusterState, timeout_s: float, status: StatusCallback
    ) -> ClusterState:
        started_s = time.monotonic()
        client = ClusterClient(state.urls, timeout_s=5)
        while True:
            elapsed_s = time.monotonic() - started_s
            for node in state.nodes:  # just started: the pid is surely the node's
                if not node_process.pid_alive(node.pid):
                    raise node_process.startup_failure(
                        node.name, node.layout.console_log, "exited during startup"
                    )
            ready = check_readiness(client, len(state.nodes), state.cluster_name)
            line = ready.line
            if ready.ready:
                status(f"cluster {line} after {elapsed_s:.0f} s")
                return replace(state, nodes=tuple(replace(n, running=True) for n in state.nodes))
            if elapsed_s > timeout_s:
                first = state.nodes[0]
                raise node_process.startup_failure(
                    first.name,
                    first.layout.console_log,
                    f"not ready after {timeout_s:.0f} s ({line})",
                )
            status(f"{line} ({elapsed_s:.0f} s)")
            time.sleep(POLL_S)

    # -- down ------------------------------------------------------------------------------

    def down(self, timeout_s: float = 60, wipe: bool = False) -> None:
        """Stop every node (SIGTERM, then SIGKILL after timeout_s); `wipe` removes the data."""
        recorded = read_record(self.directory)
        if recorded is None:
            return
        alive = [node for node in recorded.nodes if node.process_alive()]
        for node in alive:
            node_process.signal_group(node.pid, signal.SIGTERM)
        deadline_s = time.monotonic() + timeout_s
        while alive and time.monotonic() < deadline_s:
            time.sleep(POLL_S)
            alive = [node for node in alive if node.process_alive()]
        for node in alive:
            node_process.signal_group(node.pid, signal.SIGKILL)
        while any(node.process_alive() for node in alive):
            time.sleep(0.1)
        if wipe:
            for node in recorded.nodes:
                shutil.rmtree(node.layout.data_dir, ignore_errors=True)
        write_record(
            self.directory,
            replace(recorded, nodes=tuple(replace(n, pid=None) for n in recorded.nodes)),
        )


# -- waiting -------------------------------------------------------------------------------


def _answers(url: str, cluster_name: str) -> bool:
    """The lab's own cluster answers at `url` (not another one that took the port)."""
    try:
        root = ClusterClient([url], timeout_s=2).get("/")
    except (UsageError, ClusterHTTPError):
        return False
    return isinstance(root, dict) and root.get("cluster_name") == cluster_name
