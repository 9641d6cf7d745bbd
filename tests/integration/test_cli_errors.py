"""Bad input: one line naming the problem, exit code 2, no traceback (no cluster needed)."""

import os
import tempfile

import pytest

from .cli_helpers import shardlab


def assert_one_line_error(result, *fragments):
    assert result.returncode == 2, result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--shards", "0"], ["--shards 0", "at least 1"]),
        (["--refresh", "banana"], ["--refresh banana", "1s, 30s"]),
        (["--clients", "-1"], ["--clients -1", "at least 1"]),
        (["--clients", "many"], ["--clients", "integer"]),
        (["--duration", "forever"], ["--duration forever"]),
        (["--variant", "huge"], ["--variant huge", "bulk or bigbulk"]),
        (["--target", "localhost"], ["--target localhost"]),
        (["--no-such-option"], ["--no-such-option"]),
    ],
)
def test_bad_options(args, fragments, tmp_path):
    result = shardlab("run", "systembase", *args, "--store", str(tmp_path / "s.sqlite"))
    assert_one_line_error(result, *fragments)


def test_unknown_workload(tmp_path):
    assert_one_line_error(shardlab("run", "nosuch", "--store", str(tmp_path / "s")), "nosuch")


def test_a_target_that_does_not_answer(tmp_path):
    result = shardlab(
        "run", "systembase", "--target", "http://127.0.0.1:1", "--store", str(tmp_path / "s.sqlite")
    )
    assert_one_line_error(result, "http://127.0.0.1:1", "no answer")


def test_missing_java(tmp_path):
    empty = tmp_path / "no-java-here"
    empty.mkdir()
    home = tempfile.mkdtemp(prefix="shardlab-home-")  # no lab running there
    os.chmod(home, 0o755)
    result = shardlab(
        "run",
        "systembase",
        "--duration",
        "5s",
        env={"SHARDLAB_HOME": home, "JAVA_HOME": str(empty), "OPENSEARCH_JAVA_HOME": ""},
    )
    assert_one_line_error(result, "JAVA_HOME", str(empty))


def test_show_of_an_unknown_run(tmp_path):
    assert_one_line_error(shardlab("runs", "show", "999", "--store", str(tmp_path / "s")), "999")
