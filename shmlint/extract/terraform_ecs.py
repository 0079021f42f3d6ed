"""The shared ECS/Batch container judge's view of Terraform: HCL values (``jsonencode`` or a JSON heredoc).

The task's own settings are HCL attributes and blocks of the resource (``ipc_mode``, ``memory``, ``volume``);
``task_value`` spells them as the API's task definition, so the judge reads them as it reads a JSON task.
"""

from __future__ import annotations

from collections.abc import Sequence

from shmlint.containers.ecs import MIB_DIALECT, mib_size
from shmlint.model import Size
from shmlint.parsers.hcl import OBJECT, STRING, TUPLE, UNKNOWN, Block, Item, Value, entry, entry_item, string
from shmlint.source import SourceText, Span

_TASK_KEYS = {"ipcMode": "ipc_mode", "memory": "memory"}


class HclEcsTree:
    """``EcsTree`` over ``shmlint.parsers.hcl.Value``; ``jsonencode`` keeps strings strings, as the API sees them."""

    def __init__(self, source: SourceText) -> None:
        self.source = source

    def get(self, node: Value | None, key: str) -> Value | None:
        return entry(node, key)

    def pair_span(self, node: Value | None, key: str) -> Span | None:
        item = entry_item(node, key)
        return self.source.span(item.start, item.value.end) if item is not None else None

    def elements(self, node: Value | None) -> Sequence[Value]:
        return [item.value for item in node.items] if node is not None and node.kind == TUPLE else []

    def text(self, node: Value | None) -> str | None:
        return string(node)

    def span(self, node: Value) -> Span:
        return self.source.span(node.start, node.end)

    def between(self, first: Value, last: Value) -> Span:
        return self.source.span(first.start, last.end)

    def mib(self, node: Value | None) -> Size | None:
        return hcl_mib(node, self.source, strings_are_numbers=False) if node is not None else None

    def is_computed(self, node: Value | None) -> bool:
        return node is not None and node.kind == UNKNOWN

    def spell(self, path: str) -> str:
        return _TASK_KEYS.get(path, path)


def hcl_mib(value: Value, source: SourceText, *, strings_are_numbers: bool) -> Size:
    """An integer of MiB as a ``Size``: unknown at plan time when computed. Terraform turns ``"8192"`` into a number
    for a number attribute (``strings_are_numbers``), never inside ``jsonencode``."""
    span = source.span(value.start, value.end)
    text = source.text[value.start : value.end]
    if value.kind == UNKNOWN:
        return Size(text, None, span, MIB_DIALECT)
    return mib_size(text, string(value), span, quoted=value.kind == STRING, strings_are_numbers=strings_are_numbers)


def task_value(resource: Block) -> Value:
    """The resource's task-level settings as the API's task definition: ``ipcMode``, ``memory``, ``volumes``."""
    items = [Item(api, a.start, a.value) for api, hcl in _TASK_KEYS.items() if (a := resource.attributes.get(hcl))]
    volumes = tuple(Item(None, block.start, _volume(block)) for block in resource.children("volume"))
    items.append(Item("volumes", resource.start, Value(TUPLE, None, resource.start, resource.end, volumes)))
    return Value(OBJECT, None, resource.start, resource.end, tuple(items))


def _volume(block: Block) -> Value:
    """``volume { name = ..., host_path = ... }`` as ``{"name": ..., "host": {"sourcePath": ...}}``."""
    items = [Item("name", a.start, a.value) for a in (block.attributes.get("name"),) if a is not None]
    host_path = block.attributes.get("host_path")
    if host_path is not None:
        host = Value(
            OBJECT, None, host_path.start, host_path.end, (Item("sourcePath", host_path.start, host_path.value),)
        )
        items.append(Item("host", host_path.start, host))
    return Value(OBJECT, None, block.start, block.end, tuple(items))
