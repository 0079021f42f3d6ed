"""A KubeRay group's own settings that change what the operator gives its pods."""

from __future__ import annotations

from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, SequenceNode


def plasma_elsewhere(m: Mappings, obj: MappingNode, template: Node | None) -> bool:
    """Whether the Ray group whose pod ``template`` is sets ``plasma-directory`` in its ``rayStartParams``: KubeRay
    then mounts no /dev/shm of its own (pod.go: "Skip injection when users explicitly set plasma-directory";
    audit79b), and the container has what its pod spec gives it."""
    stack: list[Node] = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            items = m.items(node)
            if template is not None and items.get("template", (None, None))[1] is template:
                params = items.get("rayStartParams", (None, None))[1]
                return isinstance(params, MappingNode) and "plasma-directory" in m.items(params)
            stack.extend(value for key, (_, value) in items.items() if key not in ("metadata", "status"))
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return False
