"""Whether a pid is still a lab's node: only positive evidence from /proc counts."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from shardlab.cluster import node_process

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/cmdline").is_file(), reason="needs Linux /proc"
)

CONFIG_DIR = Path("/labs/default/node-1/config")


def test_a_freshly_spawned_other_program_is_never_the_node():
    """Checked at once after each spawn, often while the exec is still under way and /proc
    reads empty; that used to count as the node about one time in three."""
    others: list[subprocess.Popen[bytes]] = []
    verdicts: list[bool] = []
    try:
        for _ in range(20):
            others.append(subprocess.Popen(["sleep", "30"]))
            verdicts.append(node_process.is_node_process(others[-1].pid, CONFIG_DIR))
        assert verdicts == [False] * 20
    finally:
        for other in others:
            other.kill()
            other.wait()


def test_the_config_in_the_environment_or_command_line_is_the_node():
    launcher = subprocess.Popen(["sleep", "30"], env={"OPENSEARCH_PATH_CONF": str(CONFIG_DIR)})
    java = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)", f"-Dpath.conf={CONFIG_DIR}"]
    )
    try:
        assert node_process.is_node_process(launcher.pid, CONFIG_DIR)
        assert node_process.is_node_process(java.pid, CONFIG_DIR)
        assert not node_process.is_node_process(java.pid, Path("/labs/other/node-1/config"))
    finally:
        for process in (launcher, java):
            process.kill()
            process.wait()


def test_a_dead_pid_or_none_is_not_the_node():
    assert not node_process.is_node_process(None, CONFIG_DIR)
    done = subprocess.Popen(["true"])
    done.wait()
    assert not node_process.is_node_process(done.pid, CONFIG_DIR)


def test_signalling_a_gone_process_is_quiet():
    done = subprocess.Popen(["true"])
    done.wait()
    node_process.signal_group(done.pid, signal.SIGTERM)  # no ProcessLookupError
    node_process.signal_group(None, signal.SIGTERM)
