"""The ``server`` command. Light on purpose: ``shmlint --help`` loads it, and pygls only loads when it runs."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import click


@click.command()
@click.option("--config", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Configuration file.")
@click.option(
    "--debounce",
    type=click.IntRange(0, 10_000),
    default=300,
    show_default=True,
    help="Milliseconds a buffer must be still before it is checked again.",
)
def server(config: Path | None, debounce: int) -> None:
    """Run the Language Server over stdio (for editors; needs `pip install 'shmlint[lsp]'`)."""
    try:
        from shmlint.server.protocol import build_server
    except ImportError as exc:
        raise click.ClickException(
            f"the language server needs pygls ({exc.name or exc} is not installed): pip install 'shmlint[lsp]'"
        ) from None
    from shmlint.cli import EXIT_ERROR
    from shmlint.server.analysis import Analyzer
    from shmlint.server.framing import FramedInput

    stdin = FramedInput(io.FileIO(sys.stdin.fileno(), "rb", closefd=False))
    build_server(Analyzer(config), debounce / 1000).start_io(stdin=stdin)
    if stdin.problem is not None:  # pygls would have read on out of step with the client, answering nothing
        click.echo(f"shmlint server: not the Language Server Protocol: {stdin.problem}; stopping", err=True)
        sys.exit(EXIT_ERROR)
