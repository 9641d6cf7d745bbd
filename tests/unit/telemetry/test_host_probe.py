"""The host probe: rates and CPU shares computed by hand from two readings, and one real
read of this machine."""

import pytest

from shardlab.telemetry.probe import Sample
from shardlab.telemetry.probes.host import (
    DiskCounters,
    HostProbe,
    HostReading,
    is_physical_disk,
    rate_samples,
    read_host,
)

CPU_BEFORE = {"user": 100.0, "nice": 1.0, "system": 50.0, "irq": 0.0, "softirq": 2.0}
CPU_BEFORE |= {"idle": 800.0, "iowait": 10.0, "steal": 0.0}


def reading(time_s, cpu_s=CPU_BEFORE, disks=None, recv=0, sent=0, used=1000, available=3000):
    return HostReading(
        time_unix_s=time_s,
        cpu_s=cpu_s,
        disks=disks if disks is not None else {},
        net_recv_bytes=recv,
        net_sent_bytes=sent,
        memory_used_bytes=used,
        memory_available_bytes=available,
    )


def values(samples):
    assert {(s.probe, s.source) for s in samples} <= {("host", "host")}
    return {s.metric: s.value for s in samples}


def test_cpu_shares_of_the_time_that_passed():
    # 20 CPU seconds passed: 5 user + 1 nice, 1 system + 1 softirq, 2 iowait, 10 idle
    after = {**CPU_BEFORE, "user": 105.0, "nice": 2.0, "system": 51.0, "softirq": 3.0}
    after |= {"iowait": 12.0, "idle": 810.0}
    shares = values(rate_samples(reading(10.0), reading(12.0, cpu_s=after)))
    assert shares["cpu.user_percent"] == pytest.approx(30.0)
    assert shares["cpu.system_percent"] == pytest.approx(10.0)
    assert shares["cpu.iowait_percent"] == pytest.approx(10.0)
    assert shares["cpu.steal_percent"] == 0.0
    assert shares["cpu.idle_percent"] == pytest.approx(50.0)


def test_disk_rates_sum_the_disks_and_utilisation_is_the_busiest():
    before = {"vda": DiskCounters(0, 0, 1000), "vdb": DiskCounters(10, 10, 0)}
    after = {
        "vda": DiskCounters(1_000_000, 4_000_000, 1500),  # busy 500 ms of 2 s
        "vdb": DiskCounters(3_000_010, 10, 1500),  # busy 1500 ms of 2 s
    }
    rates = values(rate_samples(reading(10.0, disks=before), reading(12.0, disks=after)))
    assert rates["disk.read_bytes_per_s"] == 2_000_000
    assert rates["disk.write_bytes_per_s"] == 2_000_000
    assert rates["disk.util_percent"] == 75.0


def test_no_utilisation_where_the_platform_has_no_busy_time():
    before, after = {"disk0": DiskCounters(0, 0, None)}, {"disk0": DiskCounters(8, 8, None)}
    rates = values(rate_samples(reading(1.0, disks=before), reading(2.0, disks=after)))
    assert "disk.util_percent" not in rates and rates["disk.read_bytes_per_s"] == 8


def test_network_rates():
    rates = values(rate_samples(reading(0.0, recv=100, sent=0), reading(4.0, recv=900, sent=40)))
    assert rates["net.recv_bytes_per_s"] == 200 and rates["net.sent_bytes_per_s"] == 10


def test_no_rates_when_no_time_passed():
    assert rate_samples(reading(5.0), reading(5.0)) == []


def test_the_first_sample_only_primes_the_rates():
    readings = iter([reading(1.0, used=10, available=20), reading(2.0, used=11, available=19)])
    probe = HostProbe(read=lambda now_unix_s: next(readings))
    assert probe.sample(1.0) == [
        Sample(1.0, "host", "host", "memory.used_bytes", 10),
        Sample(1.0, "host", "host", "memory.available_bytes", 20),
    ]
    second = values(probe.sample(2.0))
    assert second["memory.used_bytes"] == 11 and "net.recv_bytes_per_s" in second
    assert probe.close(3.0) == []


def test_physical_disks_are_those_with_a_device(tmp_path):
    (tmp_path / "vda" / "device").mkdir(parents=True)
    (tmp_path / "loop0").mkdir()
    assert is_physical_disk("vda", str(tmp_path))
    assert not is_physical_disk("loop0", str(tmp_path))
    assert not is_physical_disk("dm-0", str(tmp_path / "missing"))  # no /sys: by name
    assert is_physical_disk("sda", str(tmp_path / "missing"))


def test_a_real_reading_of_this_machine():
    first = read_host(100.0)
    assert first.memory_used_bytes > 0 and first.memory_available_bytes > 0
    assert "idle" in first.cpu_s and "guest" not in first.cpu_s
    assert all(not name.startswith("loop") for name in first.disks)
    later = read_host(100.5)
    shares = values(rate_samples(first, later))
    cpu = [v for metric, v in shares.items() if metric.startswith("cpu.")]
    assert not cpu or sum(cpu) == pytest.approx(100.0, abs=1e-6)  # nothing counted twice
