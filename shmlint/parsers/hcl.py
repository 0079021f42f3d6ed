"""HCL (Terraform ``*.tf``) read into blocks, attributes and values with character offsets.

python-hcl2's Lark grammar does the parsing (imported only for ``.tf`` files); this module keeps what shmlint reads
of its tree: literal strings, numbers and booleans, objects, tuples, function calls and heredocs, each with its
start and end offset. Anything Terraform computes at plan time (``var.x``, ``local.y``, ``"${...}"``, operators,
``for`` expressions) is an ``UNKNOWN`` value: its meaning is never guessed, and it never raises.
"""

from __future__ import annotations

import re
from typing import Any

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_DECIMAL_CHARS
from shmlint.parsers.work import TOO_COMPLEX

#: deeper nesting than any real configuration; a hostile file beyond it is refused rather than recursed into
MAX_DEPTH = 64
#: the most tokens Lark's LALR parser reads from one file: about 180 KB of ordinary Terraform, 3 to 5 s and
#: 100 MB on a busy 2-core machine; a file beyond it is reported, never parsed to the end (9.5 MB took 5 min and
#: 4.3 GB, 200 KB of ``1+1+...`` 10 s)
MAX_TOKENS = 50_000

STRING = "string"
NUMBER = "number"
BOOL = "bool"
NULL = "null"
OBJECT = "object"
TUPLE = "tuple"
CALL = "call"
HEREDOC = "heredoc"
UNKNOWN = "unknown"

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_ESCAPE = LazyRegex(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.DOTALL)


class Value(NamedTuple):
    """An expression: ``kind`` says which; ``value`` is the decoded string, number or boolean, the function's name
    for a call, the body for a heredoc; ``items`` the entries of an object, tuple or call."""

    kind: str
    value: object
    start: int
    end: int
    items: tuple[Item, ...] = ()
    body_start: int = 0  # a heredoc's first body character


class Item(NamedTuple):
    """An object entry (``key`` set, None for a computed key) or a tuple element or call argument (``key`` None)."""

    key: str | None
    start: int  # the key's start for an entry, the value's for an element
    value: Value


class Attribute(NamedTuple):
    name: str
    start: int
    end: int
    value: Value


class Block(NamedTuple):
    """``type "label" ... { body }``; ``close`` is the offset of the closing brace."""

    type: str
    labels: tuple[str, ...]
    attributes: dict[str, Attribute]
    blocks: tuple[Block, ...]
    start: int
    end: int
    close: int

    def attribute(self, name: str) -> Value | None:
        found = self.attributes.get(name)
        return found.value if found is not None else None

    def children(self, type: str) -> tuple[Block, ...]:
        return tuple(block for block in self.blocks if block.type == type)

    def child(self, *path: str) -> Block | None:
        """The first nested block along ``path`` (``spec``, ``template``, ``spec``)."""
        block: Block | None = self
        for type in path:
            block = next(iter(block.children(type)), None) if block is not None else None
        return block


class HclError(Exception):
    """The text is not HCL; where, 1-based."""

    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset


def parse(text: str) -> Block:
    """The whole file as a body without a header (``type`` empty); raises ``HclError``, also (``TOO_COMPLEX``)
    for a file of more than ``MAX_TOKENS`` tokens."""
    from hcl2.parser import parser
    from lark import Token, Tree
    from lark.exceptions import LarkError, UnexpectedInput

    try:
        interactive = parser().parse_interactive(text + "\n")  # the newline hcl2.parses_to_tree adds (lark #237)
        last = None
        for count, last in enumerate(interactive.iter_parse(), 1):  # the tokens Lark reads, one at a time
            if count > MAX_TOKENS:
                where = (last.line or 1, last.column or 1, last.start_pos or 0)
                raise HclError(f"{TOO_COMPLEX} (more than {MAX_TOKENS:,} tokens)", *where)
        tree = interactive.feed_eof(last)  # an error at the end is placed after the last token, as parse() does
    except UnexpectedInput as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
        offset = max(0, min(getattr(exc, "pos_in_stream", 0) or 0, len(text)))
        raise HclError(f"invalid HCL: {first}", exc.line or 1, exc.column or 1, offset) from None
    except (LarkError, RecursionError) as exc:
        raise HclError(f"invalid HCL: {type(exc).__name__}", 1, 1, 0) from None
    reader = _Reader(text, Tree, Token)
    body = next(child for child in tree.children if isinstance(child, Tree))
    attributes, blocks = reader.body(body, 0)
    return Block("", (), attributes, blocks, 0, len(text), len(text))


class _Reader:
    """Lark tree -> ``Block``/``Value``; the Lark classes are passed in so that this module imports Lark lazily."""

    def __init__(self, text: str, tree_type: Any, token_type: Any) -> None:
        self.text, self.Tree, self.Token = text, tree_type, token_type

    def trees(self, node: Any) -> list[Any]:
        return [child for child in node.children if isinstance(child, self.Tree)]

    def body(self, node: Any, depth: int) -> tuple[dict[str, Attribute], tuple[Block, ...]]:
        if depth > MAX_DEPTH:
            raise HclError(f"too deeply nested (more than {MAX_DEPTH} levels)", 1, 1, 0)
        attributes: dict[str, Attribute] = {}
        blocks: list[Block] = []
        for child in self.trees(node):
            if child.data == "attribute":
                name_node, *_, expression = child.children
                name = self.name(name_node)
                value = self.value(expression, depth + 1)
                attributes[name] = Attribute(name, child.meta.start_pos, child.meta.end_pos, value)
            elif child.data == "block":
                blocks.append(self.block(child, depth + 1))
        return attributes, tuple(blocks)

    def block(self, node: Any, depth: int) -> Block:
        parts = [c for c in node.children if isinstance(c, self.Tree) and c.data != "new_line_or_comment"]
        header, body = parts[:-1], parts[-1]
        labels = tuple(self.label(part) for part in header[1:])
        close = next(c.start_pos for c in reversed(node.children) if isinstance(c, self.Token) and c.type == "RBRACE")
        attributes, blocks = self.body(body, depth)
        meta = node.meta
        return Block(self.name(header[0]), labels, attributes, blocks, meta.start_pos, meta.end_pos, close)

    def name(self, node: Any) -> str:
        token = next(c for c in _leaves(node, self.Tree))
        return str(token)

    def label(self, node: Any) -> str:
        if node.data == "string":
            return "".join(str(token) for token in _leaves(node, self.Tree) if token.type == "STRING_CHARS")
        return self.name(node)

    def value(self, node: Any, depth: int) -> Value:
        if depth > MAX_DEPTH:
            raise HclError(f"too deeply nested (more than {MAX_DEPTH} levels)", 1, 1, 0)
        meta = node.meta
        start, end = meta.start_pos, meta.end_pos
        data = node.data
        if data == "expr_term":
            inner = self.trees(node)
            if len(inner) == 1 and len(node.children) == 1:
                return self.value(inner[0], depth + 1)
            if inner and str(node.children[0]) == "(":
                return self.value(inner[-1], depth + 1)._replace(start=start, end=end)
            return Value(UNKNOWN, None, start, end)
        if data == "string":
            return self.string(node, start, end)
        if data in ("int_lit", "float_lit"):
            literal = str(node.children[0])
            if len(literal) > MAX_DECIMAL_CHARS:  # int() of thousands of digits raises; no setting is that long
                raise HclError(f"number longer than {MAX_DECIMAL_CHARS} characters", meta.line, meta.column, start)
            number: object = int(literal) if data == "int_lit" else float(literal)
            return Value(NUMBER, number, start, end)
        if data == "unary_op" and str(node.children[0]) == "-":
            operand = self.value(node.children[1], depth + 1)
            if operand.kind == NUMBER and isinstance(operand.value, int | float):
                return Value(NUMBER, -operand.value, start, end)
            return Value(UNKNOWN, None, start, end)
        if data == "literal_value":
            word = str(node.children[0])
            return Value(NULL, None, start, end) if word == "null" else Value(BOOL, word == "true", start, end)
        if data == "object":
            return Value(OBJECT, None, start, end, tuple(self.entries(node, depth)))
        if data == "tuple":
            elements = (self.value(c, depth + 1) for c in self.trees(node) if c.data != "new_line_or_comment")
            return Value(TUPLE, None, start, end, tuple(Item(None, e.start, e) for e in elements))
        if data == "function_call":
            name = self.name(node.children[0])
            arguments = next((c for c in self.trees(node) if c.data == "arguments"), None)
            args = [c for c in self.trees(arguments) if c.data != "new_line_or_comment"] if arguments else []
            values = (self.value(a, depth + 1) for a in args)
            return Value(CALL, name, start, end, tuple(Item(None, v.start, v) for v in values))
        if data in ("heredoc_template", "heredoc_template_trim"):
            return self.heredoc(node, start, end)
        return Value(UNKNOWN, None, start, end)

    def entries(self, node: Any, depth: int) -> list[Item]:
        found = []
        for element in self.trees(node):
            if element.data != "object_elem":
                continue
            key_node, *_, expression = element.children
            key = self.value(self.trees(key_node)[0], depth + 1) if self.trees(key_node) else None
            if key is not None and key.kind == UNKNOWN and self.text[key.start : key.end].isidentifier():
                name: str | None = self.text[key.start : key.end]  # a bare identifier key: ``name = "x"``
            else:
                name = key.value if key is not None and key.kind == STRING else None  # type: ignore[assignment]
            found.append(Item(name, element.meta.start_pos, self.value(expression, depth + 1)))
        return found

    def string(self, node: Any, start: int, end: int) -> Value:
        parts = [c for c in node.children if isinstance(c, self.Tree)]
        if any(self.trees(part) for part in parts):  # an interpolation or a directive: known at plan time only
            return Value(UNKNOWN, None, start, end)
        raw = "".join(str(token) for part in parts for token in part.children)
        return Value(STRING, _unescape(raw), start, end)

    def heredoc(self, node: Any, start: int, end: int) -> Value:
        raw = str(node.children[0])
        first_break = raw.index("\n") + 1
        body = raw[first_break:].rstrip("\r\n")
        body = body[: body.rfind("\n") + 1] if "\n" in body else ""
        return Value(HEREDOC, body, start, end, body_start=start + first_break)  # a template: its reader decides


def _leaves(node: Any, tree_type: Any) -> list[Any]:
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, tree_type):
            stack.extend(reversed(current.children))
        else:
            found.append(current)
    return found


def _unescape(raw: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "uU" and len(code) > 1:
            return chr(min(int(code[1:], 16), 0x10FFFF))
        return _ESCAPES.get(code, "\\" + code)

    return _ESCAPE.sub(one, raw) if "\\" in raw else raw


def string(value: Value | None) -> str | None:
    """A literal string, or a number written for one (``size_limit = 8`` is read as ``"8"``)."""
    if value is None:
        return None
    if value.kind == STRING:
        return value.value  # type: ignore[return-value]
    if value.kind == NUMBER and not isinstance(value.value, bool):
        return str(value.value)
    return None


def entry(value: Value | None, key: str) -> Value | None:
    """An object's entry by key; None when the value is not an object or has no such key."""
    if value is None or value.kind != OBJECT:
        return None
    return next((item.value for item in value.items if item.key == key), None)


def entry_item(value: Value | None, key: str) -> Item | None:
    if value is None or value.kind != OBJECT:
        return None
    return next((item for item in value.items if item.key == key), None)
