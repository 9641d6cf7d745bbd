"""The probe registry: every module of shardlab.telemetry.probes is a probe, found by
listing the package, and building one does no I/O."""

import os
import sys

import pytest

from shardlab.telemetry import probes as probes_package
from shardlab.telemetry.probe import ProbeContext
from shardlab.telemetry.probes import driver as driver_module
from shardlab.telemetry.probes import probe_modules, probes_for

from .captures import ReplayClient

NO_SUCH_PID = 2**31 - 1  # above any pid_max


def context(pid=None):
    return ProbeContext(
        client=ReplayClient("opensearch-2.19.1"),
        index="systembase",
        cluster_is_local=True,
        driver_pid=os.getpid() if pid is None else pid,
    )


def test_every_module_is_a_probe_named_after_it():
    run = context()
    probes = probes_for(run)
    assert [module.__name__.rsplit(".", 1)[1] for module in probe_modules()] == [
        "cluster",
        "driver",
        "host",
        "nodes",
    ]
    assert [probe.name for probe in probes] == ["cluster", "driver", "host", "nodes"]
    assert run.client.requested == []  # nothing asked of the cluster before the first sample


def test_a_probe_that_does_not_apply_is_left_out():
    assert driver_module.probe_for(context(NO_SUCH_PID)) is None
    assert "driver" not in [probe.name for probe in probes_for(context(NO_SUCH_PID))]


@pytest.fixture
def extra_probe_dir(tmp_path, monkeypatch):
    """A probe added the way the registry promises: one new file in the package."""
    (tmp_path / "extra.py").write_text(
        "class Extra:\n"
        "    name = 'extra'\n"
        "    def sample(self, now_unix_s): return []\n"
        "    def close(self, now_unix_s): return []\n"
        "def probe_for(context): return Extra()\n"
    )
    (tmp_path / "_private.py").write_text("X = 1\n")
    monkeypatch.setattr(probes_package, "__path__", [*probes_package.__path__, str(tmp_path)])
    yield tmp_path
    for name in ("extra", "_private"):
        sys.modules.pop(f"shardlab.telemetry.probes.{name}", None)


def test_a_new_file_is_a_new_probe(extra_probe_dir):
    assert [probe.name for probe in probes_for(context())] == [
        "cluster",
        "driver",
        "extra",
        "host",
        "nodes",
    ]


def test_a_module_without_probe_for_is_an_error(extra_probe_dir):
    (extra_probe_dir / "broken.py").write_text("X = 1\n")
    try:
        with pytest.raises(TypeError, match="broken defines no probe_for"):
            probes_for(context())
    finally:
        sys.modules.pop("shardlab.telemetry.probes.broken", None)
