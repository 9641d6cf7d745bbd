"""The local-cluster commands as a user types them, and `run` without --target on that lab."""

import pytest

from .cli_helpers import shardlab, store_arg

pytestmark = pytest.mark.opensearch


@pytest.fixture
def cli_lab(shardlab_test_home):
    """The lab's options and environment; the lab is stopped whatever the test did, so a
    failed assertion never leaves a node running after the test home is removed."""
    env = {"SHARDLAB_HOME": str(shardlab_test_home)}
    lab = ["--lab", "cli"]
    yield env, lab
    shardlab("cluster", "down", "--wipe", *lab, env=env)


def test_up_status_logs_run_down(cli_lab, tmp_path):
    env, lab = cli_lab

    started = shardlab("cluster", "up", "--heap", "512m", *lab, env=env)
    assert started.returncode == 0, started.stderr + started.stdout
    assert "running: opensearch 2.19.1 (1 node, heap 512 MB" in started.stdout

    status = shardlab("cluster", "status", *lab, env=env)
    assert status.returncode == 0
    assert status.stdout.startswith("running:")
    assert "node-1" in status.stdout

    logs = shardlab("cluster", "logs", "--lines", "200", *lab, env=env)
    assert logs.returncode == 0
    assert "started" in logs.stdout  # OpenSearch logs "[node-1] started" once up

    # no --target: the lab's running cluster is reused; one node cannot hold a replica
    run = shardlab(
        "run",
        "systembase",
        "--duration",
        "3s",
        "--shards",
        "1",
        "--replicas",
        "1",
        *lab,
        *store_arg(tmp_path),
        env=env,
    )
    assert run.returncode == 0, run.stderr + run.stdout
    assert "(matches)" in run.stdout
    assert (
        "1 shard copies of systembase were unassigned after the run (replicas need more nodes"
        in run.stdout
    )

    stopped = shardlab("cluster", "down", *lab, env=env)
    assert stopped.returncode == 0
    assert "stopped the local cluster 'cli'" in stopped.stdout
    after = shardlab("cluster", "status", *lab, env=env)
    assert after.stdout.startswith("down:")

    # the lab keeps its data, including that yellow index: a restart must not wait for green
    restarted = shardlab("cluster", "up", "--heap", "512m", *lab, env=env)
    assert restarted.returncode == 0, restarted.stderr + restarted.stdout
    assert restarted.stdout.count("running:") == 1
    assert shardlab("cluster", "down", "--wipe", *lab, env=env).returncode == 0
