"""Minimal text edits on flow mappings as JSON writes them: a member added after the last one, laid out like it.

JSON files and flow-style YAML are edited here; a quoted key is valid in both. A mapping written one member per
line gets the new member on a line of its own, indented like the last one; a one-line mapping gets it inline.
"""

from __future__ import annotations

import json

from shmlint.model import Edit
from shmlint.parsers.yamlnodes import MappingNode
from shmlint.source import SourceText


def add_member(source: SourceText, mapping: MappingNode, key: str, value: str) -> Edit:
    """Add ``"key": value`` (``value`` is JSON text) at the end of a flow mapping."""
    member = f"{json.dumps(key)}: {value}"
    if not mapping.value:
        close = mapping.end_mark.index - 1
        return Edit(close, close, member)
    last_key, last_value = mapping.value[-1]
    after = last_value.end_mark.index
    if last_key.start_mark.line == mapping.start_mark.line:
        return Edit(after, after, f", {member}")
    text = source.text
    line_start = text.rfind("\n", 0, last_key.start_mark.index) + 1
    indent = text[line_start : last_key.start_mark.index]
    if indent.strip():  # another member shares the line: keep to one line
        return Edit(after, after, f", {member}")
    return Edit(after, after, f",{source.newline}{indent}{member}")
