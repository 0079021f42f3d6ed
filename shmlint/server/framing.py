"""The LSP base protocol's framing, checked before pygls reads it.

pygls skips any header line it does not understand (``Content-Length: x``, a line of garbage, ``content-length``
in lower case, a length of 0, a blank line with no length before it) without a word, and from then on reads the
client's messages out of step: a server that runs on, answers nothing and says nothing. ``FramedInput`` is the
stream pygls reads; a header pygls would skip ends the stream instead, and ``problem`` says why, for the command to
report it and exit non-zero (the editor then restarts the server or shows the error).
"""

from __future__ import annotations

import io
import re

from shmlint.lazy_regex import LazyRegex
from shmlint.numbers import read_int

#: longer than any header line a client sends (``Content-Length: <digits>``, ``Content-Type: ...``)
MAX_HEADER_LINE = 4096
#: the largest message read: far above any buffer shmlint checks, far below what one read may claim in memory
#: (a read of ``Content-Length`` bytes sets the whole length aside before the first byte arrives)
MAX_MESSAGE_BYTES = 256 << 20
#: the only ``Content-Length`` header pygls reads; any other spelling of it is a framing error
_CONTENT_LENGTH = LazyRegex(rb"Content-Length: ([0-9]+)\r\n")
_FIELD = LazyRegex(rb"[!-9;-~]+:[^\r\n]*\r\n")
_LENGTH_NAME = LazyRegex(rb"\s*content-length\s*:", re.IGNORECASE)


class FramedInput(io.BufferedReader):
    """Standard input as pygls reads it (``readline`` for headers, ``read`` for a message), ending at the first
    header that would put pygls out of step with the client."""

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__(raw)
        self.problem: str | None = None
        self._length: int | None = None  # the Content-Length of the header block being read

    def readline(self, size: int | None = -1, /) -> bytes:
        """One header line, at most ``MAX_HEADER_LINE`` bytes; end of input after a framing error."""
        if self.problem is not None:
            return b""
        limit = MAX_HEADER_LINE + 1 if size is None or size < 0 else min(size, MAX_HEADER_LINE + 1)
        line = super().readline(limit)
        if line and (problem := self._problem(line)) is not None:
            self.problem = f"{problem} (header line {line[:60]!r})"
            return b""
        return line

    def read(self, size: int | None = -1, /) -> bytes:
        """A message's bytes; the next line read starts a new header block."""
        self._length = None
        return super().read(size)

    def _problem(self, line: bytes) -> str | None:
        if not line.endswith(b"\r\n"):
            return f"a header line not ended by CRLF within {MAX_HEADER_LINE} bytes"
        if line == b"\r\n":
            return "a blank line with no Content-Length header before it" if self._length is None else None
        if _LENGTH_NAME.match(line) is None:
            return None if _FIELD.fullmatch(line) else "a header line that is not 'Name: value'"
        match = _CONTENT_LENGTH.fullmatch(line)
        if match is None:
            return "a Content-Length header that is not exactly 'Content-Length: <digits>'"
        length = read_int(match.group(1).decode("ascii"), maximum=MAX_MESSAGE_BYTES).value
        if not length:  # pygls skips a length of 0 as it skips a broken header
            return f"a Content-Length of 0 or above {MAX_MESSAGE_BYTES:,} bytes"
        if self._length is None:  # pygls reads the first one of a block
            self._length = length
        return None
