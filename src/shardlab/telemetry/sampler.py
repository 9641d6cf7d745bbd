"""One lifecycle for every probe: a round of `sample(now)` every `interval_s`, `close(now)`
at the end, and the rows handed over by `drain()`.

Rounds are due at start + k * interval_s, so a slow round does not push the later ones
(no drift); a round that is already past when the previous one ends is skipped, not run
late. Time comes from the injected `clock` and waiting from the injected `wait`, so tests
drive `tick` with made-up times and never sleep (the shape of Rally's
`Sampler(recorder, sleep=...)`).

Telemetry must never break a run: a probe that raises is counted, logged once with its
first error, and reported once as a `probe_error` event; the next round calls it again.
The CPU time spent in rounds is measured (thread time, so the engine's threads do not
count) to show what telemetry itself costs.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shardlab.telemetry.probe import Event, Probe, Row

logger = logging.getLogger(__name__)

NAME = "sampler"  # the `probe` of the sampler's own events


@dataclass(frozen=True)
class ProbeStats:
    samples: int  # successful calls of sample() (and close())
    failures: int
    last_error: str | None
    cpu_s: float  # thread CPU time spent in this probe


@dataclass(frozen=True)
class SamplerStats:
    rounds: int  # sample rounds run (the close round not included)
    tick_cpu_s: float  # thread CPU time of all rounds and close: what telemetry cost
    probes: dict[str, ProbeStats]


@dataclass
class _Tally:
    samples: int = 0
    failures: int = 0
    last_error: str | None = None
    cpu_s: float = 0.0


class Sampler:
    def __init__(
        self,
        probes: Sequence[Probe],
        interval_s: float = 1.0,
        clock: Callable[[], float] = time.time,
        wait: Callable[[float], bool] | None = None,
    ) -> None:
        """`wait(timeout_s)` pauses the thread between rounds and returns True to stop
        early; by default it waits on the event `stop()` sets (an injected one should
        return promptly: `stop()` is seen when it returns)."""
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, not {interval_s}")
        names = [probe.name for probe in probes]
        if len(set(names)) != len(names):
            raise ValueError(f"probe names must be unique: {names}")
        self.probes = list(probes)
        self.interval_s = interval_s
        self._clock = clock
        self._stopping = threading.Event()
        self._wait = wait or self._stopping.wait
        self._lock = threading.Lock()  # guards _rows and the tallies
        self._rows: list[Row] = []
        self._tallies = {probe.name: _Tally() for probe in self.probes}
        self._rounds = 0
        self._tick_cpu_s = 0.0
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- one round -------------------------------------------------------------------------

    def tick(self, now_unix_s: float) -> None:
        """Run one round of every probe's sample(now), synchronously."""
        self._round(now_unix_s, closing=False)

    def _round(self, now_unix_s: float, closing: bool) -> None:
        round_start_cpu_s = time.thread_time()
        for probe in self.probes:
            probe_start_cpu_s = time.thread_time()
            try:
                read = probe.close if closing else probe.sample
                rows = list(read(now_unix_s))
            except Exception as error:
                self._failed(probe.name, error, now_unix_s, time.thread_time() - probe_start_cpu_s)
                continue
            with self._lock:
                tally = self._tallies[probe.name]
                tally.samples += 1
                tally.cpu_s += time.thread_time() - probe_start_cpu_s
                self._rows.extend(rows)
        with self._lock:
            if not closing:
                self._rounds += 1
            self._tick_cpu_s += time.thread_time() - round_start_cpu_s

    def _failed(self, probe: str, error: Exception, now_unix_s: float, cpu_s: float) -> None:
        message = f"{type(error).__name__}: {error}"
        with self._lock:
            tally = self._tallies[probe]
            tally.failures += 1
            tally.last_error = message
            tally.cpu_s += cpu_s
            first = tally.failures == 1
            if first:
                detail = {"probe": probe, "error": message}
                self._rows.append(Event(now_unix_s, NAME, "probe_error", detail))
        if first:
            logger.warning(
                "telemetry probe %s failed: %s (later failures are only counted)", probe, message
            )

    # -- the thread ------------------------------------------------------------------------

    def start(self) -> None:
        """Run rounds on a daemon thread, the first one now."""
        if self._thread is not None:
            raise RuntimeError("the sampler was already started")
        self._thread = threading.Thread(target=self._run, name="shardlab-telemetry", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        start_s = self._clock()
        round_index = 0
        while not self._stopping.is_set():
            self.tick(self._clock())
            # the next round due after now: rounds missed by a slow one are skipped
            elapsed_rounds = math.floor((self._clock() - start_s) / self.interval_s)
            round_index = max(round_index + 1, elapsed_rounds + 1)
            due_s = start_s + round_index * self.interval_s
            if self._wait(max(0.0, due_s - self._clock())):
                break

    def stop(self) -> None:
        """End the thread (if started) and run every probe's close(now), once."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        if not self._closed:
            self._closed = True
            self._round(self._clock(), closing=True)

    # -- results ---------------------------------------------------------------------------

    def drain(self) -> list[Row]:
        """The rows gathered since the last drain, in the order they were gathered."""
        with self._lock:
            rows, self._rows = self._rows, []
        return rows

    def stats(self) -> SamplerStats:
        with self._lock:
            return SamplerStats(
                rounds=self._rounds,
                tick_cpu_s=self._tick_cpu_s,
                probes={
                    name: ProbeStats(t.samples, t.failures, t.last_error, t.cpu_s)
                    for name, t in self._tallies.items()
                },
            )
