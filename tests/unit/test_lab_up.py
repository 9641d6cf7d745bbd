"""`LocalCluster.up` checks everything the user can get wrong before it changes the machine:
as root, the service account is only looked up (and created) after that."""

from __future__ import annotations

from pathlib import Path

import pytest

from shardlab.cluster import service_user
from shardlab.cluster.local import LocalCluster, LocalClusterSpec
from shardlab.environment import host_memory_bytes
from shardlab.errors import UsageError


@pytest.fixture
def account_lookups(tmp_path, monkeypatch) -> list[str]:
    """Each call of current_run_as, recorded instead of made (it may run useradd)."""
    monkeypatch.setenv("SHARDLAB_HOME", str(tmp_path))
    calls: list[str] = []

    def record(account: str = service_user.SERVICE_ACCOUNT) -> service_user.RunAs:
        calls.append(account)
        raise AssertionError("current_run_as called before the checks were done")

    monkeypatch.setattr(service_user, "current_run_as", record)
    return calls


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (LocalClusterSpec(nodes=0), "--nodes 0"),
        (LocalClusterSpec(heap_mb=128), "--heap 128 MB"),
        (LocalClusterSpec(flavor="solr"), "--flavor solr"),
        (LocalClusterSpec(version="latest"), "--version latest"),
        (LocalClusterSpec(distribution_zip=Path("/nonexistent.zip")), "/nonexistent.zip"),
    ],
)
def test_a_bad_spec_is_refused_before_the_account(account_lookups, spec, fragment):
    with pytest.raises(UsageError, match=fragment):
        LocalCluster("default").up(spec)
    assert account_lookups == []


def test_a_missing_java_is_refused_before_the_account(account_lookups, tmp_path, monkeypatch):
    no_java = tmp_path / "no-java"
    no_java.mkdir()
    monkeypatch.delenv("OPENSEARCH_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(no_java))
    with pytest.raises(UsageError, match="has no bin/java"):
        LocalCluster("default").up(LocalClusterSpec())
    assert account_lookups == []


def test_memory_honours_a_lower_cgroup_limit(tmp_path):
    physical_bytes = host_memory_bytes(str(tmp_path / "no-such-file"))
    limit = tmp_path / "memory.max"
    limit.write_text("1073741824\n")
    assert host_memory_bytes(str(limit)) == min(physical_bytes, 1024**3)
    limit.write_text("max\n")
    assert host_memory_bytes(str(limit)) == physical_bytes
    limit.write_text(f"{physical_bytes * 2}\n")
    assert host_memory_bytes(str(limit)) == physical_bytes
