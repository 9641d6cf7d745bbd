"""What a whole `shardlab run` process costs the machine, with and without telemetry, while
it saturates the local node: side by side, interleaved, each run in its own CPU cgroup.

    python bench/telemetry_overhead.py [--rounds 3] [--duration 60s] [--lab bench]

The cluster runs before and apart from the measured process (started once, here), so the
cgroup holds only the driver: the engine, Python, the live display, the store and, with
telemetry, the probes. Figures: CPU-seconds of the process, its share of the machine (CPU
time / (wall time x cores)), CPU-s per million documents; for telemetry runs also the split
the driver probe measured itself (engine threads vs the rest) and the sampler's own CPU.

Bars: the whole process under 1% of the machine without probes, under 2% with them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from shardlab import _engine

WITHOUT_BAR_PERCENT = 1.0
WITH_BAR_PERCENT = 2.0
CGROUP_V1 = Path("/sys/fs/cgroup/cpuacct")
CGROUP_V2 = Path("/sys/fs/cgroup")


class CpuCgroup:
    """A fresh CPU-accounting cgroup, or None where none can be made (then rusage)."""

    def __init__(self, name: str) -> None:
        if (CGROUP_V2 / "cgroup.controllers").exists():
            self.path, self.usage_file, self.v2 = CGROUP_V2 / name, "cpu.stat", True
        else:
            self.path, self.usage_file, self.v2 = CGROUP_V1 / name, "cpuacct.usage", False
        self.path.mkdir()

    def usage_s(self) -> float:
        text = (self.path / self.usage_file).read_text()
        if self.v2:
            usec = next(
                line.split()[1] for line in text.splitlines() if line.startswith("usage_usec")
            )
            return int(usec) / 1e6
        return int(text) / 1e9

    def remove(self) -> None:
        self.path.rmdir()


def shardlab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shardlab", *args], capture_output=True, text=True, check=False
    )


def measured_run(
    telemetry: bool, duration: str, lab: str, store: Path, round_no: int
) -> dict[str, Any]:
    args = [
        "run",
        "systembase",
        "--lab",
        lab,
        "--duration",
        duration,
        "--replicas",
        "0",
        "--store",
        str(store),
    ]
    if not telemetry:
        args.append("--no-telemetry")
    cgroup = None
    with contextlib.suppress(OSError):
        cgroup = CpuCgroup(f"shardlab-bench-{os.getpid()}-{round_no}-{int(telemetry)}")
    command = [sys.executable, "-m", "shardlab", *args]
    if cgroup is not None:
        # the process joins the cgroup before it execs shardlab: every thread is counted
        procs = cgroup.path / "cgroup.procs"
        command = ["sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh", *command]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"shardlab run failed ({done.returncode}): {done.stderr[-2000:]}")
    rusage_s = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if cgroup is not None:
        cpu_s, clock = cgroup.usage_s(), "cgroup"
        cgroup.remove()
    else:
        cpu_s, clock = rusage_s, "rusage"
    with sqlite3.connect(store) as db:
        run_id, totals, conclusion = db.execute(
            "SELECT id, totals_json, conclusion_json FROM runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
        split = dict(
            db.execute(
                "SELECT s.metric, MAX(p.value) - MIN(p.value) FROM telemetry_points p"
                " JOIN telemetry_series s ON s.id = p.series_id"
                " WHERE s.run_id=? AND s.source='driver' AND s.metric LIKE '%cpu_time_ms_total'"
                " GROUP BY s.metric",
                (run_id,),
            ).fetchall()
        )
    docs = json.loads(totals)["counters"]["docs_acked"]
    probes = (json.loads(conclusion) or {}).get("probes") or {}
    cores = os.cpu_count() or 1
    return {
        "telemetry": telemetry,
        "wall_s": wall_s,
        "cpu_s": cpu_s,
        "clock": clock,
        "docs": docs,
        "machine_percent": 100 * cpu_s / (wall_s * cores),
        "cpu_s_per_mdoc": cpu_s / (docs / 1e6) if docs else float("nan"),
        "engine_cpu_s": split.get("engine.cpu_time_ms_total", 0) / 1000 or None,
        "python_cpu_s": split.get("python.cpu_time_ms_total", 0) / 1000 or None,
        "sampler_cpu_s": probes.get("tick_cpu_s"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", default="60s")
    parser.add_argument("--lab", default="bench")
    options = parser.parse_args()
    if _engine.BUILD_PROFILE != "release":
        raise SystemExit("refusing to time a debug build of the engine: scripts/install")
    up = shardlab("cluster", "up", "--lab", options.lab, "--nodes", "1")
    if up.returncode != 0:
        raise SystemExit(f"cluster up failed: {up.stderr}")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        store = Path(scratch) / "runs.sqlite"
        # a first run warms the JVM (and the page cache); it is not counted
        measured_run(False, "20s", options.lab, store, 0)
        for round_no in range(1, options.rounds + 1):
            for telemetry in (False, True):  # interleaved: the machine drifts between rounds
                rows.append(measured_run(telemetry, options.duration, options.lab, store, round_no))
                row = rows[-1]
                print(
                    f"round {round_no} telemetry={'on ' if telemetry else 'off'} "
                    f"{row['docs']:>11,} docs {row['wall_s']:6.1f} s wall "
                    f"{row['cpu_s']:6.2f} CPU-s "
                    f"({row['clock']}) = {row['machine_percent']:.2f}% of the machine, "
                    f"{row['cpu_s_per_mdoc']:.3f} CPU-s/Mdoc"
                    + (
                        f"; engine {row['engine_cpu_s']:.2f} s, rest of Python "
                        f"{row['python_cpu_s']:.2f} s, sampler {row['sampler_cpu_s']:.2f} s"
                        if telemetry and row["engine_cpu_s"] is not None
                        else ""
                    ),
                    flush=True,
                )
    print()
    for telemetry, bar in ((False, WITHOUT_BAR_PERCENT), (True, WITH_BAR_PERCENT)):
        mine = [r for r in rows if r["telemetry"] == telemetry]
        percents = sorted(r["machine_percent"] for r in mine)
        per_mdoc = sorted(r["cpu_s_per_mdoc"] for r in mine)
        worst = percents[-1]
        verdict = "PASS" if worst < bar else "FAIL"
        print(
            f"telemetry {'on ' if telemetry else 'off'}: {percents[0]:.2f}-{worst:.2f}% of the "
            f"machine over {len(mine)} runs, {per_mdoc[0]:.3f}-{per_mdoc[-1]:.3f} CPU-s per "
            f"million docs  [{verdict}: bar < {bar}%]"
        )
    on = [r["cpu_s"] for r in rows if r["telemetry"]]
    off = [r["cpu_s"] for r in rows if not r["telemetry"]]
    cores = os.cpu_count() or 1
    wall = sum(r["wall_s"] for r in rows) / len(rows)
    added = (sum(on) / len(on) - sum(off) / len(off)) / (wall * cores) * 100
    print(f"telemetry adds {added:.2f}% of the machine (mean of the runs with minus without)")


if __name__ == "__main__":
    main()
