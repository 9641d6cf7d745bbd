"""The machine shardlab runs on (source `host`), which in a local lab also runs the nodes:
CPU split by kind, disk and network throughput, memory.

psutil gives cumulative counters; rates are differences from the previous sample, so the
first sample only primes them and gives the memory gauges. Disk figures cover physical
disks only (on Linux those with /sys/block/<disk>/device), because partitions, loop and
device-mapper devices count the same bytes again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import psutil

from shardlab.telemetry.probe import ProbeContext, Row, Sample

NAME = "host"
SOURCE = "host"
SYS_BLOCK = "/sys/block"


@dataclass(frozen=True)
class DiskCounters:
    read_bytes: int
    write_bytes: int
    busy_ms: int | None  # psutil's busy_time, where the platform has it


@dataclass(frozen=True)
class HostReading:
    """One read of the host's counters, in psutil's units (CPU seconds by kind)."""

    time_unix_s: float
    cpu_s: dict[str, float]  # user, system, iowait, steal, idle, ... (guest excluded)
    disks: dict[str, DiskCounters]  # physical disks only
    net_recv_bytes: int
    net_sent_bytes: int
    memory_used_bytes: int
    memory_available_bytes: int


CPU_METRICS = {
    "cpu.user_percent": ("user", "nice"),  # nice is user time too, at a lower priority
    "cpu.system_percent": ("system", "irq", "softirq"),
    "cpu.iowait_percent": ("iowait",),
    "cpu.steal_percent": ("steal",),
    "cpu.idle_percent": ("idle",),
}


def memory_samples(reading: HostReading) -> list[Sample]:
    now = reading.time_unix_s
    return [
        Sample(now, NAME, SOURCE, "memory.used_bytes", reading.memory_used_bytes),
        Sample(now, NAME, SOURCE, "memory.available_bytes", reading.memory_available_bytes),
    ]


def rate_samples(previous: HostReading, current: HostReading) -> list[Sample]:
    """CPU shares, disk and network rates between two readings (pure)."""
    now = current.time_unix_s
    elapsed_s = now - previous.time_unix_s
    if elapsed_s <= 0:
        return []
    samples: list[Sample] = []

    def add(metric: str, value: float) -> None:
        samples.append(Sample(now, NAME, SOURCE, metric, value))

    cpu_delta = {
        kind: max(0.0, seconds - previous.cpu_s.get(kind, 0.0))
        for kind, seconds in current.cpu_s.items()
    }
    cpu_total_s = sum(cpu_delta.values())
    if cpu_total_s > 0:
        for metric, kinds in CPU_METRICS.items():
            if any(kind in current.cpu_s for kind in kinds):
                add(metric, 100.0 * sum(cpu_delta.get(kind, 0.0) for kind in kinds) / cpu_total_s)

    disks = [name for name in current.disks if name in previous.disks]
    if disks:
        read_bytes = sum(current.disks[d].read_bytes - previous.disks[d].read_bytes for d in disks)
        write_bytes = sum(
            current.disks[d].write_bytes - previous.disks[d].write_bytes for d in disks
        )
        add("disk.read_bytes_per_s", max(0, read_bytes) / elapsed_s)
        add("disk.write_bytes_per_s", max(0, write_bytes) / elapsed_s)
        busy_ms = [
            now_busy - before_busy
            for d in disks
            if (now_busy := current.disks[d].busy_ms) is not None
            and (before_busy := previous.disks[d].busy_ms) is not None
        ]
        if busy_ms:
            add("disk.util_percent", min(100.0, max(0.0, 100.0 * max(busy_ms) / 1000 / elapsed_s)))

    add(
        "net.recv_bytes_per_s", max(0, current.net_recv_bytes - previous.net_recv_bytes) / elapsed_s
    )
    add(
        "net.sent_bytes_per_s", max(0, current.net_sent_bytes - previous.net_sent_bytes) / elapsed_s
    )
    return samples


def is_physical_disk(name: str, sys_block: str = SYS_BLOCK) -> bool:
    """A disk with a device behind it. Where /sys/block does not exist (not Linux), every
    disk psutil lists counts except the obviously virtual ones."""
    if os.path.isdir(sys_block):
        return os.path.exists(os.path.join(sys_block, name, "device"))
    return not name.startswith(("loop", "ram", "zram", "dm-", "md"))


def read_host(
    now_unix_s: float, is_physical: Callable[[str], bool] = is_physical_disk
) -> HostReading:
    cpu = psutil.cpu_times()._asdict()
    # On Linux user and nice already include guest time (psutil's cpu_percent drops it too)
    cpu_s = {kind: float(s) for kind, s in cpu.items() if kind not in ("guest", "guest_nice")}
    disks = {
        name: DiskCounters(
            counters.read_bytes, counters.write_bytes, getattr(counters, "busy_time", None)
        )
        for name, counters in (psutil.disk_io_counters(perdisk=True) or {}).items()
        if is_physical(name)
    }
    nics = {name: nic for name, nic in psutil.net_io_counters(pernic=True).items() if name != "lo"}
    memory = psutil.virtual_memory()
    return HostReading(
        time_unix_s=now_unix_s,
        cpu_s=cpu_s,
        disks=disks,
        net_recv_bytes=sum(nic.bytes_recv for nic in nics.values()),
        net_sent_bytes=sum(nic.bytes_sent for nic in nics.values()),
        memory_used_bytes=memory.used,
        memory_available_bytes=memory.available,
    )


class HostProbe:
    name = NAME

    def __init__(self, read: Callable[[float], HostReading] | None = None) -> None:
        physical = cache(is_physical_disk)  # disks do not come and go during a run
        self._read = read or (lambda now_unix_s: read_host(now_unix_s, physical))
        self._previous: HostReading | None = None

    def sample(self, now_unix_s: float) -> Sequence[Row]:
        reading = self._read(now_unix_s)
        rows: list[Row] = []
        if self._previous is not None:
            rows.extend(rate_samples(self._previous, reading))
        rows.extend(memory_samples(reading))
        self._previous = reading
        return rows

    def close(self, now_unix_s: float) -> Sequence[Row]:
        return []


def probe_for(context: ProbeContext) -> HostProbe:
    return HostProbe()
