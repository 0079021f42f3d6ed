"""Dev containers: ``devcontainer.json`` (JSON with comments), its ``runArgs`` docker options, host requirements
and container environment; a compose-based one is judged in its compose file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    from shmlint.extract.dispatch import UnparsableInput
    from shmlint.parsers.jsonc import JsoncError, parse

    try:
        if not run.prefilter.passes(source.text):  # without a signal, only the syntax can be reported
            parse(source.text)
            return [], []
        from shmlint.formats.devcontainer.extract import extract_devcontainer

        return extract_devcontainer(source, path, run.signals)
    except JsoncError as exc:
        line, column = source.position(exc.offset)
        raise UnparsableInput(f"invalid JSONC: {exc.message}", line, column, exc.offset) from None


def _syntax_error(source: SourceText, strict: bool) -> str | None:
    from shmlint.parsers.jsonc import parse, syntax_error

    return syntax_error(source, parse)


FORMAT = Format(
    name="devcontainer",
    label="dev container",
    workload_format=WorkloadFormat.DEVCONTAINER,
    remedy='add "--shm-size=8g" to runArgs',
    fix_in_short="add --shm-size to runArgs",
    writer="shmlint.formats.commandline.edit",  # runArgs are docker options, written in a JSON list
    fixtures=("devcontainer",),
    files=(
        FileNames(
            FileKind.DEVCONTAINER,
            rank=20,
            endings=(".devcontainer.json",),  # also <variant>.devcontainer.json
            lower_names=("devcontainer.json",),
            syntax_error=_syntax_error,
        ),
    ),
    read=_read,
)
