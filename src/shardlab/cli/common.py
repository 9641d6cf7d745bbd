"""What every command group shares: the consoles and the store option."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from shardlab.paths import default_store_path
from shardlab.store import Store

# Written to a pipe or a file, a table is never cut to a terminal's width: the reader is a
# script or a file, and "inte…" or "35,5…" would be a lie. On a terminal, its own width.
_UNCUT_WIDTH = 10_000


def _console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else _UNCUT_WIDTH
    return Console(stderr=stderr, highlight=False, width=width)


console = _console()
err_console = _console(stderr=True)

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store", help="Results store (SQLite) [default: runs.sqlite in shardlab's home]."
    ),
]
LabOption = Annotated[str, typer.Option("--lab", help="Name of the local cluster.")]


def open_store(path: Path | None) -> Store:
    return Store(path or default_store_path())
