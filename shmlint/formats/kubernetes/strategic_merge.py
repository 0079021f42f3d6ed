"""A Kubernetes strategic merge patch of one pod template over another, on YAML nodes.

Operators that keep a base pod template and patches (a RoleBasedGroup's ``roleTemplates`` and ``templatePatch``, its
leader and worker patches) run the merge of the two, as ``strategicpatch.StrategicMergePatch`` makes it: mappings
merge key by key, the lists Kubernetes gives a merge key (containers by ``name``, volume mounts by ``mountPath``...)
merge item by item, every other value of the patch replaces the base's, and a null in the patch deletes the key.

The merged nodes are new mappings and sequences made of the written ones, so every value still says where it is
written; a merged mapping or list keeps the base's marks, so a fix lands in the base template, where it reaches every
role that uses it (a patch merged over it keeps a volume or mount the base gains).
"""

from __future__ import annotations

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from shmlint.parsers.yamlnodes import Mappings, is_null

#: the pod template lists Kubernetes merges by a key (``patchMergeKey`` in k8s.io/api/core/v1/types.go); every
#: other list of a patch replaces the base's
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
}


class Directive(Exception):
    """A patch uses a strategic merge directive (``$patch``, ``$retainKeys``...) that this merge does not apply."""


def merged(base: Node | None, patch: Node | None, m: Mappings, made: list[Node]) -> Node | None:
    """The base with the patch merged over it. ``made`` keeps every node made here alive as long as the caller's
    ``Mappings``, which memoises by node identity. Raises ``Directive`` for a patch that uses one."""
    if patch is None or base is None:
        _refuse_directives(patch, m)
        return base if patch is None else patch
    return _merge(base, patch, "", m, made)


def _merge(base: Node, patch: Node, field: str, m: Mappings, made: list[Node]) -> Node:
    if isinstance(base, MappingNode) and isinstance(patch, MappingNode):
        return _merge_mappings(base, patch, m, made)
    if isinstance(base, SequenceNode) and isinstance(patch, SequenceNode) and field in MERGE_KEYS:
        return _merge_lists(base, patch, MERGE_KEYS[field], m, made)
    _refuse_directives(patch, m)
    return patch


def _merge_mappings(base: MappingNode, patch: MappingNode, m: Mappings, made: list[Node]) -> MappingNode:
    ours, theirs = m.items(base), m.items(patch)
    directive = next((key for key in theirs if key.startswith("$")), None)
    if directive is not None:
        raise Directive(directive)
    pairs: list[tuple[Node, Node]] = []
    for key, (key_node, value) in ours.items():
        if key not in theirs:
            pairs.append((key_node, value))
            continue
        patch_key, patch_value = theirs[key]
        if is_null(patch_value):
            continue  # a null in a strategic merge patch deletes the key
        if type(value) is type(patch_value) and isinstance(value, (MappingNode, SequenceNode)):
            pairs.append((key_node, _merge(value, patch_value, key, m, made)))
        else:
            _refuse_directives(patch_value, m)
            pairs.append((patch_key, patch_value))
    for key, (key_node, value) in theirs.items():
        if key not in ours and not is_null(value):
            _refuse_directives(value, m)
            pairs.append((key_node, value))
    result = MappingNode(base.tag, pairs, base.start_mark, base.end_mark, base.flow_style)
    made.append(result)
    return result


def _merge_lists(base: SequenceNode, patch: SequenceNode, key: str, m: Mappings, made: list[Node]) -> SequenceNode:
    """Items with the same merge key merge; the patch's other items follow the base's."""
    by_key = {_merge_key(item, key, m): item for item in patch.value}
    by_key.pop(None, None)
    items: list[Node] = []
    used: set[str] = set()
    for item in base.value:
        name = _merge_key(item, key, m)
        if name is not None and name in by_key:
            items.append(_merge(item, by_key[name], "", m, made))
            used.add(name)
        else:
            items.append(item)
    for item in patch.value:
        if _merge_key(item, key, m) not in used:
            _refuse_directives(item, m)
            items.append(item)
    result = SequenceNode(base.tag, items, base.start_mark, base.end_mark, base.flow_style)
    made.append(result)
    return result


def _merge_key(item: Node, key: str, m: Mappings) -> str | None:
    value = m.get(item, key)
    return value.value if isinstance(value, ScalarNode) and value.value else None


def _refuse_directives(node: Node | None, m: Mappings) -> None:
    """A patch value taken whole may still hold a directive further down (``$patch: delete`` on a container)."""
    stack, seen = [node], set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue  # an alias is read once
        seen.add(id(current))
        if isinstance(current, MappingNode):
            for key, (_, value) in m.items(current).items():
                if key.startswith("$"):
                    raise Directive(key)
                stack.append(value)
        elif isinstance(current, SequenceNode):
            stack.extend(current.value)
