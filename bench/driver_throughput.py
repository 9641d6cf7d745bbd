"""How much load one driver process delivers per CPU-second: the native engine vs. a plain
Python driver, side by side, each in its own subprocess, against a NullSink in a third.

    python bench/driver_throughput.py [--docs-native N] [--docs-python N] [--variant bulk]

Bars (from the issue): native >= 10x the docs per CPU-second of plain Python, and native
>= 500,000 docs/s with the driver pinned to one core (sink on another core).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from shardlab import _engine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sink_plan import sink_engine

HERE = Path(__file__).resolve().parent
RATIO_BAR = 10.0
ONE_CORE_BAR = 500_000.0


def native_child(
    port: int, docs: int, variant: str, clients: int, pin: int | None
) -> dict[str, Any]:
    if pin is not None:
        os.sched_setaffinity(0, {pin})
    engine = sink_engine(port, variant, clients, docs=docs)
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    engine.start()
    totals = engine.finish()
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    return {
        "docs": totals.counters.docs_acked,
        "wall": wall,
        "cpu": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime),
    }


def python_child(port: int, docs: int, variant: str) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    import plain_python_driver

    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    acked = plain_python_driver.run("127.0.0.1", port, "/systembase/_bulk", docs, variant)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    return {
        "docs": acked,
        "wall": wall,
        "cpu": (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime),
    }


def measure(args: list[str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def row(label: str, m: dict[str, Any]) -> str:
    rate = m["docs"] / m["wall"]
    per_m = m["cpu"] / m["docs"] * 1e6
    per_cpu = m["docs"] / m["cpu"]
    return (
        f"{label:<34} {m['docs']:>10,} {m['wall']:>8.2f} {m['cpu']:>8.2f} "
        f"{rate:>12,.0f} {per_m:>10.3f} {per_cpu:>14,.0f}"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--docs-native", type=int, default=5_000_000)
    p.add_argument("--docs-python", type=int, default=300_000)
    p.add_argument("--variant", choices=["bulk", "bigbulk"], default="bulk")
    p.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    a = p.parse_args()

    if a.child is not None:
        kind, port, docs, variant, *rest = a.child
        if kind == "native":
            clients, pin = int(rest[0]), (None if rest[1] == "-" else int(rest[1]))
            result = native_child(int(port), int(docs), variant, clients, pin)
        else:
            result = python_child(int(port), int(docs), variant)
        print(json.dumps(result))
        return 0

    if _engine.BUILD_PROFILE != "release":
        print(
            f"refusing to time a {_engine.BUILD_PROFILE} build of shardlab._engine; "
            "build it with: maturin develop --release",
            file=sys.stderr,
        )
        return 2

    cores = sorted(os.sched_getaffinity(0))
    pinned = len(cores) >= 2
    sink_core = cores[1] if pinned else None
    sink_code = (
        "import os, sys\n"
        "from shardlab._engine import NullSink\n"
        f"core = {sink_core!r}\n"
        "if core is not None: os.sched_setaffinity(0, {core})\n"
        "s = NullSink()\n"
        "print(s.port, flush=True)\n"
        "sys.stdin.read()\n"
        "print(s.docs, flush=True)\n"
        "s.close()\n"
    )
    sink = subprocess.Popen(
        [sys.executable, "-c", sink_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert sink.stdout is not None and sink.stdin is not None
    port = sink.stdout.readline().strip()
    v = a.variant
    nd, pd = a.docs_native, a.docs_python
    print(
        f"shardlab driver throughput: variant={v}, bulk=1000 docs, closed loop, NullSink on "
        f"core {sink_core if pinned else 'any'} ({len(cores)} cores available), "
        f"engine {_engine.BUILD_PROFILE}"
    )
    header = (
        f"{'driver':<34} {'docs':>10} {'wall s':>8} {'CPU s':>8} "
        f"{'docs/s':>12} {'CPU-s/Mdoc':>10} {'docs/CPU-s':>14}"
    )
    print(header)
    print("-" * len(header))
    try:
        native = measure(["native", port, str(nd), v, "2", "-"])
        print(row("(a) native, threads=1 clients=2", native))
        python = measure(["python", port, str(pd), v])
        print(row("(b) plain Python (1 connection)", python))
        one_core: list[tuple[int, dict[str, Any]]] = []
        if pinned:
            for clients in (1, 2, 4):
                m = measure(["native", port, str(nd), v, str(clients), str(cores[0])])
                one_core.append((clients, m))
                print(row(f"(c) native pinned core {cores[0]}, clients={clients}", m))
    finally:
        sink.stdin.close()
        sink_docs = int(sink.stdout.readline().strip() or 0)
        sink.wait(10)

    if v != "bulk":
        print(f"\nnote: the bars are defined for variant=bulk; {v} documents are ~60x larger")
    expected = nd * (1 + len(one_core)) + pd
    print(
        f"\nsink counted {sink_docs:,} docs (expected {expected:,}): "
        f"{'ok' if sink_docs == expected else 'MISMATCH'}"
    )
    ratio = (native["docs"] / native["cpu"]) / (python["docs"] / python["cpu"])
    ok_ratio = ratio >= RATIO_BAR
    print(
        f"native/python docs per CPU-second: {ratio:.1f}x  "
        f"[{'PASS' if ok_ratio else 'FAIL'}: bar >= {RATIO_BAR:.0f}x]"
    )
    if one_core:
        clients, best = max(one_core, key=lambda cm: cm[1]["docs"] / cm[1]["wall"])
        rate = best["docs"] / best["wall"]
        ok_rate = rate >= ONE_CORE_BAR
        print(
            f"native on one core (threads=1, best of clients 1/2/4: clients={clients}): "
            f"{rate:,.0f} docs/s  [{'PASS' if ok_rate else 'FAIL'}: bar >= {ONE_CORE_BAR:,.0f}]"
        )
    else:
        ok_rate = False
        print("native on one core: not measured (needs 2 cores: one driver, one sink)  [FAIL]")
    return 0 if ok_ratio and ok_rate and sink_docs == expected else 1


if __name__ == "__main__":
    sys.exit(main())
