"""A run with telemetry against the real local node: what the probes stored, the cluster
table, the warm-up summary against the stored histograms, and results a script can read."""

import csv
import io
import json

import pytest

from shardlab._engine import merge_histograms
from shardlab.analysis.summary import measured_intervals
from shardlab.store import Store

from .cli_helpers import shardlab, store_arg

pytestmark = pytest.mark.opensearch

DURATION_S = 12
WARMUP_S = 4


@pytest.fixture(scope="module")
def telemetry_run(local_opensearch, tmp_path_factory):
    """One 12 s run with a 4 s warm-up, stored in its own store."""
    store_dir = tmp_path_factory.mktemp("telemetry")
    result = shardlab(
        "run",
        "systembase",
        "--target",
        local_opensearch.urls[0],
        "--duration",
        f"{DURATION_S}s",
        "--warmup",
        f"{WARMUP_S}s",
        "--shards",
        "2",
        "--replicas",
        "0",
        "--clients",
        "4",
        *store_arg(store_dir),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return store_dir, result.stdout


def test_the_probes_store_node_host_and_driver_samples_on_the_run_clock(telemetry_run):
    store_dir, _ = telemetry_run
    with Store(store_dir / "runs.sqlite") as store:
        intervals = store.intervals(1)
        samples = store.samples(1)
        events = store.events(1)
    start = intervals[0].start_unix_s
    end = intervals[-1].start_unix_s + intervals[-1].duration_s
    by_probe = {}
    for sample in samples:
        by_probe.setdefault(sample.probe, []).append(sample)
    assert set(by_probe) >= {"nodes", "cluster", "host", "driver"}
    heap_times = [s.time_unix_s for s in by_probe["nodes"] if s.metric == "jvm.heap_used_bytes"]
    # one sample a second, on the same wall clock as the intervals
    assert len(heap_times) >= DURATION_S - 2
    assert start - 2 <= min(heap_times) and max(heap_times) <= end + 3
    engine_cpu = [s.value for s in by_probe["driver"] if s.metric == "engine.cpu_time_ms_total"]
    assert engine_cpu[-1] > engine_cpu[0] >= 0
    layouts = [e for e in events if e.kind == "layout"]
    assert [e.detail["phase"] for e in layouts] == ["start", "end"]
    assert sum(n["primaries"] for n in layouts[-1].detail["nodes"].values()) == 2
    stats = next(e for e in events if e.kind == "index_stats").detail
    assert stats["primaries_docs_count"] > 0  # taken after the refresh that counted it


def test_the_end_of_the_run_prints_what_the_cluster_did(telemetry_run):
    _, out = telemetry_run
    assert "measured" in out and f"after a {WARMUP_S} s warm-up" in out
    assert "what the cluster did (measured phase)" in out
    assert "shard layout (primaries per node): 2 at the start, 2 at the end" in out
    assert "averages: " in out and "efficiency: " in out


def test_the_warmup_summary_is_exact_over_the_merged_stored_histograms(telemetry_run):
    store_dir, _ = telemetry_run
    shown = shardlab("runs", "show", "1", "--json", *store_arg(store_dir))
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)["analysis"]["summary"]
    with Store(store_dir / "runs.sqlite") as store:
        intervals = store.intervals(1)
    measured = measured_intervals(intervals, WARMUP_S)
    assert len(measured) < len(intervals)
    assert summary["warmup_s"] == WARMUP_S
    assert summary["measured_s"] == pytest.approx(DURATION_S - WARMUP_S, abs=0.5)
    merged = merge_histograms([i.service_histogram for i in measured])
    assert summary["service"]["count"] == merged.count == summary["samples"] > 0
    assert summary["service"]["p99_ms"] == merged.p99_ms
    assert (
        summary["response"]["p99_ms"]
        == merge_histograms([i.response_histogram for i in measured]).p99_ms
    )
    assert summary["samples"] == sum(i.counters.requests for i in measured)


def test_results_a_script_can_read(telemetry_run):
    store_dir, _ = telemetry_run
    listed = shardlab("runs", "list", "--json", *store_arg(store_dir))
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert document["schema"] == "shardlab.runs-list/1"
    (run,) = document["runs"]
    assert run["status"] == "completed" and run["docs_per_s"] > 0
    assert run["warmup_s"] == WARMUP_S
    rows = list(
        csv.DictReader(io.StringIO(shardlab("runs", "list", "--csv", *store_arg(store_dir)).stdout))
    )
    assert rows[0]["id"] == "1" and float(rows[0]["docs_per_s"]) == pytest.approx(run["docs_per_s"])
    shown = shardlab("runs", "show", "1", "--json", "--telemetry", *store_arg(store_dir))
    telemetry = json.loads(shown.stdout)["telemetry"]
    assert {s["probe"] for s in telemetry["samples"]} >= {"nodes", "host", "driver"}


def test_tables_written_to_a_pipe_are_never_cut(telemetry_run):
    store_dir, _ = telemetry_run
    # a narrow terminal width must not matter when the output is not a terminal
    listed = shardlab("runs", "list", *store_arg(store_dir), env={"COLUMNS": "40"})
    assert "…" not in listed.stdout and "completed" in listed.stdout
    shown = shardlab(
        "runs", "show", "1", "--telemetry", *store_arg(store_dir), env={"COLUMNS": "40"}
    )
    assert shown.returncode == 0, shown.stderr
    assert "…" not in shown.stdout
    assert "load, host and driver" in shown.stdout and "engine CPU ms/s" in shown.stdout
