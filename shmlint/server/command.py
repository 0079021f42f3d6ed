"""The ``server`` command. Light on purpose: ``shmlint --help`` loads it, and pygls only loads when it runs."""

from __future__ import annotations

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
    from shmlint.server.analysis import Analyzer

    build_server(Analyzer(config), debounce / 1000).start_io()
