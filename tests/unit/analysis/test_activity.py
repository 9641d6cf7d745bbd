import json
from dataclasses import asdict

from shardlab.analysis.activity import cluster_activity
from shardlab.analysis.rates import Window

from .rows import event, interval, layout_event, series

# The run starts at 1000 (unix s) and lasts 40 one-second intervals; the measured window is
# [1010, 1030]. Nodes are sampled at 1010, 1020, 1030 (and once after, at 1040).
WINDOW = Window(1010.0, 1030.0)
T = (1010.0, 1020.0, 1030.0)


def at(*values: float) -> list[tuple[float, float]]:
    return list(zip(T, values, strict=True))


NODE_1 = [
    *series("node-1", "process.cpu_time_ms_total", at(0, 20_000, 40_000)),
    *series("node-1", "process.cpu_time_ms_total", [(1040.0, 1e9)]),  # after the window
    *series("node-1", "process.cpu_percent", at(40, 50, 60)),
    *series("node-1", "os.allocated_processors", at(4, 4, 4)),
    *series("node-1", "thread_pool.write.queue", at(0, 6, 3)),
    *series("node-1", "thread_pool.write.active", at(2, 2, 2)),
    *series("node-1", "thread_pool.write.rejected_total", at(5, 5, 9)),
    *series("node-1", "indexing.index_total", at(1_000, 11_000, 21_000)),
    *series("node-1", "indexing.throttle_time_ms_total", at(0, 0, 0)),
    *series("node-1", "merges.count_total", at(3, 4, 6)),
    *series("node-1", "merges.time_ms_total", at(100, 300, 700)),
    *series("node-1", "merges.bytes_total", at(0, 1e6, 3e6)),
    *series("node-1", "refresh.count_total", at(10, 12, 14)),
    *series("node-1", "jvm.gc.young.time_ms_total", at(0, 100, 200)),
    *series("node-1", "jvm.gc.old.time_ms_total", at(0, 0, 40)),
    *series("node-1", "jvm.heap_used_bytes", at(400e6, 600e6, 500e6)),
    *series("node-1", "jvm.heap_max_bytes", at(1e9, 1e9, 1e9)),
    *series("node-1", "fs.io.write_bytes_total", at(0, 1e8, 2e8)),
    *series("node-1", "segments.count", at(30, 25, 20)),
]
# node-2 restarted between 1020 and 1030: its CPU counter fell from 60000 to 5000
NODE_2 = [
    *series("node-2", "process.cpu_time_ms_total", at(50_000, 60_000, 5_000)),
    *series("node-2", "process.cpu_percent", at(10, 20, 30)),
    *series("node-2", "os.allocated_processors", at(4, 4, 4)),
    *series("node-2", "thread_pool.write.queue", at(1, 1, 1)),
    *series("node-2", "thread_pool.write.rejected_total", at(0, 0, 0)),
]
HOST = [
    *series("host", "cpu.iowait_percent", [(1010.0, 10.0), (1030.0, 20.0)], probe="host"),
    *series("host", "disk.write_bytes_per_s", [(1010.0, 4e6), (1030.0, 6e6)], probe="host"),
]
RUN = [
    interval(float(s), requests_http_429=7 if s == 5 else 0, docs_rejected=70 if s == 5 else 0)
    for s in range(40)
]
# one rejecting interval inside the window (start 1012) besides the warm-up one (start 1005)
RUN[12] = interval(
    12.0, requests=3, requests_http_429=2, requests_item_errors=1, docs_rejected=100, retries=4
)
EVENTS = [
    event(990.0, "health", status="green", number_of_nodes=2, unassigned_shards=0),
    event(1001.0, "health", status="green", number_of_nodes=2, unassigned_shards=0),
    event(1015.0, "health", status="yellow", number_of_nodes=1, unassigned_shards=5),
    event(1025.0, "health", status="green", number_of_nodes=2, unassigned_shards=0),
    event(1019.0, "node_left", node="node-2"),
    event(1021.0, "node_joined", node="node-2"),
    event(1050.0, "node_left", node="node-1"),  # after the run ended at 1040
    layout_event(1000.0, "start", {"node-1": (2, 1), "node-2": (1, 2)}),
    layout_event(1040.0, "end", {"node-1": (2, 0)}, unassigned=3),
]


def activity():
    return cluster_activity([*NODE_1, *NODE_2, *HOST], EVENTS, RUN, WINDOW, "systembase")


def test_a_node_over_the_window_by_hand():
    node = activity().nodes[0]
    assert node.node == "node-1"
    assert node.cpu_cores_used == 2.0  # 40000 ms of CPU in 20 s; the 1040 sample is outside
    assert node.process_cpu_percent_mean == 50.0
    assert node.allocated_processors == 4.0
    assert (node.write_queue_mean, node.write_queue_max) == (3.0, 6.0)  # (0 + 6 + 3) / 3
    assert node.write_active_mean == 2.0
    assert node.write_rejected == 4.0  # 9 - 5
    assert node.indexing_docs_per_s == 1_000.0  # 20000 docs in 20 s
    assert node.indexing_throttle_ms == 0.0
    assert (node.merges_count, node.merges_time_ms, node.merges_bytes) == (3.0, 600.0, 3e6)
    assert node.refresh_count == 4.0
    assert node.gc_time_ms_per_s == 12.0  # young 200 ms / 20 s + old 40 ms / 20 s
    assert node.heap_used_mean_bytes == 500e6
    assert node.heap_max_bytes == 1e9
    assert node.heap_used_mean_fraction == 0.5  # 500e6 / 1e9
    assert node.heap_used_max_fraction == 0.6  # 600e6 / 1e9
    assert node.disk_write_bytes_per_s == 1e7  # 2e8 bytes in 20 s
    assert node.segments_count_end == 20.0
    assert node.restarts == 0


def test_a_restarted_node_and_metrics_it_did_not_report():
    node = activity().nodes[1]
    assert node.node == "node-2"
    assert node.cpu_cores_used == 0.75  # 10000 + 5000 after the restart = 15000 ms in 20 s
    assert node.restarts == 1
    assert node.write_rejected == 0.0
    assert node.indexing_docs_per_s is None
    assert node.gc_time_ms_per_s is None
    assert node.heap_used_mean_fraction is None


def test_the_seeds_columns_over_the_window():
    run = activity()
    assert (run.start_unix_s, run.end_unix_s, run.duration_s) == (1010.0, 1030.0, 20.0)
    assert (run.busiest_cpu_node, run.busiest_cpu_cores_used) == ("node-1", 2.0)
    assert run.busiest_cpu_percent_mean == 50.0
    assert (run.busiest_queue_node, run.busiest_queue_mean) == ("node-1", 3.0)
    assert run.cpu_cores_used_total == 2.75  # 2.0 + 0.75
    assert run.allocated_processors_total == 8.0
    assert (run.bytes_written_per_s, run.bytes_written_source) == (1e7, "fs.io")
    assert run.disk_wait_cpu_percent == 15.0  # (10 + 20) / 2
    assert run.write_queue_mean == 2.0  # node means 3 and 1
    assert run.write_queue_max == 6.0
    assert run.node_write_rejected == 4.0  # 4 + 0
    # only interval 12 is both rejecting and in the window; interval 5 was warm-up
    assert run.engine_requests_http_429 == 2
    assert run.engine_requests_item_errors == 1
    assert run.engine_docs_rejected == 100
    assert run.engine_retries == 4
    assert run.indexing_docs_per_s == 1_000.0
    assert (run.merges_count, run.merges_time_ms, run.merges_bytes) == (3.0, 600.0, 3e6)
    assert run.refresh_count == 4.0
    assert run.gc_time_ms_per_s == 12.0
    assert run.heap_used_mean_bytes == 500e6


def test_layouts_health_changes_and_node_departures():
    run = activity()
    assert run.layout_start is not None and run.layout_end is not None
    assert run.layout_start.split == "2p1r-1p2r"
    assert (run.layout_end.copies, run.layout_end.unassigned) == ("2-0", 3)
    # green before the run and at 1001 (no change), yellow at 1015, green again at 1025
    changes = [(c.since_start_s, c.previous_status, c.status) for c in run.health_changes]
    assert changes == [(15.0, "green", "yellow"), (25.0, "yellow", "green")]
    assert run.health_changes[0].number_of_nodes == 1
    assert run.health_changes[0].unassigned_shards == 5
    departures = [(c.since_start_s, c.node, c.change) for c in run.node_changes]
    assert departures == [(19.0, "node-2", "left"), (21.0, "node-2", "joined")]


def test_host_disk_writes_when_the_nodes_report_no_fs_io():
    samples = [s for s in [*NODE_1, *NODE_2, *HOST] if s.metric != "fs.io.write_bytes_total"]
    run = cluster_activity(samples, [], RUN, WINDOW)
    assert (run.bytes_written_per_s, run.bytes_written_source) == (5e6, "host")  # (4 + 6) / 2


def test_nothing_sampled_gives_nones_not_errors():
    run = cluster_activity([], [], [], WINDOW)
    assert run.nodes == ()
    assert run.busiest_cpu_node is None
    assert run.disk_wait_cpu_percent is None
    assert (run.bytes_written_per_s, run.bytes_written_source) == (None, None)
    assert run.node_write_rejected is None
    assert run.engine_requests_http_429 == 0
    assert (run.layout_start, run.layout_end) == (None, None)


def test_the_first_status_seen_is_shown_when_none_came_before():
    events = [event(1005.0, "health", status="yellow", number_of_nodes=1, unassigned_shards=5)]
    run = cluster_activity([], events, RUN, WINDOW)
    assert [(c.previous_status, c.status) for c in run.health_changes] == [(None, "yellow")]


def test_dumps_as_json():
    as_json = json.loads(json.dumps(asdict(activity())))
    assert as_json["nodes"][0]["cpu_cores_used"] == 2.0
    assert as_json["layout_end"]["copies"] == "2-0"
    assert as_json["node_changes"][0]["node"] == "node-2"
