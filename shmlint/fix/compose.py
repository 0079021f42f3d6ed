"""Fixes for compose services: a service-level ``shm_size``, sizes on tmpfs mounts, respelled sizes."""

from __future__ import annotations

from shmlint.extract.compose import ServiceTarget
from shmlint.fix import yamledit
from shmlint.fix.yamledit import Block
from shmlint.model import Edit, Fix, FixAction, ShmSource, Workload
from shmlint.parsers.yamlnodes import MappingNode, ScalarNode, YamlError, compose
from shmlint.sizes import format_compose, format_docker
from shmlint.source import SourceText


def _quoted(size: int) -> str:
    return f'"{format_compose(size)}"'


def _add_shm_size(target: ServiceTarget, source: SourceText, size: int) -> list[Edit]:
    entry = f"shm_size: {_quoted(size)}"
    if target.flow:
        return [Edit(target.insert_at, target.insert_at, entry if target.empty else f", {entry}")]
    return [Edit(target.insert_at, target.insert_at, f"{source.newline}{' ' * target.indent}{entry}")]


def _size_tmpfs(source: SourceText, shm: ShmSource, size: int) -> list[Edit]:
    """``tmpfs: [/dev/shm]`` gets ``:size=8g``; a long-form tmpfs volume gets ``tmpfs: {size: bytes}``."""
    node = _node_at(source, shm.span.start)
    if isinstance(node, ScalarNode) and not node.style and node.value.rstrip("/") == "/dev/shm":
        return [Edit(node.end_mark.index, node.end_mark.index, f":size={format_docker(size)}")]
    if isinstance(node, MappingNode) and node.value and not any(k.value == "tmpfs" for k, _ in node.value):
        step = yamledit.indent_step(node)
        return [yamledit.add_key(source, node, "tmpfs", Block((("size", str(size)),)), step, 0)]
    return []


def _node_at(source: SourceText, offset: int) -> MappingNode | ScalarNode | None:
    try:
        documents = compose(source)
    except YamlError:
        return None
    stack = list(documents)
    while stack:
        node = stack.pop()
        if node.start_mark.index == offset and isinstance(node, (MappingNode, ScalarNode)):
            return node
        if isinstance(node, MappingNode):
            stack.extend(value for _, value in node.value)
        elif not isinstance(node, ScalarNode):
            stack.extend(node.value)
    return None


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, ServiceTarget) or target.path != source.path or not fix.size_bytes:
        return []
    if fix.action is FixAction.ADD_SHM:
        return _add_shm_size(target, source, fix.size_bytes)
    if fix.action is FixAction.SET_SIZE and fix.source is not None:
        size = fix.source.size
        if fix.source.namespace_size and size is not None:
            return [Edit(size.span.start, size.span.end, _quoted(fix.size_bytes))]
        if size is None:
            return _size_tmpfs(source, fix.source, fix.size_bytes)
    return []
