"""Run the real `shardlab` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def shardlab(
    *args: str, env: dict[str, str] | None = None, timeout_s: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shardlab", *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def popen_shardlab(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "shardlab", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def store_arg(tmp_path: Path) -> list[str]:
    return ["--store", str(tmp_path / "runs.sqlite")]
