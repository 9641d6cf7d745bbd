import pytest

from shardlab.errors import UsageError
from shardlab.plan import (
    BulkSize,
    IndexSettings,
    LoadPlan,
    StopCondition,
    check_index_name,
    parse_count,
    parse_duration_s,
    parse_refresh_interval,
    parse_size_bytes,
    parse_targets,
)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("60s", 60.0), ("5m", 300.0), ("1.5h", 5400.0), ("250ms", 0.25), ("90", 90.0)],
)
def test_durations(text, seconds):
    assert parse_duration_s("--duration", text) == seconds


@pytest.mark.parametrize("text", ["banana", "-5s", "0s", "10 parsecs", ""])
def test_bad_durations_name_the_option(text):
    with pytest.raises(UsageError) as caught:
        parse_duration_s("--duration", text)
    assert caught.value.line().startswith("--duration")


@pytest.mark.parametrize(
    ("text", "size"), [("5mb", 5 * 1024**2), ("512kb", 512 * 1024), ("1000", 1000), ("1G", 1024**3)]
)
def test_sizes(text, size):
    assert parse_size_bytes("--bulk-bytes", text) == size


@pytest.mark.parametrize(
    ("text", "count"), [("1000000", 1_000_000), ("500k", 500_000), ("2m", 2_000_000)]
)
def test_counts(text, count):
    assert parse_count("--docs", text) == count


@pytest.mark.parametrize("text", ["1s", "30s", "-1", "500ms", "1m"])
def test_refresh_intervals_opensearch_accepts(text):
    assert parse_refresh_interval(text) == text


def test_refresh_banana_is_one_line_with_advice():
    with pytest.raises(UsageError) as caught:
        IndexSettings(shards=1, replicas=0, refresh_interval="banana")
    line = caught.value.line()
    assert (
        line == "--refresh banana: is not a refresh interval (use e.g. 1s, 30s, or -1 to disable)"
    )


@pytest.mark.parametrize(("shards", "replicas"), [(0, 0), (1, -1), (5000, 0)])
def test_index_settings_bounds(shards, replicas):
    with pytest.raises(UsageError):
        IndexSettings(shards=shards, replicas=replicas, refresh_interval="30s")


def test_clients_must_be_positive():
    with pytest.raises(UsageError, match="--clients -1: must be at least 1"):
        LoadPlan("systembase", "bulk", "systembase", IndexSettings(1, 0, "1s"), clients=-1)


def test_bulk_size_is_docs_or_bytes():
    assert BulkSize().docs == 1000
    with pytest.raises(UsageError):
        BulkSize(docs=1000, bytes=10)
    with pytest.raises(UsageError):
        BulkSize(docs=None, bytes=None)


def test_stop_needs_a_condition():
    with pytest.raises(UsageError):
        StopCondition(duration_s=None, docs=None)


def test_targets():
    assert parse_targets("http://a:9200, http://b:9200/") == ("http://a:9200", "http://b:9200")
    with pytest.raises(UsageError):
        parse_targets("a:9200")
    with pytest.raises(UsageError):
        parse_targets(" , ")


@pytest.mark.parametrize(
    "name", ["", "*", "_all", "a b", "Upper", "x?pretty", "-x", "+x", ".", "..", "a/b", "a" * 256]
)
def test_index_names_that_could_reach_other_indexes_are_refused(name):
    with pytest.raises(UsageError) as caught:
        check_index_name(name)
    assert caught.value.subject == "--index"


@pytest.mark.parametrize("name", ["systembase", "systembase-2", "logs.2016", "a%b", "ünïcode"])
def test_plain_index_names_pass(name):
    assert check_index_name(name) == name


@pytest.mark.parametrize(
    ("override", "option"),
    [
        ({"rate_per_s": float("nan")}, "--rate"),
        ({"seed": -1}, "--seed"),
        ({"engine_threads": 257}, "--threads"),
        ({"interval_s": 1e-10}, "--interval"),
        ({"clients": 100_001}, "--clients"),
    ],
)
def test_plan_bounds_match_the_engine(override, option):
    with pytest.raises(UsageError) as caught:
        LoadPlan("systembase", "bulk", "systembase", IndexSettings(1, 0, "1s"), **override)
    assert caught.value.subject == option


def test_bulk_size_bounds():
    with pytest.raises(UsageError, match="max_content_length"):
        BulkSize(docs=None, bytes=101 * 1024**2)
    with pytest.raises(UsageError):
        BulkSize(docs=100_001)


def test_targets_need_a_valid_port():
    with pytest.raises(UsageError, match="valid port"):
        parse_targets("http://127.0.0.1:99999")
    assert parse_targets("https://10.0.0.4:9200") == ("https://10.0.0.4:9200",)
