"""Groovy tokens with offsets, enough to read a Jenkins pipeline's docker agents: names, strings and punctuation,
with comments skipped. Strings keep where their content is written and whether they interpolate (``"${x}"``).

Slashy and dollar-slashy strings are not read as strings (a ``/`` is punctuation): pipelines spell docker options
in quotes. Every character is read once; an unterminated string or comment ends at the end of the text.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

_NAME = LazyRegex(r"[A-Za-z_$][A-Za-z0-9_$]*")
_ESCAPE = LazyRegex(r"\\(.)", re.DOTALL)


class Token(NamedTuple):
    kind: str  # "name", "string" or "punct"
    text: str  # a string's value (escapes read), a name, or the punctuation character
    start: int  # a string's content (inside the quotes)
    end: int
    interpolated: bool = False  # a double-quoted string with ``$``: known only when the pipeline runs


def tokens(text: str) -> list[Token]:
    found: list[Token] = []
    pos, size = 0, len(text)
    while pos < size:
        char = text[pos]
        if char.isspace():
            pos += 1
        elif text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = size if end == -1 else end
        elif text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            pos = size if end == -1 else end + 2
        elif char in "'\"":
            token, pos = _string(text, pos)
            found.append(token)
        elif match := _NAME.match(text, pos):
            found.append(Token("name", match.group(), pos, match.end()))
            pos = match.end()
        else:
            found.append(Token("punct", char, pos, pos + 1))
            pos += 1
    return found


def _string(text: str, pos: int) -> tuple[Token, int]:
    """A quoted string starting at ``pos``: the token and the offset after its closing quotes (a one-line string
    left open ends at its line's end)."""
    quote = text[pos]
    delimiter = quote * 3 if text.startswith(quote * 3, pos) else quote
    start = pos + len(delimiter)
    end = _closing(text, start, delimiter)
    raw = text[start:end]
    value = _ESCAPE.sub(r"\1", raw) if "\\" in raw else raw
    interpolated = quote == '"' and "$" in raw
    after = end + len(delimiter) if text.startswith(delimiter, end) else end
    return Token("string", value, start, end, interpolated), after


def _closing(text: str, start: int, delimiter: str) -> int:
    """Where the closing quotes are (escaped quotes skipped); a one-line string stops at its line's end."""
    pos, size = start, len(text)
    while pos < size:
        char = text[pos]
        if char == "\\":
            pos += 2
        elif text.startswith(delimiter, pos) or (char == "\n" and len(delimiter) == 1):
            return pos
        else:
            pos += 1
    return size
