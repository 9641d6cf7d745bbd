"""The `shardlab` command. One file per command group; this one wires them and owns the
error contract: a `UsageError` (or a bad option caught by the parser) is one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from shardlab import __version__
from shardlab.cli import cluster, run, runs
from shardlab.cli.common import console, err_console
from shardlab.cluster.client import ClusterHTTPError
from shardlab.errors import UsageError

app = typer.Typer(
    help="Measure, tune and size Elasticsearch and OpenSearch clusters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)
app.command("run")(run.run)
app.add_typer(cluster.app, name="cluster")
app.add_typer(runs.app, name="runs")


def _show_version(show: bool) -> None:
    if show:
        console.print(f"shardlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Measure, tune and size Elasticsearch and OpenSearch clusters."""


def _fail(message: str) -> None:
    message = " ".join(message.split())  # one line, whatever the cluster put in its reason
    err_console.print(f"[red]error:[/] {message}", highlight=False, soft_wrap=True, markup=True)
    sys.exit(2)


def main() -> None:
    command = typer.main.get_command(app)
    try:
        code = command.main(args=sys.argv[1:], prog_name="shardlab", standalone_mode=False)
    except UsageError as error:
        _fail(error.line().replace("[", "\\["))
    except ClusterHTTPError as error:
        hint = " (give --user and --password)" if error.status in (401, 403) else ""
        _fail(f"{error}{hint}".replace("[", "\\["))
    except typer.TyperException as error:
        # the parser's own complaints (a word for --clients, an unknown option): one line too
        ctx = getattr(error, "ctx", None)
        hint = f" (see {ctx.command_path} --help)" if ctx is not None else ""
        _fail(f"{error.format_message()}{hint}".replace("[", "\\["))
    except typer.Abort:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
