"""The lab record (lab.json): a file that is not one is a one-line UsageError naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shardlab.cluster.lab_state import STATE_FILE, read_record
from shardlab.cluster.local import LocalCluster
from shardlab.errors import UsageError

from .lab_records import recorded_state


def without_nodes(directory: Path) -> str:
    record = json.loads(recorded_state(directory).to_json())
    del record["nodes"]
    return json.dumps(record)


def with_string_pid(directory: Path) -> str:
    record = json.loads(recorded_state(directory).to_json())
    record["nodes"][0]["pid"] = "1234"
    return json.dumps(record)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"lab": "x"', "Expecting ',' delimiter"),  # truncated
        ("", "Expecting value"),
        ('{"lab": "x"}', "no field 'nodes'"),
        ("[1, 2]", "not a shardlab lab record"),
        ('"just a string"', "not a shardlab lab record"),
        (without_nodes, "no field 'nodes'"),
        (with_string_pid, "node 'node-1': pid, ports and heap_mb must be integers"),
    ],
)
def test_a_file_that_is_not_a_record_is_named(tmp_path, text, found):
    path = tmp_path / STATE_FILE
    path.write_text(text if isinstance(text, str) else text(tmp_path))
    with pytest.raises(UsageError) as caught:
        read_record(tmp_path)
    line = caught.value.line()
    assert line.startswith(f"lab.json {path}: is not a shardlab lab record (")
    assert found in line
    assert line.endswith("(remove the lab directory, or fix the file)")
    assert "\n" not in line


def test_invalid_utf8_is_named(tmp_path):
    (tmp_path / STATE_FILE).write_bytes(b"\xff\xfe{")
    with pytest.raises(UsageError, match="is not a shardlab lab record"):
        read_record(tmp_path)


def test_no_file_is_no_record_and_a_record_round_trips(tmp_path):
    assert read_record(tmp_path) is None
    (tmp_path / STATE_FILE).write_text(recorded_state(tmp_path).to_json())
    assert read_record(tmp_path) == recorded_state(tmp_path)


def test_every_lab_command_reports_a_corrupt_record(tmp_path, monkeypatch):
    """status (state), logs (log_path), down and up all read the record first."""
    monkeypatch.setenv("SHARDLAB_HOME", str(tmp_path))
    cluster = LocalCluster("default")
    cluster.directory.mkdir(parents=True)
    (cluster.directory / STATE_FILE).write_text('{"lab": "x"}')
    for read in (cluster.state, cluster.log_path, cluster.down):
        with pytest.raises(UsageError, match=r"lab\.json .*: is not a shardlab lab record"):
            read()
