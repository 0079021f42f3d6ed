"""Reading a file into text that can be parsed, located and written back byte for byte.

Undecodable bytes are kept through ``surrogateescape`` so that a fix never changes bytes it did not mean to touch.
A ``Span`` points into that text: lines and columns for people, offsets for edits.
"""

from __future__ import annotations

import bisect
import codecs
import functools
import os
import stat

from shmlint.named_tuple import NamedTuple

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class Span(NamedTuple):
    """A range in a file: 1-based line/column for people, character offsets into the decoded text for edits."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    start: int
    end: int


class InputError(Exception):
    """A file that cannot be read as text; carries a message meant for people."""


class _SourceFields(NamedTuple):
    """The fields of ``SourceText``: its equality and hash."""

    path: str
    text: str
    encoding: str = "utf-8"
    bom: bytes = b""


class SourceText(_SourceFields):
    """The decoded text of one file plus what is needed to encode it again unchanged. Where its lines start and
    its line break (``newline``: inserted lines match it, CRLF files stay CRLF, lone-CR files lone CR) are worked
    out once, when first asked for, and kept with the value: locating a finding and writing a fix both need them."""

    @functools.cached_property
    def _lines(self) -> tuple[tuple[int, ...], str]:
        text = self.text
        # what ends a line: ``\n`` (also in CRLF files), or ``\r`` in old Mac files that have no ``\n`` at all
        line_break = "\r" if "\n" not in text and "\r" in text else "\n"
        starts = [0]
        position = text.find(line_break)
        while position != -1:
            starts.append(position + 1)
            position = text.find(line_break, position + 1)
        if line_break == "\r":
            newline = "\r"
        else:
            newline = "\r\n" if "\r\n" in text[: text.find("\n") + 1 or None] else "\n"
        return tuple(starts), newline

    @property
    def line_starts(self) -> tuple[int, ...]:
        """Where each line starts, as character offsets."""
        return self._lines[0]

    @property
    def newline(self) -> str:
        """The file's line break."""
        return self._lines[1]

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> SourceText:
        for bom, encoding in _BOMS:
            if data.startswith(bom):
                try:
                    text = data[len(bom) :].decode(encoding, "surrogateescape" if encoding == "utf-8" else "strict")
                except UnicodeDecodeError as exc:
                    raise InputError(f"not valid {encoding} text (byte {exc.start + len(bom)})") from None
                return cls(path, text, encoding, bom)
        nul = data.find(b"\0")
        if nul != -1:
            raise InputError(f"binary file (NUL byte at offset {nul})")
        return cls(path, data.decode("utf-8", "surrogateescape"))

    def with_text(self, text: str) -> SourceText:
        """The same file holding other text (a fix's result, a part cut out): the path, encoding and BOM kept."""
        return SourceText(self.path, text, self.encoding, self.bom)

    def encode(self, text: str | None = None) -> bytes:
        body = self.text if text is None else text
        errors = "surrogateescape" if self.encoding == "utf-8" else "strict"
        return self.bom + body.encode(self.encoding, errors)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        end_line, end_column = self.position(end)
        return Span(self.path, line, column, end_line, end_column, start, end)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its line break."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r")


def read_bytes(path: os.PathLike[str] | str, limit: int, limit_name: str = "max-file-size") -> bytes:
    """A regular file's bytes, at most ``limit`` (the setting or bound named ``limit_name``); anything else (a
    folder, a FIFO, a device, a larger file) is an ``InputError`` with a message for people, never a read that
    could block or exhaust memory."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise InputError("is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError("not a regular file (a FIFO, socket or device is never read)")
        if info.st_size > limit:
            raise InputError(f"file is {info.st_size:,} bytes, above the limit of {limit:,} ({limit_name})")
        return _read_regular(path, info.st_size, limit)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None


#: never block on a FIFO swapped in after the stat, never make a terminal ours, no text mode on Windows
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


def _read_regular(path: os.PathLike[str] | str, size: int, limit: int) -> bytes:
    """At most ``limit + 1`` bytes, asked for by the size the file had: ``open().read(limit + 1)`` sets aside a
    buffer of the whole limit for every file, three times the cost of reading a small manifest. A first read that
    brings exactly that size is the whole file as it was (no second read to find its end); one that brings more
    (the file grew) or less (a short read) reads on to the end."""
    descriptor = os.open(path, _READ_FLAGS | getattr(os, "O_CLOEXEC", 0))
    try:
        first = os.read(descriptor, min(limit + 1, size + 1, 1 << 20))
        if len(first) == size or not first:
            return first
        chunks = [first]
        left = limit + 1 - len(first)
        while left > 0:
            chunk = os.read(descriptor, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def alone(text: str, start: int, end: int) -> str:
    """A piece of a text read on its own with the text's offsets (a code block, an option string): what comes
    before it blanked with its line breaks (``\n``, and ``\r`` of old Mac files) kept, so lines and columns stay
    the text's, nothing after it."""
    lines = text[:start].split("\n")
    blank = (
        " " * len(line) if "\r" not in line else "".join("\r" if c == "\r" else " " for c in line) for line in lines
    )
    return "\n".join(blank) + text[start:end]
