"""Where the tables and keys of a TOML file are written: ``tomllib`` reads the values but keeps no positions.

A line scanner, used beside ``tomllib`` (which decides what the values are and rejects invalid files): table
headers (``[a.b]``, ``[[a]]``) and ``key = value`` lines, with the offsets of each value. Lines inside a multi-line
string or array are never read as keys. Each line is read once.
"""

from __future__ import annotations

import re
from typing import Any

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import long_number_place

_KEY = LazyRegex(r"[ \t]*([A-Za-z0-9_\-]+|\"[^\"\n]*\")[ \t]*=[ \t]*")


class KeyLine(NamedTuple):
    """A ``key = value`` line: the key's offset, the value's offsets (inside the quotes for a basic string on one
    line) and the end of the line before its line break."""

    key: str
    key_start: int
    value_start: int
    value_end: int
    line_end: int


class Table(NamedTuple):
    """A table header (``name`` without brackets, spaces or quotes) and the keys written under it."""

    name: str
    array: bool  # ``[[name]]``: one more element of an array of tables
    start: int  # the header's ``[``
    header_end: int  # end of the header line before its line break
    keys: tuple[KeyLine, ...]


def tables(text: str) -> list[Table]:
    """The tables in order (keys before the first header belong to a table named ``""``)."""
    found: list[Table] = []
    name, array, start, header_end = "", False, 0, 0
    keys: list[KeyLine] = []
    open_value: str | None = None  # a multi-line string's closing quotes, or "]" for an array
    depth = 0
    position = 0
    for line in text.splitlines(keepends=True):
        begin, position = position, position + len(line)
        body = line.rstrip("\r\n")
        if open_value is not None:
            open_value, depth = _continue(body, open_value, depth)
            continue
        header = _header(body)
        if header is not None:
            found.append(Table(name, array, start, header_end, tuple(keys)))
            (name, array), start, header_end, keys = header, begin + body.index("["), begin + len(body), []
            continue
        key = _KEY.match(body)
        if key is None:
            continue
        value_at = key.end()
        value_start, value_end = _value_span(body, value_at)
        keys.append(
            KeyLine(
                key.group(1).strip('"'), begin + key.start(1), begin + value_start, begin + value_end, begin + len(body)
            )
        )
        open_value, depth = _opens(body[value_at:])
    found.append(Table(name, array, start, header_end, tuple(keys)))
    return found


def _header(body: str) -> tuple[str, bool] | None:
    """``[name]`` or ``[[name]]`` (a comment may follow): the name without spaces or quotes, and whether it is an
    array of tables."""
    line = body.strip()
    if not line.startswith("["):
        return None
    array = line.startswith("[[")
    close = line.find("]]" if array else "]")
    rest = line[close + 1 + array :].strip() if close != -1 else "x"
    if rest and not rest.startswith("#"):
        return None
    return re.sub(r"[ \t\"]", "", line[1 + array : close]), array


def _value_span(body: str, at: int) -> tuple[int, int]:
    """A one-line basic or literal string without escapes: inside its quotes; anything else: up to a comment."""
    quote = body[at : at + 1]
    if quote in ('"', "'") and not body.startswith(quote * 3, at):
        close = body.find(quote, at + 1)
        if close != -1 and "\\" not in body[at:close]:
            return at + 1, close
    end = len(body)
    comment = body.find("#", at)
    if comment != -1 and quote not in ('"', "'"):
        end = comment
    return at, max(at, len(body[:end].rstrip()))  # an empty value ends where it starts


def _opens(value: str) -> tuple[str | None, int]:
    """Whether a value goes on past its line: a multi-line string left open, or an array not closed."""
    for quotes in ('"""', "'''"):
        if value.startswith(quotes) and value.count(quotes) == 1:
            return quotes, 0
    if value.startswith("["):
        depth = _bracket_depth(value, 0)
        if depth > 0:
            return "]", depth
    return None, 0


def _continue(body: str, open_value: str, depth: int) -> tuple[str | None, int]:
    if open_value == "]":
        depth = _bracket_depth(body, depth)
        return ("]", depth) if depth > 0 else (None, 0)
    return (None, 0) if open_value in body else (open_value, 0)


def _bracket_depth(text: str, depth: int) -> int:
    """Brackets outside strings and comments, added to ``depth``."""
    quote = None
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
    return depth


def load_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, but a whole number too long to convert (``int`` of 5000 digits raises a bare
    ``ValueError``) is a ``TOMLDecodeError`` with its place, like every other invalid value."""
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:  # only int(): every syntax error is a TOMLDecodeError
        line, column = long_number_place(text)
        raise tomllib.TOMLDecodeError(f"Number too long (at line {line}, column {column})") from None
