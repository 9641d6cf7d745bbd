"""What every command group shares: the consoles and the store option."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from shardlab.paths import default_store_path
from shardlab.store import Store

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store", help="Results store (SQLite) [default: runs.sqlite in shardlab's home]."
    ),
]
LabOption = Annotated[str, typer.Option("--lab", help="Name of the local cluster.")]


def open_store(path: Path | None) -> Store:
    return Store(path or default_store_path())
