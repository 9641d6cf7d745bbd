from shardlab.analysis.ceiling import rejected_in, rejections_began
from shardlab.results import Counters

from .rows import interval, series

# the run starts at 1000 (unix s); intervals are one second long


def quiet_run(seconds: int = 20):
    return [interval(float(s), requests=5, requests_ok=5) for s in range(seconds)]


def test_rejection_means_429_or_rejected_items_not_other_item_errors():
    assert rejected_in(Counters(requests_http_429=1))
    assert rejected_in(Counters(requests_item_errors=1, docs_rejected=3))
    assert rejected_in(Counters(requests_item_errors=1, retries=1))  # retried 429 items
    assert not rejected_in(Counters(requests_item_errors=1, docs_failed=3))  # mapping errors


def test_the_engine_saw_it_first():
    run = quiet_run()
    run[5] = interval(5.0, requests=5, requests_http_429=1)
    run[9] = interval(9.0, requests=5, docs_rejected=10)
    samples = series("node-1", "thread_pool.write.rejected_total", [(1006.0, 0), (1007.0, 2)])
    began = rejections_began(run, samples)
    assert began is not None
    # interval 5 starts at 1005, before node-1 showed a rise at 1007
    assert (began.time_unix_s, began.since_start_s, began.seen_by) == (1005.0, 5.0, "engine")
    assert began.interval_index == 5


def test_a_node_saw_it_first():
    run = quiet_run()
    run[10] = interval(10.0, requests=5, requests_http_429=1)
    samples = [
        *series("node-1", "thread_pool.write.rejected_total", [(1000.0, 3), (1008.0, 3)]),
        *series(
            "node-2", "thread_pool.write.rejected_total", [(1000.0, 3), (1002.0, 3), (1004.0, 4)]
        ),
    ]
    began = rejections_began(run, samples)
    assert began is not None
    assert (began.time_unix_s, began.since_start_s, began.seen_by) == (1004.0, 4.0, "node-2")
    assert began.interval_index is None


def test_rejections_before_the_run_are_only_a_baseline():
    samples = series(
        "node-1",
        "thread_pool.write.rejected_total",
        [(990.0, 0), (995.0, 2), (1001.0, 2), (1003.0, 2)],
    )
    assert rejections_began(quiet_run(), samples) is None


def test_after_a_restart_any_count_is_a_rise_and_zero_is_not():
    restarted = series("node-1", "thread_pool.write.rejected_total", [(1001.0, 10), (1003.0, 2)])
    began = rejections_began(quiet_run(), restarted)
    assert began is not None
    assert (began.time_unix_s, began.seen_by) == (1003.0, "node-1")
    clean_restart = series(
        "node-1", "thread_pool.write.rejected_total", [(1001.0, 10), (1003.0, 0)]
    )
    assert rejections_began(quiet_run(), clean_restart) is None


def test_no_intervals_no_run_start():
    samples = series("node-1", "thread_pool.write.rejected_total", [(1.0, 0), (2.0, 1)])
    began = rejections_began([], samples)
    assert began is not None
    assert (began.time_unix_s, began.since_start_s) == (2.0, None)
