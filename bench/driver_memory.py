"""Does the native engine's memory stay flat however long the run? It drives a NullSink as
fast as it can for --duration seconds, in a child process that reads its own resident set
size (VmRSS) after every interval; prints RSS over time and the growth after warm-up.

    python bench/driver_memory.py [--duration 60] [--clients 8] [--variant bulk]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from shardlab import _engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sink_plan import sink_engine


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def child(port: int, duration_s: float, clients: int, variant: str) -> None:
    engine = sink_engine(port, variant, clients, duration_s=duration_s, seed=7)
    engine.start()
    samples: list[tuple[float, int, int]] = []
    docs = 0
    while not engine.finished:
        interval = engine.next_interval(0.5)
        if interval is not None:
            docs += interval.counters.docs_acked
            samples.append((interval.start_s + interval.duration_s, docs, rss_kib()))
    engine.finish()
    print(json.dumps(samples))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--variant", default="bulk")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        port, duration, clients, variant = args.child
        child(int(port), float(duration), int(clients), variant)
        return
    if _engine.BUILD_PROFILE != "release":
        sys.exit("error: the engine is a debug build: build it with --release before measuring")
    sink = _engine.NullSink(threads=1)
    child_args = [str(sink.port), str(args.duration), str(args.clients), args.variant]
    out = subprocess.run(
        [sys.executable, __file__, "--child", *child_args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    samples: list[Any] = json.loads(out.strip().splitlines()[-1])
    sink.close()
    print(f"engine RSS over a {args.duration:.0f} s run, {args.clients} clients, {args.variant}")
    print(f"{'t (s)':>7} {'docs':>14} {'RSS MiB':>9}")
    step = max(1, len(samples) // 12)
    shown = samples[::step] + ([samples[-1]] if (len(samples) - 1) % step else [])
    for t_s, docs, rss in shown:
        print(f"{t_s:7.1f} {docs:14,} {rss / 1024:9.1f}")
    warm = samples[min(4, len(samples) - 1)][2]
    last = samples[-1][2]
    peak = max(rss for _, _, rss in samples[4:] or samples)
    print(
        f"after warm-up (t={samples[min(4, len(samples) - 1)][0]:.0f} s): {warm / 1024:.1f} MiB; "
        f"end: {last / 1024:.1f} MiB; peak: {peak / 1024:.1f} MiB; "
        f"growth {(last - warm) / 1024:+.1f} MiB over {samples[-1][1]:,} documents"
    )


if __name__ == "__main__":
    main()
