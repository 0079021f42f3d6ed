"""JSON read into the same positioned values as HCL (``shmlint.parsers.hcl.Value``), so a container definition
written as a heredoc JSON string is judged by the same code as one written with ``jsonencode({...})``.

The standard ``json`` module gives no positions; this reader walks the text itself, with the standard library's
string scanner for string literals, and refuses nesting deeper than any real document.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]

from shmlint.lazy_regex import LazyRegex
from shmlint.numbers import MAX_DECIMAL_CHARS
from shmlint.parsers.hcl import BOOL, MAX_DEPTH, NULL, NUMBER, OBJECT, STRING, TUPLE, Item, Value

_NUMBER = LazyRegex(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?", re.ASCII)
_SPACE = LazyRegex(r"[ \t\r\n]*")
_WORDS = {"true": (BOOL, True), "false": (BOOL, False), "null": (NULL, None)}


class JsonError(Exception):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message, self.offset = message, offset


def parse_json(text: str, base: int = 0) -> Value:
    """The JSON document in ``text``, offsets shifted by ``base`` (where ``text`` starts in the file)."""
    reader = _Reader(text, base)
    value, end = reader.value(_skip(text, 0), 0)
    if _skip(text, end) != len(text):
        raise JsonError("extra data after the JSON document", base + end)
    return value


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


class _Reader:
    def __init__(self, text: str, base: int) -> None:
        self.text, self.base = text, base

    def fail(self, why: str, index: int) -> JsonError:
        return JsonError(f"invalid JSON: {why}", self.base + index)

    def value(self, index: int, depth: int) -> tuple[Value, int]:
        if depth > MAX_DEPTH:
            raise self.fail("nested too deeply", index)
        text = self.text
        char = text[index : index + 1]
        if char == "{":
            return self.container(index, depth, "}", OBJECT)
        if char == "[":
            return self.container(index, depth, "]", TUPLE)
        if char == '"':
            decoded, end = self.string(index)
            return Value(STRING, decoded, self.base + index, self.base + end), end
        for word, (kind, meaning) in _WORDS.items():
            if text.startswith(word, index):
                return Value(kind, meaning, self.base + index, self.base + index + len(word)), index + len(word)
        match = _NUMBER.match(text, index)
        if match is None:
            raise self.fail("expected a value", index)
        literal = match.group(0)
        if len(literal) > MAX_DECIMAL_CHARS:  # int() of thousands of digits raises; no setting is that long
            raise self.fail(f"number longer than {MAX_DECIMAL_CHARS} characters", index)
        number = float(literal) if match.group(1) or match.group(2) else int(literal)
        return Value(NUMBER, number, self.base + index, self.base + match.end()), match.end()

    def string(self, index: int) -> tuple[str, int]:
        try:
            decoded, end = scanstring(self.text, index + 1)
            return str(decoded), int(end)
        except json.JSONDecodeError as exc:
            raise self.fail(exc.msg, exc.pos) from None

    def container(self, index: int, depth: int, closing: str, kind: str) -> tuple[Value, int]:
        items: list[Item] = []
        position = _skip(self.text, index + 1)
        while self.text[position : position + 1] != closing:
            if items:
                if self.text[position : position + 1] != ",":
                    raise self.fail(f"expected ',' or '{closing}'", position)
                position = _skip(self.text, position + 1)
            start = position
            key = None
            if kind == OBJECT:
                if self.text[position : position + 1] != '"':
                    raise self.fail("expected a key in double quotes", position)
                key, position = self.string(position)
                position = _skip(self.text, position)
                if self.text[position : position + 1] != ":":
                    raise self.fail("expected ':'", position)
                position = _skip(self.text, position + 1)
            value, position = self.value(position, depth + 1)
            items.append(Item(key, self.base + start, value))
            position = _skip(self.text, position)
            if position >= len(self.text):
                raise self.fail(f"missing '{closing}'", position)
        end = position + 1
        return Value(kind, None, self.base + index, self.base + end, tuple(items)), end
