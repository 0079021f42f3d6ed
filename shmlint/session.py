"""A run as values: a ``Request`` in, a ``Report`` out, whoever asks (the command line, ``fix``, the editor).

The decisions at the door are made here once: which configuration applies to a path (and what the command line
lays over it), what kind a text is, and the size and NUL limits of a text that was not read from its path
(standard input, an editor's buffer: ``check_text``). Each file's result carries the settings that judged it, so
what comes after (fail-on, source context) needs no second look at the configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO

from shmlint.config_error import ConfigError, Problem
from shmlint.discover import SNIFF_BYTES, FileKind, kind_by_content, kind_by_name
from shmlint.model import FileResult, Report
from shmlint.named_tuple import NamedTuple
from shmlint.settings import Settings
from shmlint.severity import Severity

if TYPE_CHECKING:
    from pathlib import Path

    from shmlint.engine import Engine
    from shmlint.source import SourceText


class Options(NamedTuple):
    """What the command line sets for one run, each under its ``Settings`` name (None: the configuration, or the
    default, decides); laid over every configuration the run uses."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] | None = None
    fail_on: Severity | None = None
    fix_size: int | None = None
    undecided: str | None = None
    render: str | None = None
    respect_gitignore: bool | None = None
    force_exclude: bool | None = None
    show_source: bool | None = None
    prefilter: bool | None = None

    def over(self, settings: Settings) -> Settings:
        changes: dict[str, Any] = {
            name: value for name, value in zip(self._fields, self, strict=True) if value is not None
        }
        return settings._replace(**changes) if changes else settings


class Stdin(NamedTuple):
    """Standard input to check as a file called ``name`` (``--stdin-filename``; ``-`` when not given)."""

    stream: BinaryIO | None
    name: str | None = None


class Request(NamedTuple):
    """What to check: files and folders, standard input, or both, with the command line's options."""

    paths: tuple[str, ...] = ()
    stdin: Stdin | None = None
    options: Options = Options()
    config: Path | None = None  # one configuration file for every path (``--config``); None: the nearest above each
    jobs: int | None = None  # worker processes; None: decided by the size of the tree


class Group(NamedTuple):
    """Paths that share a configuration, and the settings it gives them with the options laid over."""

    settings: Settings
    paths: tuple[str, ...]


def configure(paths: tuple[str, ...], config: Path | None, options: Options) -> list[Group]:
    """The paths grouped by the configuration that applies to each (the nearest above it, or ``config``);
    ``ConfigError`` for a configuration that cannot be read or is wrong, such as a ``fix-size`` below
    ``min-shm-size`` (every fix would write a size the check flags). The same size given as an option is one run's
    explicit request: honoured (``fix_size_below_minimum`` says so)."""
    from shmlint.config import find_config, load_effective

    members: dict[Path | None, list[str]] = {}
    for path in paths:
        members.setdefault(config or find_config(path), []).append(path)
    groups = []
    for config_path, grouped in members.items():
        effective = load_effective(grouped[0], config_path)
        settings = options.over(effective.settings)
        below = fix_size_below_minimum(settings) if options.fix_size is None else None
        if below is not None and effective.path is not None:
            raise ConfigError(effective.path, [Problem(("fix-size",), below)])
        groups.append(Group(settings, tuple(grouped)))
    return groups


def settings_for(path: str, config: Path | None, options: Options | None = None) -> Settings:
    """The settings ``check`` uses for one path (standard input: the current folder's)."""
    return configure((path,), config, options or Options())[0].settings


def fix_size_below_minimum(settings: Settings) -> str | None:
    """Why the size fixes write would be flagged by the check itself, or None."""
    if settings.fix_size >= settings.min_shm_size:
        return None
    from shmlint.sizes import format_kubernetes

    return (
        f"the fix size {format_kubernetes(settings.fix_size)} is below min-shm-size "
        f"{format_kubernetes(settings.min_shm_size)}: the check flags the size fixes write as too small (shm-too-small)"
    )


def check(request: Request) -> Report:
    """Every path (each with its own configuration) and standard input, checked; each result carries its
    settings, and the files whose findings are shown with their source keep their text."""
    from shmlint.runner import check_paths

    files: list[FileResult] = []
    for settings, members in configure(request.paths, request.config, request.options) if request.paths else []:
        files += (result._replace(settings=settings) for result in check_paths(settings, members, request.jobs).files)
    if request.stdin is not None:
        from shmlint.engine import Engine

        settings = settings_for(".", request.config, request.options)
        text = read_stream(request.stdin, settings.max_file_size)
        files.append(check_text(Engine(settings), text).result._replace(settings=settings))
    return Report(tuple(files))


class Text(NamedTuple):
    """A file's content that was not read from its path: standard input, an editor's buffer."""

    path: str  # what its findings name, and what decides its kind and configuration
    data: bytes | str  # the bytes read from a stream, or an editor's text
    fallback: FileKind | None = FileKind.YAML  # its kind when neither its name nor its first bytes tell
    stream: bool = False  # read from standard input, which is read to one byte past the limit and no further


class TextCheck(NamedTuple):
    """A text as checked: how it was read (``source`` and ``kind``: None when it is not a file shmlint reads, or
    could not be read) and what the engine found."""

    result: FileResult
    source: SourceText | None = None
    kind: FileKind | None = None


def read_stream(stdin: Stdin, limit: int) -> Text:
    """Standard input, read to one byte past ``limit`` (``check - < /dev/zero`` would read forever)."""
    data = stdin.stream.read(limit + 1) if stdin.stream is not None else b""
    return Text(stdin.name or "-", data, stream=True)


def kind_of(text: Text) -> FileKind | None:
    """As a named file without a telling name: its name first, then its first bytes, then the fallback."""
    data = text.data
    head = data[:SNIFF_BYTES] if isinstance(data, bytes) else data[:SNIFF_BYTES].encode("utf-8", "surrogatepass")
    return kind_by_name(text.path) or kind_by_content(head) or text.fallback


def check_text(engine: Engine, text: Text) -> TextCheck:
    """One text checked as ``check`` checks a file of that name: the same kind, the same limits (above
    max-file-size, a NUL byte or undecodable bytes are an SHM000 finding, never a check of part of it)."""
    from shmlint.source import InputError, SourceText

    kind = kind_of(text)
    if kind is None:  # not a file shmlint reads (an editor sent it anyway)
        return TextCheck(FileResult(text.path))
    data, limit = text.data, engine.settings.max_file_size
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > limit:
        if text.stream:
            why = f"standard input is above the limit of {limit:,} bytes (max-file-size)"
        else:
            why = f"file is {size:,} bytes, above the limit of {limit:,} (max-file-size)"
        return TextCheck(engine.invalid(text.path, why), None, kind)
    try:
        source = SourceText.from_bytes(text.path, data) if isinstance(data, bytes) else _from_text(text.path, data)
    except InputError as exc:
        return TextCheck(engine.invalid(text.path, str(exc)), None, kind)
    return TextCheck(engine.check_source(source, kind, text.path), source, kind)


def _from_text(path: str, text: str) -> SourceText:
    """An editor's text, held to the rule bytes are: a NUL makes it binary."""
    from shmlint.source import InputError, SourceText

    if (nul := text.find("\0")) != -1:
        raise InputError(f"binary file (NUL byte at offset {nul})")
    return SourceText(path, text)


def shown_sources(report: Report) -> dict[str, SourceText]:
    """The text of every file a finding shown with its source points into (``show-source``): kept by the check
    for the file's own findings; read here for a rendered finding that points into a unit's file. One that can
    no longer be read, or that discovery refused to read, is shown without context."""
    from shmlint.infile import links_out
    from shmlint.source import InputError, SourceText, read_bytes

    sources: dict[str, SourceText] = {r.source.path: r.source for r in report.files if r.source is not None}
    for result in report.files:
        if result.settings is None or not result.settings.show_source:
            continue
        for finding in result.findings:
            path = finding.span.path
            if path in sources or links_out(path):  # never shown: what discovery refused (discover.LINKED_OUT)
                continue
            try:
                sources[path] = SourceText.from_bytes(path, read_bytes(path, result.settings.max_file_size))
            except InputError:
                continue
    return sources
