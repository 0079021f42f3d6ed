"""Fixes for compose services: a service-level ``shm_size``, sizes on tmpfs mounts, respelled sizes, ``ipc: none``.

Edits go into the flagged service's own mapping (never an anchor it merges from, which other services share);
``shmlint.edits.yamledit`` shapes them like their siblings.
"""

from __future__ import annotations

from shmlint.edits import yamledit
from shmlint.edits.yamledit import Block
from shmlint.formats.compose.target import ServiceTarget
from shmlint.model import Edit, Fix, FixAction, ShmSource, Workload
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, mappings_at
from shmlint.runtime.shm import is_shm_path
from shmlint.sizes import format_compose, format_docker
from shmlint.source import SourceText


def _quoted(size: int) -> str:
    return f'"{format_compose(size)}"'


def _within(span_start: int, node: Node) -> bool:
    inside: bool = node.start_mark.index <= span_start < node.end_mark.index
    return inside


def _set_shm_size(source: SourceText, service: MappingNode, target: ServiceTarget, size: int) -> list[Edit]:
    """Replace the service's own ``shm_size`` (an empty one too), or add one that overrides what it merges in."""
    if target.shm_size is not None:
        span = target.shm_size
        return [Edit(span.start, span.end, (" " if span.start == span.end else "") + _quoted(size))]
    return [yamledit.add_key(source, service, "shm_size", _quoted(size), yamledit.indent_step(service), 0)]


def _private_ipc(
    source: SourceText, service: MappingNode, target: ServiceTarget, ipc: ShmSource, size: int | None
) -> list[Edit]:
    """The service's own ``ipc: none`` becomes ``ipc: private``, with a ``shm_size`` when it has none. An ``ipc``
    merged in, extended, or spelled through a variable is left alone: changing it would change more than this."""
    span = ipc.span
    if span.path != source.path or not _within(span.start, service):
        return []
    if source.text[span.start : span.end].strip("'\"") != "none":
        return []
    sizing = _set_shm_size(source, service, target, size) if size else []
    return [Edit(span.start, span.end, "private"), *sizing]


def _size_tmpfs(source: SourceText, service: MappingNode, shm: ShmSource, size: int) -> list[Edit]:
    """``tmpfs: [/dev/shm]`` gets ``:size=8g``; a long-form tmpfs volume gets ``size`` in its ``tmpfs`` options.
    A ``tmpfs`` merged in from an anchor is shared: the service gets its own ``tmpfs`` list instead."""
    if not _within(shm.span.start, service):
        return _own_tmpfs(source, service, size)
    node = _node_at(service, shm.span.start)
    if isinstance(node, ScalarNode) and not node.style and is_shm_path(node.value):
        return [Edit(node.end_mark.index, node.end_mark.index, f":size={format_docker(size)}")]
    if isinstance(node, MappingNode) and node.value:
        options = next((v for k, v in node.value if isinstance(k, ScalarNode) and k.value == "tmpfs"), None)
        if options is None:
            return [
                yamledit.add_key(source, node, "tmpfs", Block((("size", str(size)),)), yamledit.indent_step(node), 0)
            ]
        if isinstance(options, MappingNode) and options.value and _within(options.start_mark.index, node):
            return [yamledit.add_key(source, options, "size", str(size), yamledit.indent_step(options), 0)]
    return []


def _own_tmpfs(source: SourceText, service: MappingNode, size: int) -> list[Edit]:
    """The inherited short ``tmpfs`` entries, written into the service with /dev/shm sized (own keys win)."""
    inherited = Mappings().get(service, "tmpfs")
    entries = [inherited] if isinstance(inherited, ScalarNode) else getattr(inherited, "value", [])
    if not entries or not all(isinstance(e, ScalarNode) and not e.style for e in entries):
        return []
    values = [f"{e.value}:size={format_docker(size)}" if is_shm_path(e.value) else e.value for e in entries]
    return [yamledit.add_key(source, service, "tmpfs", f"[{', '.join(values)}]", yamledit.indent_step(service), 0)]


def _node_at(root: Node, offset: int) -> Node | None:
    """The node written at ``offset`` inside ``root`` (not through an alias to elsewhere)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.start_mark.index == offset and isinstance(node, (MappingNode, ScalarNode)):
            return node
        if isinstance(node, MappingNode):
            stack.extend(value for _, value in node.value if _within(value.start_mark.index, root))
        elif not isinstance(node, ScalarNode):
            stack.extend(item for item in node.value if _within(item.start_mark.index, root))
    return None


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """From the target: a service mapping of this file to write ``shm_size`` in. A size on a tmpfs declaration and
    ``ipc: none`` depend on how they are written (own or merged in, plain or a variable), so those cases read the
    text."""
    target = workload.target
    if not isinstance(target, ServiceTarget) or target.path != source.path:
        return False
    if fix.action is FixAction.PRIVATE_IPC:  # only the service's own literal ``none``: that too reads the text
        return bool(edits_for(fix, workload, source))
    if not fix.size_bytes:
        return False
    if fix.action is FixAction.ADD_SHM:
        return True
    if fix.action is not FixAction.SET_SIZE or fix.source is None:
        return False
    return fix.source.namespace_size or bool(edits_for(fix, workload, source))


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, ServiceTarget) or target.path != source.path:
        return []
    service = mappings_at(source, (target.mapping_start,)).get(target.mapping_start)
    if service is None:
        return []
    if fix.action is FixAction.PRIVATE_IPC:
        return _private_ipc(source, service, target, fix.source, fix.size_bytes) if fix.source else []
    if not fix.size_bytes:
        return []
    if fix.action is FixAction.ADD_SHM:
        return _set_shm_size(source, service, target, fix.size_bytes)
    if fix.action is FixAction.SET_SIZE and fix.source is not None:
        if fix.source.namespace_size:
            return _set_shm_size(source, service, target, fix.size_bytes)
        size = fix.source.size
        if size is None:
            return _size_tmpfs(source, service, fix.source, fix.size_bytes)
        written = source.text[size.span.start : size.span.end]
        if written.strip("'\"") == size.text and _within(size.span.start, service):  # a tmpfs size of its own
            new = str(fix.size_bytes) if size.text.isdigit() else format_docker(fix.size_bytes)
            return [Edit(size.span.start, size.span.end, new)]
    return []
