from shardlab.analysis.activity import cluster_activity
from shardlab.analysis.efficiency import docs_per_s, efficiency
from shardlab.analysis.rates import Window, intervals_in

from .rows import event, interval, layout_event, series

WINDOW = Window(1000.0, 1010.0)
SAMPLES = [
    # each node: 10000 ms of CPU in 10 s = 1 core; heap 200e6 then 400e6, mean 300e6
    *series("node-1", "process.cpu_time_ms_total", [(1000.0, 0), (1010.0, 10_000)]),
    *series("node-2", "process.cpu_time_ms_total", [(1000.0, 5_000), (1010.0, 15_000)]),
    *series("node-1", "jvm.heap_used_bytes", [(1000.0, 200e6), (1010.0, 400e6)]),
    *series("node-2", "jvm.heap_used_bytes", [(1000.0, 200e6), (1010.0, 400e6)]),
]
EVENTS = [
    layout_event(1010.0, "end", {"node-1": (2, 1), "node-2": (1, 2)}),
    event(1009.0, "index_stats", primaries_store_size_bytes=1, primaries_docs_count=1),
    event(
        1011.0,
        "index_stats",
        docs_count=20_000,
        store_size_bytes=4_100_000,
        primaries_store_size_bytes=2_000_000,
        primaries_docs_count=10_000,
    ),
]
RUN = [interval(float(s), docs_acked=1_000) for s in range(10)]


def test_docs_per_core_store_per_doc_and_heap_per_shard_by_hand():
    activity = cluster_activity(SAMPLES, EVENTS, RUN, WINDOW)
    result = efficiency(activity, intervals_in(RUN, WINDOW), EVENTS)
    assert result.docs_per_s == 1_000.0  # 10 x 1000 docs in 10 s
    assert result.node_cpu_cores_used == 2.0
    assert result.docs_per_core_s == 500.0  # 1000 docs/s / 2 cores
    assert result.store_bytes_per_doc == 200.0  # 2_000_000 / 10_000, the latest stats
    assert result.store_bytes_per_doc_all_copies == 410.0  # 4_100_000 / 10_000
    assert result.heap_used_bytes == 600e6  # 300e6 + 300e6
    assert result.shard_copies == 6  # 2+1 and 1+2
    assert result.heap_per_shard_bytes == 100e6  # 600e6 / 6


def test_unknowns_stay_none():
    activity = cluster_activity([], [], [], WINDOW)
    result = efficiency(activity, [], [])
    assert result.docs_per_s is None
    assert result.docs_per_core_s is None
    assert result.store_bytes_per_doc is None
    assert result.shard_copies is None
    assert result.heap_per_shard_bytes is None


def test_docs_per_s_weights_by_interval_length():
    # 300 docs in 1 s and 300 in 2 s: 600 / 3
    run = [interval(0.0, docs_acked=300), interval(1.0, duration_s=2.0, docs_acked=300)]
    assert docs_per_s(run) == 200.0
