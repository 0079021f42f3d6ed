"""A GitLab runner's ``config.toml``: the docker executor's ``[runners.docker]`` of each ``[[runners]]``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText

_TOML_WHERE = LazyRegex(r"\(at line (\d+), column (\d+)\)")


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """A ``config.toml`` is a runner's only when it has ``[[runners]]``; other tools' files are left alone."""
    if "[[runners]]" not in source.text:
        return [], []
    from shmlint.extract.dispatch import UnparsableInput, within_budget

    within_budget(source)
    import tomllib

    from shmlint.parsers.toml_tables import load_toml

    try:
        if not run.prefilter.passes(source.text):  # without a signal, only the syntax can be reported
            load_toml(source.text)
            return [], []
        from shmlint.formats.gitlab_runner.extract import extract_gitlab_runner

        return extract_gitlab_runner(source, run.signals), []
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_WHERE.search(str(exc))
        line, column = (int(where.group(1)), int(where.group(2))) if where else source.position(len(source.text))
        message = _TOML_WHERE.sub("", str(exc)).strip()
        offset = min(source.line_starts[min(line, len(source.line_starts)) - 1] + column - 1, len(source.text))
        raise UnparsableInput(f"invalid TOML: {message}", line, column, offset) from None


def _syntax_error(source: SourceText, strict: bool) -> str | None:
    import tomllib

    from shmlint.parsers.toml_tables import load_toml

    try:
        load_toml(source.text)
    except tomllib.TOMLDecodeError as exc:
        return str(exc)
    return None


FORMAT = Format(
    name="gitlab_runner",
    label="GitLab runner",
    workload_format=WorkloadFormat.GITLAB_RUNNER,
    remedy="set shm_size (bytes) in [runners.docker]",
    fix_in_short="set shm_size in [runners.docker]",
    writer="shmlint.formats.gitlab_runner.edit",
    fixtures=("gitlab-runner",),
    files=(
        FileNames(
            FileKind.GITLAB_RUNNER,
            rank=120,
            endings=(".config.toml",),
            lower_names=("config.toml",),
            syntax_error=_syntax_error,
        ),
    ),
    read=_read,
)
