"""Fixes inside a documentation code block: the format's own writer edits the block read as its own file, and
the edits stand only if they stay inside the block and the block still parses as YAML afterwards."""

from __future__ import annotations

from shmlint.model import BlockTarget, Edit, Workload
from shmlint.parsers.yamlnodes import YamlError, compose
from shmlint.source import SourceText, alone


def unwrapped(workload: Workload, target: BlockTarget, source: SourceText) -> tuple[Workload, SourceText]:
    """The workload with its format's own target, and the block alone (same offsets) for that format's writer, as
    it was read (an escaping backslash as the ``$`` it stands for)."""
    text = alone(source.text, target.start, target.end)
    if target.escapes:
        from shmlint.parsers.embedded.here_documents import as_passed  # a here-document's only

        text = as_passed(text, target.escapes)
    return workload._replace(target=target.inner), source.with_text(text)


def verified(edits: list[Edit], target: BlockTarget, block: SourceText) -> list[Edit]:
    """The edits, if each lies inside the block, touches none of its escapes, and the edited block still
    composes; none otherwise."""
    if not edits or any(not target.start <= e.start <= e.end <= target.end for e in edits):
        return []
    if any(e.start <= offset < e.end for e in edits for offset in target.escapes):
        return []
    text = block.text
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    try:
        compose(block.with_text(text))
    except YamlError:
        return []
    return edits
