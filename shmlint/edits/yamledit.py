"""Minimal text edits on YAML: add a key to a mapping, an item to a sequence, replace a scalar.

Nothing is re-serialised. New lines copy the indentation of their siblings (2 or 4 spaces, indented or flush
sequences) and the file's line break; flow collections get flow-style text. Every function returns ``Edit``
values and leaves the file untouched.
"""

from __future__ import annotations

from shmlint.model import Edit
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Node, ScalarNode, SequenceNode
from shmlint.source import SourceText


class Block(NamedTuple):
    """A nested value as ordered pairs; rendered as block or flow text depending on where it goes."""

    pairs: tuple[tuple[str, object], ...]

    def flow(self) -> str:
        inner = ", ".join(f"{key}: {_flow(value)}" for key, value in self.pairs)
        return "{" + inner + "}"

    def lines(self, indent: int, step: int) -> list[tuple[int, str]]:
        """(column, text) lines with the first pair at ``indent`` and nested mappings ``step`` deeper."""
        result: list[tuple[int, str]] = []
        for key, value in self.pairs:
            if isinstance(value, Block):
                result.append((indent, f"{key}:"))
                result.extend(value.lines(indent + step, step))
            else:
                result.append((indent, f"{key}: {value}"))
        return result


def _flow(value: object) -> str:
    return value.flow() if isinstance(value, Block) else str(value)


def is_flow(node: Node) -> bool:
    return bool(getattr(node, "flow_style", False))


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _after_line(text: str, offset: int) -> int:
    """The start of the line after the one holding ``offset`` (the end of the text on the last line)."""
    position = text.find("\n", offset)
    return len(text) if position == -1 else position + 1


def _last_content_line(text: str, end: int) -> int:
    """Back from ``end`` over blank and comment-only lines: an offset on the last line holding content."""
    while end > 0:
        start = _line_start(text, end - 1)
        line = text[start:end].strip()
        if line and not line.startswith("#"):
            return start
        end = start
    return 0


def insertion_point(source: SourceText, collection: MappingNode | SequenceNode) -> int:
    """Where new lines join a block collection: the start of the line after its last own text.

    Block collections end where the next token starts (after trailing comments), so the walk descends to the last
    scalar. Two cases insert before the last entry instead of after it: a block scalar (``|+`` keeps trailing blank
    lines, and at the end of a file without a line break a new line would change its value) and an alias written
    at the end (its node lives at the anchor, elsewhere in the file).
    """
    text = source.text
    node: Node = collection
    while isinstance(node, (MappingNode, SequenceNode)) and not is_flow(node) and node.value:
        if isinstance(node, MappingNode):
            key, child = node.value[-1]
            floor = key.end_mark.index
        else:
            child = node.value[-1]
            floor = node.value[-2].end_mark.index if len(node.value) > 1 else node.start_mark.index
        if child.start_mark.index < floor:  # an alias
            return _after_line(text, _last_content_line(text, collection.end_mark.index))
        node = child
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        last = collection.value[-1]
        first = last[0] if isinstance(collection, MappingNode) else last
        return _line_start(text, first.start_mark.index)
    return _after_line(text, node.end_mark.index)


def _join(source: SourceText, at: int, lines: list[tuple[int, str]]) -> Edit:
    newline = source.newline
    body = "".join(" " * column + text + newline for column, text in lines)
    if at == len(source.text) and source.text and not source.text.endswith("\n"):
        body = newline + body[: -len(newline)]
    return Edit(at, at, body)


def column_of(node: Node) -> int:
    column: int = node.start_mark.column
    return column


def indent_step(mapping: MappingNode) -> int:
    """The nesting step the file uses, read from the first nested block mapping found; 2 when none (looked for
    among the first few hundred nodes: a pod with thousands of flow-style containers must not cost a full walk)."""
    stack: list[Node] = [mapping]
    seen: set[int] = set()
    while stack and len(seen) < 500:
        node = stack.pop()
        if id(node) in seen or is_flow(node):
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(value, MappingNode) and not is_flow(value) and value.value:
                    step = column_of(value.value[0][0]) - column_of(key)
                    if step > 0:
                        return step
                stack.append(value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return 2


def sequence_offset(source: SourceText, mapping: MappingNode) -> int:
    """How far a block sequence's dash sits right of its key in this mapping's file (0 flush, 2 indented)."""
    for key, value in mapping.value:
        if isinstance(value, SequenceNode) and not is_flow(value) and value.value:
            return max(0, dash_column(source, value.value[0]) - column_of(key))
    for _key, value in mapping.value:  # look one level down (a container's lists) before giving up
        if isinstance(value, SequenceNode) and value.value and isinstance(value.value[0], MappingNode):
            return sequence_offset(source, value.value[0])
    return 2


def dash_column(source: SourceText, item: Node) -> int:
    """The column of the ``-`` that introduces a block sequence item."""
    line_start = source.text.rfind("\n", 0, item.start_mark.index) + 1
    dash = source.text.rfind("-", line_start, item.start_mark.index)
    return dash - line_start if dash != -1 else max(0, column_of(item) - 2)


def add_key(source: SourceText, mapping: MappingNode, key: str, value: object, step: int, seq_offset: int) -> Edit:
    """Add ``key: value`` at the end of a mapping; value may be a scalar text, a Block or a list of Blocks."""
    if is_flow(mapping):
        close = mapping.end_mark.index - 1
        separator = ", " if mapping.value else ""
        return Edit(close, close, f"{separator}{key}: {_flow_value(value)}")
    column = column_of(mapping.value[0][0])
    lines: list[tuple[int, str]]
    if isinstance(value, list):
        lines = [(column, f"{key}:")]
        for item in value:
            lines.extend(_item_lines(item, column + seq_offset, 2, step))
    elif isinstance(value, Block):
        lines = [(column, f"{key}:"), *value.lines(column + step, step)]
    else:
        lines = [(column, f"{key}: {value}")]
    return _join(source, insertion_point(source, mapping), lines)


def _flow_value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _flow(value)


def _item_lines(item: Block, dash: int, gap: int, step: int) -> list[tuple[int, str]]:
    lines = item.lines(dash + gap, step)
    first_column, first_text = lines[0]
    return [(dash, "-" + " " * (first_column - dash - 1) + first_text), *lines[1:]]


def append_item(source: SourceText, sequence: SequenceNode, item: Block, step: int) -> Edit:
    """Add an item at the end of a sequence, shaped like the last item."""
    if is_flow(sequence):
        close = sequence.end_mark.index - 1
        separator = ", " if sequence.value else ""
        return Edit(close, close, f"{separator}{item.flow()}")
    last = sequence.value[-1]
    dash = dash_column(source, last)
    gap = column_of(last) - dash if isinstance(last, MappingNode) else 2
    return _join(source, insertion_point(source, sequence), _item_lines(item, dash, max(gap, 2), step))


def replace_node(node: Node, text: str) -> Edit:
    return Edit(node.start_mark.index, node.end_mark.index, text)


def replace_null(source: SourceText, key: ScalarNode, value: Node, new: object) -> Edit:
    """``volumes:`` with nothing after it: write the new value in flow style on the key's line."""
    start = key.end_mark.index
    colon = source.text.find(":", start)
    end = value.end_mark.index if value.end_mark.index > colon else colon + 1
    return Edit(colon + 1, end, f" {_flow_value(new)}")


def append_scalar(source: SourceText, sequence: SequenceNode, text: str) -> Edit:
    """Add a scalar item (written as given) at the end of a non-empty or flow sequence, its dash under the last's."""
    if is_flow(sequence):
        close = sequence.end_mark.index - 1
        return Edit(close, close, f"{', ' if sequence.value else ''}{text}")
    return _join(source, insertion_point(source, sequence), [(dash_column(source, sequence.value[-1]), f"- {text}")])
