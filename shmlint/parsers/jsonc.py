"""JSON with comments and trailing commas (JSONC, as VS Code and the dev container CLI read it), with offsets.

Every value keeps where it is written, so a finding can point inside a JSON string and a fix can insert text next
to an array item. No library was used: ``json5``, ``pyjson5``, ``commentjson`` and ``jsonc-parser`` return plain
values without positions, and ``json-five`` (token positions) reads JSON5, a superset that accepts single quotes and
bare keys the dev container CLI rejects, and adds its parser generator to start-up. The reader is iterative (an
explicit stack: nesting depth costs memory, never Python's recursion limit) and reads each character once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_DECIMAL_CHARS
from shmlint.parsers.work import TOO_COMPLEX, beyond
from shmlint.source import SourceText


class JsoncError(Exception):
    """Not JSONC; ``offset`` is where the reader stopped."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message, self.offset = message, offset


class JString(NamedTuple):
    """A string: its value, and the offsets of its quotes (``start`` at the opening one, ``end`` after the
    closing one)."""

    value: str
    start: int
    end: int

    def exact(self, text: str) -> bool:
        """The value's characters are the source characters between the quotes (no escapes)."""
        return text[self.start + 1 : self.end - 1] == self.value


class JScalar(NamedTuple):
    """A number, ``true``, ``false`` or ``null``."""

    value: bool | int | float | None
    start: int
    end: int


class JArray(NamedTuple):
    items: tuple[JNode, ...]
    start: int  # the ``[``
    end: int  # after the ``]``


class JObject(NamedTuple):
    members: tuple[tuple[JString, JNode], ...]
    start: int  # the ``{``
    end: int  # after the ``}``

    def get(self, key: str) -> JNode | None:
        """The value of a key (the last one when it is repeated, as the dev container CLI reads it)."""
        return next((value for name, value in reversed(self.members) if name.value == key), None)

    def key(self, key: str) -> JString | None:
        return next((name for name, _ in reversed(self.members) if name.value == key), None)


JNode = JString | JScalar | JArray | JObject

_SPACE_AND_COMMENTS = LazyRegex(r"(?:\s+|//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)*")
_STRING = LazyRegex(r'"(?:[^"\\\n]|\\.)*"')
_DECODER = json.JSONDecoder(strict=False)  # a tab inside a string is read, as VS Code reads it
#: the most tokens (``parsers.work``) one dev container file may hold: about 1 MB of ordinary JSONC, a few
#: seconds; real ones are a few KB
MAX_TOKENS = 200_000
_LITERAL = LazyRegex(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null", re.ASCII)


def syntax_error(source: SourceText, read: Callable[[str], object]) -> str | None:
    """Why ``read`` refuses the file's text, where (the fixer's guard against an edit that breaks it); None when
    it takes it."""
    try:
        read(source.text)
    except JsoncError as exc:
        line, column = source.position(exc.offset)
        return f"line {line}, column {column}: {exc.message}"
    return None


def parse(text: str) -> JNode:
    """The one value of a JSONC document; raises ``JsoncError`` (also for more than ``MAX_TOKENS`` tokens)."""
    too_many = beyond(text, MAX_TOKENS)
    if too_many is not None:  # 9.5 MB took 22-34 s and 1.1 GB
        raise JsoncError(f"{TOO_COMPLEX} (more than {MAX_TOKENS:,} tokens)", too_many)
    return _Reader(text).document()


class _Reader:
    """A value is read into a stack of open containers; a container closes into its parent."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        match = _SPACE_AND_COMMENTS.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos
        if self.text.startswith("/*", self.pos):
            raise JsoncError("unterminated comment", self.pos)

    def document(self) -> JNode:
        # each open container: [start, "[" or "{", items or members, the key waiting for its value]
        stack: list[tuple[int, str, list, list[JString]]] = []
        while True:
            self.skip()
            value = self._value_or_open(stack)
            while value is not None:
                if not stack:
                    self.skip()
                    if self.pos != len(self.text):
                        raise JsoncError("unexpected text after the JSON value", self.pos)
                    return value
                _, kind, children, key = stack[-1]
                children.append((key.pop(), value) if kind == "{" else value)
                value = self._after_child(stack)

    def _value_or_open(self, stack: list[tuple[int, str, list, list[JString]]]) -> JNode | None:
        """A scalar read, or None when a container was opened (and perhaps closed at once: then it is returned)."""
        text, pos = self.text, self.pos
        char = text[pos : pos + 1]
        if char in ("[", "{"):
            self.pos += 1
            stack.append((pos, char, [], []))
            return self._first_child(stack)
        if char == '"':
            return self._string()
        match = _LITERAL.match(text, pos)
        if not match:
            raise JsoncError("expected a value" if char else "unexpected end of the file", pos)
        if match.end() - pos > MAX_DECIMAL_CHARS:  # int() of thousands of digits raises; no setting is that long
            raise JsoncError(f"number longer than {MAX_DECIMAL_CHARS} characters", pos)
        self.pos = match.end()
        return JScalar(json.loads(match.group()), pos, match.end())

    def _string(self) -> JString:
        match = _STRING.match(self.text, self.pos)
        if not match:
            raise JsoncError("unterminated string", self.pos)
        start, self.pos = self.pos, match.end()
        try:
            return JString(_DECODER.decode(match.group()), start, match.end())
        except ValueError:
            raise JsoncError("invalid escape in a string", start) from None

    def _key(self, stack: list[tuple[int, str, list, list[JString]]]) -> None:
        """An object's key and its colon; the value follows."""
        if self.text[self.pos : self.pos + 1] != '"':
            raise JsoncError("expected a quoted key", self.pos)
        stack[-1][3].append(self._string())
        self.skip()
        if self.text[self.pos : self.pos + 1] != ":":
            raise JsoncError("expected ':' after the key", self.pos)
        self.pos += 1

    def _first_child(self, stack: list[tuple[int, str, list, list[JString]]]) -> JNode | None:
        self.skip()
        closing = "]" if stack[-1][1] == "[" else "}"
        if self.text[self.pos : self.pos + 1] == closing:
            self.pos += 1
            return self._close(stack)
        if closing == "}":
            self._key(stack)
        return None

    def _after_child(self, stack: list[tuple[int, str, list, list[JString]]]) -> JNode | None:
        """After a member: a comma (then a member, or the closing bracket: trailing commas are allowed) or the
        closing bracket. Returns the container when it closed, None when the next member follows."""
        self.skip()
        closing = "]" if stack[-1][1] == "[" else "}"
        char = self.text[self.pos : self.pos + 1]
        if char == ",":
            self.pos += 1
            self.skip()
            char = self.text[self.pos : self.pos + 1]
            if char != closing:
                if closing == "}":
                    self._key(stack)
                return None
        if char != closing:
            raise JsoncError(f"expected ',' or '{closing}'", self.pos)
        self.pos += 1
        return self._close(stack)

    def _close(self, stack: list[tuple[int, str, list, list[JString]]]) -> JNode:
        start, kind, children, _ = stack.pop()
        if kind == "[":
            return JArray(tuple(children), start, self.pos)
        return JObject(tuple(children), start, self.pos)
