"""The options ``check`` and ``fix`` share, mapped by click to typed values: each setting's option is named as its
``Settings`` field, converted where it is parsed (codes, severities, sizes) and handed on as one
``session.Options`` value rather than as loose parameters."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import click

from shmlint.session import Options
from shmlint.settings import UNDECIDED
from shmlint.severity import Severity

if TYPE_CHECKING:
    from pathlib import Path

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SEVERITIES = click.Choice(["info", "warning", "error"])
F = TypeVar("F", bound=Callable[..., Any])


def codes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> frozenset[str] | None:
    """Codes from ``--select SHM001,missing-shm``; an unknown code or slug is a usage error."""
    if not values:
        return None
    from shmlint.catalog import lookup

    found = set()
    for value in values:
        for item in filter(None, (part.strip() for part in value.split(","))):
            rule = lookup(item)
            if rule is None:
                raise click.BadParameter(f"unknown rule '{item}' (see `shmlint rules`)")
            found.add(rule.code)
    return frozenset(found)


def severity(ctx: click.Context, param: click.Parameter, value: str | None) -> Severity | None:
    return Severity.parse(value) if value is not None else None


def size(ctx: click.Context, param: click.Parameter, text: str | None) -> int | None:
    if text is None:
        return None
    from shmlint.sizes import MAX_SETTING_BYTES, parse_either

    parsed = parse_either(text)
    if parsed is None or parsed <= 0:
        raise click.BadParameter(f"'{text}' is not a size (e.g. 8Gi or 8g)")
    if parsed > MAX_SETTING_BYTES:
        raise click.BadParameter(f"'{text}' is larger than 64Ti, more than any machine's memory")
    return parsed


#: paths as click checks them; whether a file can be read is found out where it is read (an unreadable path is an
#: SHM000 finding, an unreadable configuration or baseline a clear error), never a usage error
A_PATH = click.Path(readable=False)


class _FilePath(click.Path):
    """A file option as a ``pathlib.Path``; pathlib (with urllib.parse, ntpath, fnmatch: a tenth of a one-file
    check's start) is imported only when such an option is given."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from pathlib import Path

        if self.allow_dash and value == "-":  # standard output (``./-`` names a file called ``-``)
            return None
        return Path(os.fsdecode(super().convert(value, param, ctx)))


A_FILE = _FilePath(dir_okay=False, readable=False)
#: ``--output``: a file, or ``-`` for standard output (as most tools read it, never a file named ``-``)
A_REPORT_FILE = _FilePath(dir_okay=False, readable=False, allow_dash=True)
EXISTING_FILE = _FilePath(exists=True, dir_okay=False, readable=False)


def fail_on(help: str) -> Callable[[F], F]:
    return click.option("--fail-on", "fail_on", type=SEVERITIES, callback=severity, help=help)


#: what both commands take: the settings, each as its ``Options`` field, and ``--config``
SHARED = [
    click.option("--select", callback=codes, multiple=True, help="Only these rules (codes or slugs, comma-separated)."),
    click.option("--ignore", callback=codes, multiple=True, help="Skip these rules (codes or slugs, comma-separated)."),
    click.option("--config", type=EXISTING_FILE, help="Configuration file."),
    click.option(
        "--respect-gitignore/--no-respect-gitignore",
        default=None,
        help="Leave out what .gitignore files name when walking folders (default: on).",
    ),
    click.option(
        "--force-exclude/--no-force-exclude",
        default=None,
        help="Leave out what exclude/extend-exclude name even when it is named here (as pre-commit names files).",
    ),
    click.option(
        "--undecided",
        type=click.Choice(UNDECIDED),
        help="Findings about accelerators whose software's /dev/shm need is not known: counted in the summary "
        "(summary, default), listed as info (show), or warnings that fail the run (strict).",
    ),
]


def shared(function: F) -> F:
    for option in reversed(SHARED):
        function = option(function)
    return function


def gathered(value_type: Any, name: str) -> Callable[[F], F]:
    """Click passes each option as its own argument: the ones named as ``value_type``'s fields become one value
    of that type, passed as ``name``."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(**given: Any) -> Any:
            fields = {field: given.pop(field) for field in value_type._fields if field in given}
            return function(**given, **{name: value_type(**fields)})

        return wrapper  # type: ignore[return-value]

    return decorate


def options(function: F) -> F:
    """The settings options gathered into ``options: Options``."""
    return gathered(Options, "options")(function)


def _existing(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    """A named path must exist (a typo must not pass a CI gate as "no findings"): a usage error, exit code 2, in
    ``check`` and ``fix`` alike; so is an empty argument (an unset variable in a script), which is not the current
    folder. A path that exists but cannot be read (a broken or looping link, no permission) is an SHM000 finding."""
    if any(value == "" for value in values):
        raise click.BadParameter("an empty path (an unset variable?); write '.' for the current folder", ctx, param)
    from shmlint.discover import clean_path

    paths = tuple(clean_path(value) for value in values)
    allow_dash = ctx.info_name in ("check", "fix")
    missing = [p for p in paths if not (allow_dash and p == "-") and not os.path.lexists(p)]
    if missing:
        raise click.BadParameter(f"no such file or folder: {', '.join(map(repr, missing))}", ctx, param)
    return paths


PATHS = click.argument("paths", nargs=-1, type=A_PATH, callback=_existing)


@contextlib.contextmanager
def configuration_errors() -> Iterator[None]:
    """A broken configuration is a clear error (exit 2), never a traceback."""
    from shmlint.config_error import ConfigError

    try:
        yield
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def emit(text: str, output: Path | None = None) -> None:
    """The report to ``--output`` or standard output; a file or stream that cannot take it is a clean error."""
    from shmlint.outfile import OutputError, write_text_file

    try:
        if output is not None:
            write_text_file(output, text, "report")
            return
        if sys.stdout is None:
            raise OutputError("standard output is closed: the report cannot be printed (use --output FILE)")
        try:
            click.echo(text, nl=False)
        except OSError as exc:
            _silence_stdout()
            raise OutputError(f"standard output: cannot print the report: {exc.strerror or exc}") from None
    except OutputError as exc:
        raise click.ClickException(str(exc)) from None


def _silence_stdout() -> None:
    """After a failed write, what is still buffered would fail again when Python exits: send it nowhere."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
