import pytest

from shardlab.analysis.rates import (
    Window,
    counter_increase,
    counter_rate_per_s,
    counter_stats,
    gauge_stats,
    intervals_in,
    is_counter,
    run_end_unix_s,
    run_start_unix_s,
    series_by_key,
)

from .rows import interval, series

COUNTER = [(0.0, 100.0), (10.0, 150.0), (20.0, 250.0)]


def test_counter_increase_and_rate_over_the_samples_span():
    stats = counter_stats(COUNTER, Window(0.0, 20.0))
    # 250 - 100 = 150 over 20 s
    assert stats is not None
    assert (stats.increase, stats.rate_per_s, stats.span_s, stats.resets) == (150.0, 7.5, 20.0, 0)


def test_only_points_in_the_window_count():
    # the 10 s and 20 s points: 250 - 150 = 100 over 10 s
    assert counter_increase(COUNTER, Window(5.0, 25.0)) == 100.0
    assert counter_rate_per_s(COUNTER, Window(5.0, 25.0)) == 10.0


def test_a_drop_is_a_restart_counted_from_zero():
    points = [(0.0, 100.0), (10.0, 160.0), (20.0, 30.0), (30.0, 90.0)]
    stats = counter_stats(points, Window(0.0, 30.0))
    # 160 - 100 = 60, then restarted: + 30, then 90 - 30 = 60: 150 over 30 s
    assert stats is not None
    assert (stats.increase, stats.rate_per_s, stats.resets) == (150.0, 5.0, 1)


def test_one_sample_has_no_rate_and_none_has_no_stats():
    single = counter_stats([(5.0, 42.0)], Window(0.0, 10.0))
    assert single is not None
    assert (single.increase, single.rate_per_s) == (0.0, None)
    assert counter_stats(COUNTER, Window(30.0, 40.0)) is None
    assert counter_rate_per_s([], Window(0.0, 1.0)) is None


def test_gauge_mean_time_weighted_mean_max_and_last():
    points = [(0.0, 2.0), (10.0, 4.0), (20.0, 0.0), (50.0, 100.0)]
    stats = gauge_stats(points, Window(0.0, 40.0))
    assert stats is not None
    # (2 + 4 + 0) / 3 = 2; held: 2 for 10 s, 4 for 10 s, 0 for 20 s: 60 / 40 = 1.5
    assert stats.mean == 2.0
    assert stats.time_weighted_mean == 1.5
    assert (stats.min, stats.max, stats.last, stats.samples) == (0.0, 4.0, 0.0, 3)


def test_a_window_cannot_end_before_it_starts():
    with pytest.raises(ValueError, match="before it starts"):
        Window(10.0, 5.0)
    assert Window(10.0, 25.0).duration_s == 15.0


def test_counter_names_end_in_total():
    assert is_counter("thread_pool.write.rejected_total")
    assert not is_counter("thread_pool.write.queue")


def test_series_are_grouped_per_source_and_metric_in_time_order():
    samples = [
        *series("node-1", "m_total", [(20.0, 2.0), (10.0, 1.0)]),
        *series("host", "cpu.iowait_percent", [(10.0, 5.0)], probe="host"),
    ]
    assert series_by_key(samples) == {
        ("node-1", "m_total"): [(10.0, 1.0), (20.0, 2.0)],
        ("host", "cpu.iowait_percent"): [(10.0, 5.0)],
    }
    assert list(series_by_key(samples, "host")) == [("host", "cpu.iowait_percent")]


def test_intervals_belong_to_the_window_holding_their_midpoint():
    run = [interval(s, run_start_unix_s=1000.0) for s in (0.0, 1.0, 2.0, 3.0)]
    # midpoints 1000.5, 1001.5, 1002.5, 1003.5: the window [1001, 1003] holds two
    inside = intervals_in(run, Window(1001.0, 1003.0))
    assert [i.start_s for i in inside] == [1.0, 2.0]


def test_run_start_and_end_on_the_wall_clock():
    run = [interval(0.5, run_start_unix_s=1000.0), interval(1.5, run_start_unix_s=1000.0)]
    # first interval starts at 1000.5, 0.5 s into the run; the last ends at 1001.5 + 1
    assert run_start_unix_s(run) == 1000.0
    assert run_end_unix_s(run) == 1002.5
    assert run_start_unix_s([]) is None
