from dataclasses import replace

import pytest

from shardlab.analysis.activity import cluster_activity
from shardlab.analysis.rates import Window
from shardlab.analysis.selfcheck import (
    DriverActivity,
    DriverShape,
    driver_activity,
    queued_in_client,
    self_check,
)

from .rows import interval, series

WINDOW = Window(1000.0, 1010.0)
CLOSED = DriverShape("closed", clients=8, engine_threads=2)
# 16 requests/s over 8 clients: each client sends every 500 ms
FIXED = DriverShape("fixed", clients=8, engine_threads=2, rate_per_s=16.0)
QUIET_DRIVER = DriverActivity(0.2, 0.1, 0.1, 1e8, 60.0)


def busy_cluster():
    """Two 4-processor nodes using 3 cores each with a write queue of 2: working hard."""
    samples = []
    for node in ("node-1", "node-2"):
        samples += series(node, "process.cpu_time_ms_total", [(1000.0, 0), (1010.0, 30_000)])
        samples += series(node, "os.allocated_processors", [(1000.0, 4), (1010.0, 4)])
        samples += series(node, "thread_pool.write.queue", [(1000.0, 2), (1010.0, 2)])
        samples += series(node, "thread_pool.write.rejected_total", [(1000.0, 0), (1010.0, 0)])
    return cluster_activity(samples, [], [], WINDOW)


def calm_intervals(**overrides):
    values = {"requests": 8, "service_p99_ms": 40.0, "response_p99_ms": 45.0} | overrides
    return [interval(float(s), **values) for s in range(10)]


def test_client_period_is_clients_over_the_total_rate():
    assert FIXED.client_period_ms == 500.0  # 1000 ms * 8 / 16
    assert CLOSED.client_period_ms is None
    with pytest.raises(ValueError, match="closed, fixed, poisson"):
        DriverShape("burst", clients=1, engine_threads=1)


def test_driver_cpu_from_its_counters():
    samples = [
        *series("driver", "process.cpu_time_ms_total", [(1000.0, 0), (1010.0, 19_000)], "driver"),
        *series("driver", "engine.cpu_time_ms_total", [(1000.0, 0), (1010.0, 10_000)], "driver"),
        *series("driver", "process.rss_bytes", [(1000.0, 100), (1010.0, 200)], "driver"),
        *series("host", "cpu.idle_percent", [(1000.0, 5), (1010.0, 15)], "host"),
    ]
    driver = driver_activity(samples, WINDOW)
    assert driver.process_cores_used == 1.9  # 19000 ms in 10 s
    assert driver.engine_cores_used == 1.0
    assert driver.python_cores_used == pytest.approx(0.9)  # the process minus the engine
    assert driver.rss_max_bytes == 200.0
    assert driver.host_idle_percent_mean == 10.0


def test_a_clean_run_has_no_warnings():
    check = self_check(FIXED, busy_cluster(), calm_intervals(), QUIET_DRIVER)
    assert check.warnings == ()
    assert check.schedule_lag_mean_ms == 0.0
    assert (check.queueing_intervals, check.intervals_with_requests) == (0, 10)
    assert (check.node_cpu_cores_used, check.node_allocated_processors) == (6.0, 8.0)


def test_engine_threads_and_python_near_their_cores():
    driver = DriverActivity(2.6, 1.7, 0.9, 1e8, 60.0)
    notes = self_check(FIXED, busy_cluster(), calm_intervals(), driver).warnings
    # 1.7 >= 0.8 * 2 threads; Python 0.9 >= 0.8 of its one core
    assert len(notes) == 2
    assert notes[0].startswith("the engine used 1.70 cores with 2 threads")
    assert notes[1].startswith("the driver's Python side used 0.90")


def test_a_busy_host():
    driver = replace(QUIET_DRIVER, host_idle_percent_mean=4.0)
    notes = self_check(FIXED, busy_cluster(), calm_intervals(), driver).warnings
    assert notes == (
        "the driver's host was only 4% idle: the driver (and nodes on the same host) competed "
        "for CPU; run the driver on its own machine",
    )


def test_a_host_busy_with_a_local_node_is_no_driver_problem():
    # the node saturates the host; the driver takes 0.02 cores of it
    driver = DriverActivity(0.02, 0.015, 0.005, 1e8, 2.0)
    assert self_check(FIXED, busy_cluster(), calm_intervals(), driver).warnings == ()


def test_schedule_lag_against_the_client_period():
    # 8 requests per interval, 480000 us of lag: 60 ms each, over 10% of the 500 ms period
    late = calm_intervals(schedule_lag_us=480_000, schedule_lag_max_ms=200.0)
    check = self_check(FIXED, busy_cluster(), late, QUIET_DRIVER)
    assert check.schedule_lag_mean_ms == 60.0
    assert check.schedule_lag_max_ms == 200.0
    assert check.warnings == (
        "requests went out 60 ms late on average (500 ms between each client's requests), "
        "200 ms at worst: the driver did not keep the schedule; add --clients or --threads, "
        "or lower --rate",
    )
    # 40 ms each is within 10%, but one request 1.5 s late is not
    on_time = calm_intervals(schedule_lag_us=320_000, schedule_lag_max_ms=200.0)
    assert self_check(FIXED, busy_cluster(), on_time, QUIET_DRIVER).warnings == ()
    stalled = calm_intervals(schedule_lag_us=320_000, schedule_lag_max_ms=1_500.0)
    assert len(self_check(FIXED, busy_cluster(), stalled, QUIET_DRIVER).warnings) == 1
    # a closed loop has no schedule to keep
    assert self_check(CLOSED, busy_cluster(), late, QUIET_DRIVER).warnings == ()


def test_queueing_in_the_client():
    # 100 > 2 x 40 and 60 ms apart: queued; 85 is 45 ms apart; 190 is under 2 x 100
    assert queued_in_client(interval(0.0, service_p99_ms=40.0, response_p99_ms=100.0))
    assert not queued_in_client(interval(0.0, service_p99_ms=40.0, response_p99_ms=85.0))
    assert not queued_in_client(interval(0.0, service_p99_ms=100.0, response_p99_ms=190.0))
    run = calm_intervals()
    run[3] = interval(3.0, requests=8, service_p99_ms=40.0, response_p99_ms=100.0)
    check = self_check(FIXED, busy_cluster(), run, QUIET_DRIVER)
    # 1 of 10 intervals reaches the 10% share
    assert check.queueing_intervals == 1
    assert check.warnings[0].startswith("in 1 of 10 intervals the response p99 was over 2x")


def test_an_idle_cluster_under_a_closed_loop_wants_more_clients():
    idle = replace(busy_cluster(), cpu_cores_used_total=1.2, write_queue_mean=0.0)
    assert self_check(CLOSED, idle, calm_intervals(), QUIET_DRIVER).warnings == (
        "the nodes used 1.2 of their 8 processors (15%) with empty write queues and no "
        "rejections: the cluster waited for the driver; add --clients (now 8)",
    )
    # an open model chose its rate; a rejecting cluster was not idle
    assert self_check(FIXED, idle, calm_intervals(), QUIET_DRIVER).warnings == ()
    rejecting = replace(idle, engine_requests_http_429=3)
    assert self_check(CLOSED, rejecting, calm_intervals(), QUIET_DRIVER).warnings == ()
    # half the processors busy is not idle
    half = replace(idle, cpu_cores_used_total=4.0)
    assert self_check(CLOSED, half, calm_intervals(), QUIET_DRIVER).warnings == ()
