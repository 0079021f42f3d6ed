"""Character offsets <-> LSP positions: 0-based lines, columns in the code units the session agreed on.

LSP counts UTF-16 code units by default (a character outside the Basic Multilingual Plane is two) and ends lines
at ``\\n``, ``\\r\\n`` or ``\\r``, whatever line breaks shmlint's own line numbers follow; so positions are taken
from offsets here, never from ``Span`` lines and columns.
"""

from __future__ import annotations

import bisect

from shmlint.lazy_regex import LazyRegex

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
_BREAK = LazyRegex(r"\r\n|\r|\n")


def code_units(text: str, encoding: str = UTF16) -> int:
    """How many code units of ``encoding`` the text is (a lone surrogate counts as one UTF-16 unit)."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if char > "\uffff")


class LineIndex:
    """Where each line of one text starts, to turn offsets into positions and back."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0, *(match.end() for match in _BREAK.finditer(text))]

    def position(self, offset: int) -> tuple[int, int]:
        """(line, character) of a character offset, clamped to the text."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, code_units(self.text[self.starts[line] : offset], self.encoding)

    def line_end(self, line: int) -> int:
        """The offset where the line's text ends (before its line break)."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        end = self.starts[line + 1]
        return end - 2 if self.text[end - 2 : end] == "\r\n" else end - 1

    def offset(self, line: int, character: int) -> int:
        """The character offset of a position; past the end of a line is its end, past the last line the text's."""
        if line >= len(self.starts):
            return len(self.text)
        start, end = self.starts[max(line, 0)], self.line_end(max(line, 0))
        units = 0
        for index in range(start, end):
            if units >= character:
                return index
            units += code_units(self.text[index], self.encoding)
        return end
