"""Text that was not read from its path (standard input, an editor's buffer, ``fix -``) checked as ``check`` checks
a file of that name: one door for its kind and the limits a file read has (max-file-size, NUL bytes, undecodable
bytes). Apart from ``shmlint.session`` so that a check of files defines none of its values."""

from __future__ import annotations

from typing import TYPE_CHECKING, BinaryIO

from shmlint.discover import SNIFF_BYTES, FileKind, kind_by_content, kind_by_name
from shmlint.named_tuple import NamedTuple
from shmlint.results import FileResult

if TYPE_CHECKING:
    from shmlint.engine import Engine
    from shmlint.source import SourceText


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


def read_stream(stream: BinaryIO | None, name: str, limit: int) -> Text:
    """Standard input as a file called ``name``, read to one byte past ``limit`` (``check - < /dev/zero`` would
    read forever); a closed one is empty."""
    data = stream.read(limit + 1) if stream is not None else b""
    return Text(name, data, stream=True)


def kind_of(text: Text) -> FileKind | None:
    """As a named file without a telling name: its name first, then its first bytes, then the fallback."""
    data = text.data
    head = data[:SNIFF_BYTES] if isinstance(data, bytes) else data[:SNIFF_BYTES].encode("utf-8", "surrogatepass")
    return kind_by_name(text.path) or kind_by_content(head) or text.fallback


def check_text(engine: Engine, text: Text) -> TextCheck:
    """One text checked as ``check`` checks a file of that name: the same kind, the same limits (above
    max-file-size, a NUL byte or undecodable bytes are an SHM000 finding, never a check of part of it; a template's
    NUL or undecodable bytes are its "not checked" notice, as a template that does not parse)."""
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
        from shmlint.extract.dispatch import not_text  # loaded by the engine already

        return TextCheck(not_text(kind, text.path, data, str(exc)) or engine.invalid(text.path, str(exc)), None, kind)
    return TextCheck(engine.check_source(source, kind, text.path), source, kind)


def _from_text(path: str, text: str) -> SourceText:
    """An editor's text, held to the rule bytes are: a NUL makes it binary."""
    from shmlint.source import InputError, SourceText

    if (nul := text.find("\0")) != -1:
        raise InputError(f"binary file (NUL byte at offset {nul})")
    return SourceText(path, text)
