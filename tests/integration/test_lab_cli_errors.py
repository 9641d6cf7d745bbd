"""`shardlab cluster ...` with bad input or a corrupt lab: one line, exit 2, no traceback, and
nothing said (or done) about the service account before the input was checked."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .cli_helpers import shardlab
from .test_cli_errors import assert_one_line_error


@pytest.fixture
def home() -> Iterator[Path]:
    made = Path(tempfile.mkdtemp(prefix="shardlab-home-"))
    os.chmod(made, 0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--lab", "a b"], ["--lab a b", "not a valid lab name"]),
        (["--distribution", "/nonexistent.zip"], ["--distribution /nonexistent.zip", "no such"]),
        (["--nodes", "0"], ["--nodes 0"]),
    ],
)
def test_bad_up_options_come_alone(home, args, fragments):
    result = shardlab("cluster", "up", *args, env={"SHARDLAB_HOME": str(home)})
    assert_one_line_error(result, *fragments)
    assert "running as root" not in result.stdout + result.stderr
    assert result.stdout.strip() == ""


@pytest.mark.parametrize("command", [["status"], ["logs"], ["down"], ["up"]])
def test_a_corrupt_lab_record_is_named(home, command):
    record = home / "labs" / "broken" / "lab.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"lab": "broken"')
    result = shardlab("cluster", *command, "--lab", "broken", env={"SHARDLAB_HOME": str(home)})
    assert_one_line_error(
        result, f"lab.json {record}: is not a shardlab lab record", "remove the lab directory"
    )
