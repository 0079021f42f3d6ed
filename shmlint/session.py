"""A run as values: a ``Request`` in, a ``Report`` out, whoever asks (the command line, ``fix``, the editor).

The decisions at the door are made here once: which configuration applies to a path (and what the command line
lays over it); a text that was not read from its path (standard input, an editor's buffer) goes through the one
door of ``shmlint.text_input`` (its kind, the size and NUL limits). Each file's result carries the settings that
judged it, so what comes after (fail-on, source context) needs no second look at the configuration.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, BinaryIO

from shmlint.config_error import ConfigError, Problem
from shmlint.named_tuple import NamedTuple
from shmlint.results import FileResult, Report
from shmlint.settings import Settings
from shmlint.severity import Severity

if TYPE_CHECKING:
    from pathlib import Path

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


class Request(NamedTuple):
    """What to check: files and folders, standard input, or both, with the command line's options."""

    paths: tuple[str, ...] = ()
    stdin_name: str | None = None  # standard input is checked as a file of this name ('-' or ``--stdin-filename``)
    stdin: BinaryIO | None = None  # the stream it is read from (None: closed, so empty)
    options: Options = Options()
    config: Path | None = None  # one configuration file for every path (``--config``); None: the nearest above each
    jobs: int | None = None  # worker processes; None: decided by the size of the tree


#: paths that share a configuration, and the settings it gives them with the options laid over
Group = tuple[Settings, tuple[str, ...]]


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
        groups.append((settings, tuple(grouped)))
    return groups


def settings_for(path: str, config: Path | None, options: Options | None = None) -> Settings:
    """The settings ``check`` uses for one path (standard input: the current folder's)."""
    return configure((path,), config, options or Options())[0][0]


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
    seen: set[str] = set()  # a file two named paths of different configurations reach: reported once, the first's
    for settings, members in configure(request.paths, request.config, request.options) if request.paths else []:
        results = check_paths(settings, members, request.jobs).files  # each result carries its settings
        files += [result for result in results if os.path.abspath(result.path) not in seen]
        seen.update(os.path.abspath(result.path) for result in results)
    if request.stdin_name is not None:
        from shmlint.engine import Engine
        from shmlint.text_input import check_text, read_stream

        named = stdin_path(request)
        settings = settings_for(named, request.config, request.options)
        if stdin_excluded(named, settings):
            return Report(tuple(files))
        text = read_stream(request.stdin, request.stdin_name, settings.max_file_size)
        files.append(check_text(Engine(settings), text).result._replace(settings=settings))
    return Report(tuple(files))


def stdin_path(request: Request) -> str:
    """The file standard input's text stands for (an editor's buffer, a hook's staged file: ``--stdin-filename``),
    whose configuration it takes as that path named on the command line would; else the current folder."""
    return request.stdin_name if request.stdin_name not in (None, "-") else "."


def stdin_excluded(path: str, settings: Settings) -> bool:
    """Whether ``--force-exclude`` leaves out the file standard input's text stands for, as it would that path."""
    if path == "." or not settings.force_exclude:
        return False
    from shmlint.discover import force_excluded

    return force_excluded(path, settings)


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
