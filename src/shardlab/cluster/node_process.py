"""One node process: start it detached, tell whether a pid is still that node, stop it,
pick ports, and turn its console log into a one-line reason when it fails."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

from shardlab.cluster.service_user import RunAs
from shardlab.errors import UsageError


def launch(
    command: list[str], cwd: Path, env: dict[str, str], console_log: Path, run_as: RunAs
) -> int:
    """Start a node detached: own session (it outlives shardlab and can be stopped as a
    process group), stdout and stderr to console_log, as the run-as account. Its pid."""
    with console_log.open("wb") as console:
        process = subprocess.Popen(  # type: ignore[call-overload]
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            **run_as.popen_kwargs(),
        )
    if run_as.switched:
        os.chown(console_log, run_as.uid, run_as.gid)
    return int(process.pid)


def pid_alive(pid: int | None) -> bool:
    """The process exists and is not a zombie (an exited child of ours is reaped here)."""
    if pid is None:
        return False
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not our child (started by an earlier shardlab)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, owned by the service account
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: the signal said it exists
    return stat_line.rsplit(")", 1)[1].split()[0] != "Z"


def is_node_process(pid: int | None, config_dir: Path, settle_s: float = 1.0) -> bool:
    """Alive and running the node of config_dir (not a reused pid), where /proc can tell.

    Only positive evidence counts: config_dir in the command line (java gets it as
    -D...path.conf) or in the environment (the launcher script, before it execs java, has
    it only there). An environment we cannot read is no evidence: our nodes run as us, or,
    when we are root, as the service account, whose environment root reads. While a process
    is mid-exec both files read empty; that passes within moments, so look again for up to
    settle_s (a kernel thread, also empty, stays so and is not a node).
    """
    if not pid_alive(pid):
        return False
    if not Path("/proc/self/cmdline").is_file():
        return True  # no /proc (not Linux): the pid is all there is to go on
    proc = Path(f"/proc/{pid}")
    deadline_s = time.monotonic() + settle_s
    while True:
        command_line = _read_proc_file(proc / "cmdline")
        environment = _read_proc_file(proc / "environ")
        if command_line or environment or time.monotonic() >= deadline_s:
            break
        time.sleep(0.01)
    config = str(config_dir).encode()
    return config in command_line or config in environment


def _read_proc_file(path: Path) -> bytes:
    """The file's bytes, or b"" when it cannot be read (gone, or not ours)."""
    try:
        return path.read_bytes()
    except OSError:
        return b""


def signal_group(pid: int | None, signum: signal.Signals) -> None:
    """Signal the node's process group, else (not a group leader, or not ours) the pid.
    A process that is gone or not ours is left alone."""
    if pid is None:
        return
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # As the servers do: a port whose old connections linger in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def any_free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- startup failures ----------------------------------------------------------------------

_MEANINGFUL = re.compile(r"ERROR|Exception|FATAL|[Ee]rror: \S|could not|insufficient|failed")
_POINTERS = re.compile(r"refer to the log at|check the logs at|did not exit normally")


def summarize_log(text: str) -> str:
    """The line that best says why a node failed: the last error-like line, else the last.

    Stack frames, bare labels ("error:") and lines that only point at another log are
    skipped; with a "Caused by" chain the last line is the root cause.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [
        line
        for line in lines
        if len(line) >= 12 and not line.startswith(("at ", "...")) and not _POINTERS.search(line)
    ]
    meaningful = [line for line in lines if _MEANINGFUL.search(line)]
    chosen = (meaningful or lines or ["(empty log)"])[-1]
    return chosen if len(chosen) <= 300 else chosen[:297] + "..."


def startup_failure(node_name: str, log: Path, problem: str) -> UsageError:
    """One line for the user: what happened, the log's best line, and where the log is."""
    try:
        summary = summarize_log(log.read_text(errors="replace")[-20000:])
    except OSError:
        summary = "(no log)"
    return UsageError(node_name, None, f"{problem}: {summary}", f"see {log}")
