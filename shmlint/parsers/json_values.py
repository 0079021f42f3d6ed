"""JSON read into the same positioned values as HCL (``shmlint.parsers.hcl.Value``), so a container definition
written as a heredoc JSON string is judged by the same code as one written with ``jsonencode({...})``.

The standard ``json`` module gives no positions; this reader walks the text itself, with the standard library's
string scanner for string literals, and refuses nesting deeper than any real document.

A Terraform heredoc is a template (``parse_template_json``): ``${...}`` and ``%{...}`` may stand anywhere. A string
holding one is an ``UNKNOWN`` value (Terraform fills it at plan time) and the JSON around it is read; one standing
where JSON needs a value (``"memory": ${var.memory}``) is ``UNKNOWN`` too, and listed in ``computed`` so the reader
can say what it could not know. ``%{ if }`` and ``%{ for }`` directives between values are read as if each ``if``
were taken (its ``else`` left out) and each ``for`` body written once; ``directives`` counts them.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_DECIMAL_CHARS
from shmlint.parsers.hcl import BOOL, MAX_DEPTH, NULL, NUMBER, OBJECT, STRING, TUPLE, UNKNOWN, Item, Value

_NUMBER = LazyRegex(r"-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?", re.ASCII)
_SPACE = LazyRegex(r"[ \t\r\n]*")
_WORDS = {"true": (BOOL, True), "false": (BOOL, False), "null": (NULL, None)}
#: a template sequence's opening; ``$${`` and ``%%{`` are its escapes, literal text
_OPENINGS = ("${", "%{")
#: what can end a string or start something inside it; the characters between are skipped in one search
_STRING_STOP = LazyRegex(r'["\\$%]')
#: the same between values: where a string or a template sequence may start
_OUTSIDE_STOP = LazyRegex(r'["$%]')


class JsonError(Exception):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message, self.offset = message, offset


def parse_json(text: str, base: int = 0) -> Value:
    """The JSON document in ``text``, offsets shifted by ``base`` (where ``text`` starts in the file)."""
    return _document(_Reader(text, base))


class TemplateJson(NamedTuple):
    """A JSON template read: the document, the values Terraform computes where JSON needs a value (not a string),
    and how many ``%{ }`` directives stood between values."""

    value: Value
    computed: tuple[Value, ...]
    directives: int


def parse_template_json(text: str, base: int = 0) -> TemplateJson:
    """A Terraform heredoc's JSON with its template sequences (see the module docstring); raises ``JsonError``."""
    masked, directives = _mask_directives(text, base)
    reader = _Reader(masked, base, template=True)
    reader.lenient = directives > 0
    return TemplateJson(_document(reader), tuple(reader.computed), directives)


def _document(reader: _Reader) -> Value:
    text = reader.text
    value, end = reader.value(_skip(text, 0), 0)
    if _skip(text, end) != len(text):
        raise JsonError("extra data after the JSON document", reader.base + end)
    return value


def _opens_template(text: str, index: int) -> bool:
    """``${`` or ``%{`` at ``index``, not the second half of an escape (``$${``, ``%%{``)."""
    return text.startswith(_OPENINGS, index) and not (index > 0 and text[index - 1] == text[index])


def _template_end(text: str, index: int, base: int) -> int:
    """The offset after the ``}`` that closes the template sequence opening at ``index``: braces nest, and a
    quoted string inside it may hold braces and template sequences of its own. One pass, no recursion."""
    stack = ["{"]
    position = index + 2
    while position < len(text):
        char = text[position]
        if stack[-1] == '"':
            if char == "\\":
                position += 2
                continue
            if char == '"':
                stack.pop()
            elif _opens_template(text, position):
                stack.append("{")
                position += 1
        elif char == '"':
            stack.append('"')
        elif char == "{":
            stack.append("{")
        elif char == "}":
            stack.pop()
            if not stack:
                return position + 1
        position += 1
    raise JsonError("invalid template: a '${' or '%{' is never closed", base + index)


def _string_end(text: str, index: int, base: int) -> tuple[int, bool]:
    """Where the JSON string opening at ``index`` ends (after its quote), and whether it holds a template
    sequence (whose own quotes do not end it)."""
    position, templated = index + 1, False
    while (stop := _STRING_STOP.search(text, position)) is not None:
        position = stop.start()
        char = text[position]
        if char == "\\":
            position += 2
        elif char == '"':
            return position + 1, templated
        elif _opens_template(text, position):
            position, templated = _template_end(text, position, base), True
        else:
            position += 1
    raise JsonError("invalid JSON: unterminated string", base + index)


def _mask_directives(text: str, base: int) -> tuple[str, int]:
    """``text`` with each ``%{ }`` directive between JSON values blanked, and each ``%{ else }`` branch with it
    (same length: offsets hold); strings and ``${ }`` are left to the reader. Also the number of directives."""
    if "%{" not in text:
        return text, 0
    out = list(text)
    stack: list[str] = []  # "if", "for", or "else" while in an else branch
    position = count = 0
    while position < len(text):
        start = position
        if text[position] == '"':
            position, _ = _string_end(text, position, base)
        elif _opens_template(text, position):
            position = _template_end(text, position, base)
            if text[start] == "%":
                count += 1
                word = text[start + 2 : position - 1].strip(" \t\r\n~").split(maxsplit=1)
                keyword = word[0] if word else ""
                if keyword in ("if", "for"):
                    stack.append(keyword)
                elif keyword == "else" and stack:
                    stack[-1] = "else"
                elif keyword in ("endif", "endfor") and stack:
                    stack.pop()
                _blank(out, start, position)
                continue
        else:
            stop = _OUTSIDE_STOP.search(text, position + 1)
            position = stop.start() if stop is not None else len(text)
        if "else" in stack:
            _blank(out, start, position)
    return "".join(out), count


def _blank(out: list[str], start: int, end: int) -> None:
    for index in range(start, end):
        if out[index] not in "\r\n":
            out[index] = " "


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


class _Reader:
    def __init__(self, text: str, base: int, *, template: bool = False) -> None:
        self.text, self.base, self.template = text, base, template
        self.lenient = False  # directives were blanked: a comma may stand before the closing bracket
        self.computed: list[Value] = []

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
            kind = STRING if decoded is not None else UNKNOWN
            return Value(kind, decoded, self.base + index, self.base + end), end
        if self.template and _opens_template(text, index):
            end = _template_end(text, index, self.base)
            computed = Value(UNKNOWN, None, self.base + index, self.base + end)
            self.computed.append(computed)
            return computed, end
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

    def string(self, index: int) -> tuple[str | None, int]:
        """The decoded string and the offset after it; None for a template's string, known at plan time only."""
        if self.template:
            end, templated = _string_end(self.text, index, self.base)
            if templated:
                return None, end
        try:
            decoded, end = scanstring(self.text, index + 1)
            if self.template:  # Terraform writes the escapes ``$${`` and ``%%{`` as ``${`` and ``%{``
                decoded = decoded.replace("$${", "${").replace("%%{", "%{")
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
                if self.lenient and self.text[position : position + 1] == closing:
                    break  # the comma a ``%{ for }`` body or an ``%{ if }`` branch writes before the last value
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
