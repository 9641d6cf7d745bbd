"""The sampler driven by made-up times: rounds, the thread's schedule, failures counted
and reported once, drain and close. Nothing here sleeps."""

import logging
import threading
import time

import pytest

from shardlab.telemetry.probe import Event, Sample
from shardlab.telemetry.sampler import Sampler


class CountingProbe:
    """A probe that samples its call count, and fails on the calls listed in `fail_on`."""

    def __init__(self, name, fail_on=(), close_fails=False, on_sample=None):
        self.name = name
        self.fail_on = set(fail_on)
        self.close_fails = close_fails
        self.on_sample = on_sample
        self.calls = 0
        self.closed_at = []

    def sample(self, now_unix_s):
        self.calls += 1
        if self.on_sample is not None:
            self.on_sample()
        if self.calls in self.fail_on or "all" in self.fail_on:
            raise ConnectionError(f"call {self.calls} refused")
        return [Sample(now_unix_s, self.name, "src", "calls", self.calls)]

    def close(self, now_unix_s):
        self.closed_at.append(now_unix_s)
        if self.close_fails:
            raise RuntimeError("cannot close")
        return [Event(now_unix_s, self.name, "closed")]


class FakeTime:
    """A clock, and a wait that moves it on instead of sleeping; the wait asks the
    sampler to stop after `rounds` waits."""

    def __init__(self, start_s, rounds):
        self.now_s = start_s
        self.waits_s = []
        self.rounds = rounds
        self.finished = threading.Event()

    def clock(self):
        return self.now_s

    def wait(self, timeout_s):
        self.waits_s.append(timeout_s)
        self.now_s += timeout_s
        if len(self.waits_s) >= self.rounds:
            self.finished.set()
            return True
        return False


def test_each_tick_is_one_round_and_drain_hands_over_the_rows_once():
    probes = [CountingProbe("a"), CountingProbe("b")]
    sampler = Sampler(probes, clock=lambda: 99.0)
    sampler.tick(10.0)
    sampler.tick(11.0)
    rows = sampler.drain()
    assert [(row.time_unix_s, row.probe, row.value) for row in rows] == [
        (10.0, "a", 1),
        (10.0, "b", 1),
        (11.0, "a", 2),
        (11.0, "b", 2),
    ]
    assert sampler.drain() == []
    stats = sampler.stats()
    assert stats.rounds == 2
    assert {name: p.samples for name, p in stats.probes.items()} == {"a": 2, "b": 2}


def test_a_failing_probe_is_counted_reported_once_and_does_not_stop_the_others(caplog):
    failing = CountingProbe("bad", fail_on={"all"})
    sampler = Sampler([failing, CountingProbe("good")])
    with caplog.at_level(logging.WARNING, logger="shardlab.telemetry.sampler"):
        for now_s in (1.0, 2.0, 3.0):
            sampler.tick(now_s)
    rows = sampler.drain()
    assert [row for row in rows if isinstance(row, Event)] == [
        Event(
            1.0,
            "sampler",
            "probe_error",
            {"probe": "bad", "error": "ConnectionError: call 1 refused"},
        )
    ]
    assert [row.value for row in rows if isinstance(row, Sample)] == [1, 2, 3]  # all "good"
    assert len(caplog.records) == 1 and "bad" in caplog.records[0].getMessage()
    stats = sampler.stats().probes
    assert (stats["bad"].samples, stats["bad"].failures) == (0, 3)
    assert stats["bad"].last_error == "ConnectionError: call 3 refused"
    assert (stats["good"].samples, stats["good"].failures, stats["good"].last_error) == (
        3,
        0,
        None,
    )


def test_a_probe_that_recovers_samples_again():
    flaky = CountingProbe("flaky", fail_on={2})
    sampler = Sampler([flaky])
    for now_s in (1.0, 2.0, 3.0):
        sampler.tick(now_s)
    assert [row.value for row in sampler.drain() if isinstance(row, Sample)] == [1, 3]
    assert sampler.stats().probes["flaky"].failures == 1


def test_stop_closes_every_probe_once_at_the_clock_time_even_if_one_fails():
    probes = [CountingProbe("a", close_fails=True), CountingProbe("b")]
    sampler = Sampler(probes, clock=lambda: 50.0)
    sampler.tick(49.0)
    sampler.drain()
    sampler.stop()
    sampler.stop()
    assert [probe.closed_at for probe in probes] == [[50.0], [50.0]]
    rows = sampler.drain()
    assert [(row.probe, row.kind) for row in rows] == [("sampler", "probe_error"), ("b", "closed")]
    assert rows[0].detail == {"probe": "a", "error": "RuntimeError: cannot close"}
    assert sampler.stats().rounds == 1  # the close round is not a sample round


def test_the_thread_runs_rounds_on_the_interval_grid_and_skips_missed_ones():
    fake = FakeTime(start_s=100.0, rounds=4)
    slow = CountingProbe("slow")

    def second_call_takes_2_5_s():
        if slow.calls == 2:
            fake.now_s += 2.5

    slow.on_sample = second_call_takes_2_5_s
    sampler = Sampler([slow], interval_s=1.0, clock=fake.clock, wait=fake.wait)
    sampler.start()
    assert fake.finished.wait(5)
    sampler.stop()
    times = [row.time_unix_s for row in sampler.drain() if isinstance(row, Sample)]
    # 101 took until 103.5: 102 and 103 are skipped, not run late; the grid does not drift
    assert times == [100.0, 101.0, 104.0, 105.0]
    assert fake.waits_s == [1.0, 0.5, 1.0, 1.0]


def test_stop_interrupts_the_default_wait():
    probe = CountingProbe("a")
    sampler = Sampler([probe], interval_s=3600)
    sampler.start()
    started_s = time.monotonic()
    sampler.stop()
    assert time.monotonic() - started_s < 5
    assert len(probe.closed_at) == 1 and probe.calls <= 1


def test_the_cpu_spent_in_rounds_is_measured():
    def burn():
        end_s = time.thread_time() + 0.02
        while time.thread_time() < end_s:
            pass

    sampler = Sampler([CountingProbe("busy", on_sample=burn), CountingProbe("idle")])
    sampler.tick(1.0)
    stats = sampler.stats()
    assert stats.tick_cpu_s >= 0.02
    assert stats.probes["busy"].cpu_s >= 0.02
    assert stats.probes["idle"].cpu_s < stats.probes["busy"].cpu_s


def test_probe_names_must_be_unique_and_the_interval_positive():
    with pytest.raises(ValueError, match="unique"):
        Sampler([CountingProbe("a"), CountingProbe("a")])
    with pytest.raises(ValueError, match="positive"):
        Sampler([], interval_s=0)
