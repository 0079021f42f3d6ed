"""Files that start one container of their own, whose docker options are spelled in the file's own syntax: dev
containers (JSONC), GitLab runners (TOML) and Jenkins pipelines (Groovy)."""

from __future__ import annotations

from shmlint.discover import FileKind, StrPath
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Notice, Workload
from shmlint.prefilter import Prefilter
from shmlint.signals import Signals
from shmlint.source import SourceText

_TOML_WHERE = LazyRegex(r"\(at line (\d+), column (\d+)\)")


class InvalidFile(Exception):
    """The file does not parse as its format; where (1-based line and column), for an SHM000 finding."""

    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset


def extract_job_containers(
    source: SourceText, kind: FileKind, path: StrPath, signals: Signals, prefilter: Prefilter
) -> tuple[list[Workload], list[Notice]]:
    """The workloads of a dev container, runner or pipeline file; raises ``InvalidFile``."""
    wanted = prefilter.passes(source.text)  # without a signal, only the syntax can be reported
    if kind is FileKind.DEVCONTAINER:
        return _devcontainer(source, path, signals, wanted)
    if kind is FileKind.GITLAB_RUNNER:
        return _gitlab_runner(source, signals, wanted)
    if not wanted:
        return [], []
    _within_budget(source)
    from shmlint.formats.ci.jenkins import extract_jenkinsfile

    return extract_jenkinsfile(source, signals), []


#: the most tokens (``parsers.work``) of a runner's config.toml or a Jenkinsfile: about 1 MB, a second or two;
#: 10 MB took tomllib 16 s and 336 MB, the Groovy reader 26 s and 628 MB (issue 27). Real ones are a few KB.
MAX_TOKENS = 200_000


def _within_budget(source: SourceText) -> None:
    from shmlint.parsers.work import TOO_COMPLEX, beyond

    too_many = beyond(source.text, MAX_TOKENS)
    if too_many is not None:
        line, column = source.position(too_many)
        raise InvalidFile(f"{TOO_COMPLEX} (more than {MAX_TOKENS:,} tokens)", line, column, too_many)


def _devcontainer(
    source: SourceText, path: StrPath, signals: Signals, wanted: bool
) -> tuple[list[Workload], list[Notice]]:
    from shmlint.parsers.jsonc import JsoncError, parse

    try:
        if not wanted:
            parse(source.text)
            return [], []
        from shmlint.formats.devcontainer.extract import extract_devcontainer

        return extract_devcontainer(source, path, signals)
    except JsoncError as exc:
        line, column = source.position(exc.offset)
        raise InvalidFile(f"invalid JSONC: {exc.message}", line, column, exc.offset) from None


def _gitlab_runner(source: SourceText, signals: Signals, wanted: bool) -> tuple[list[Workload], list[Notice]]:
    """A ``config.toml`` is a runner's only when it has ``[[runners]]``; other tools' files are left alone."""
    if "[[runners]]" not in source.text:
        return [], []
    _within_budget(source)
    import tomllib

    from shmlint.parsers.toml_tables import load_toml

    try:
        if not wanted:
            load_toml(source.text)
            return [], []
        from shmlint.formats.gitlab_runner.extract import extract_gitlab_runner

        return extract_gitlab_runner(source, signals), []
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_WHERE.search(str(exc))
        line, column = (int(where.group(1)), int(where.group(2))) if where else source.position(len(source.text))
        message = _TOML_WHERE.sub("", str(exc)).strip()
        offset = min(source.line_starts[min(line, len(source.line_starts)) - 1] + column - 1, len(source.text))
        raise InvalidFile(f"invalid TOML: {message}", line, column, offset) from None
