"""A Kubernetes strategic merge patch of one pod template over another, on YAML nodes.

Operators that keep a base pod template and patches (a RoleBasedGroup's ``roleTemplates`` and ``templatePatch``, its
leader and worker patches) run the merge of the two, as ``strategicpatch.StrategicMergePatch`` makes it: mappings
merge key by key, the lists Kubernetes gives a merge key (containers by ``name``, volume mounts by ``mountPath``...)
merge item by item, every other value of the patch replaces the base's, a null in the patch deletes the key, and a
null patch is no patch.

The merged nodes are new mappings and sequences made of the written ones, so every value still says where it is
written. Each pair of nodes is merged once (aliases may share a subtree many times: its merge is shared too), and
no deeper than ``MAX_DEPTH`` levels.
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
#: levels of mappings and lists merged: a pod template is about a dozen deep
MAX_DEPTH = 100


class NotMerged(Exception):
    """Why a patch is not merged: a strategic merge directive (``$patch``, ``$retainKeys``...) this merge does not
    apply, or nesting past ``MAX_DEPTH``."""


class StrategicMerge:
    """Merges patches over bases with one ``Mappings``, keeping every node it makes alive as long as itself (the
    ``Mappings`` memoises by node identity) and each merge it made for the next that asks for it."""

    def __init__(self, m: Mappings) -> None:
        self.m = m
        self._merged: dict[tuple[int, int], tuple[Node, Node, Node]] = {}  # (base, patch) -> both and the merge
        self._clean: dict[int, Node] = {}  # nodes looked through for directives already (kept, for their ids)

    def merged(self, base: Node | None, patch: Node | None) -> Node | None:
        """The base with the patch merged over it; a missing or null patch leaves the base as it is. Raises
        ``NotMerged``."""
        if patch is None or is_null(patch):
            return base
        if base is None:
            self._refuse_directives(patch)
            return patch
        return self._merge(base, patch, "", 0)

    def _merge(self, base: Node, patch: Node, field: str, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise NotMerged(f"nested deeper than {MAX_DEPTH} levels")
        key = (id(base), id(patch))
        if key in self._merged:
            return self._merged[key][2]
        if isinstance(base, MappingNode) and isinstance(patch, MappingNode):
            result: Node = self._merge_mappings(base, patch, depth)
        elif isinstance(base, SequenceNode) and isinstance(patch, SequenceNode) and field in MERGE_KEYS:
            result = self._merge_lists(base, patch, MERGE_KEYS[field], depth)
        else:
            self._refuse_directives(patch)
            result = patch
        self._merged[key] = (base, patch, result)
        return result

    def _merge_mappings(self, base: MappingNode, patch: MappingNode, depth: int) -> MappingNode:
        ours, theirs = self.m.items(base), self.m.items(patch)
        directive = next((key for key in theirs if key.startswith("$")), None)
        if directive is not None:
            raise NotMerged(f"the strategic merge directive {directive}")
        pairs: list[tuple[Node, Node]] = []
        for key, (key_node, value) in ours.items():
            if key not in theirs:
                pairs.append((key_node, value))
                continue
            patch_key, patch_value = theirs[key]
            if is_null(patch_value):
                continue  # a null in a strategic merge patch deletes the key
            if type(value) is type(patch_value) and isinstance(value, (MappingNode, SequenceNode)):
                pairs.append((key_node, self._merge(value, patch_value, key, depth + 1)))
            else:
                self._refuse_directives(patch_value)
                pairs.append((patch_key, patch_value))
        for key, (key_node, value) in theirs.items():
            if key not in ours and not is_null(value):
                self._refuse_directives(value)
                pairs.append((key_node, value))
        return MappingNode(base.tag, pairs, base.start_mark, base.end_mark, base.flow_style)

    def _merge_lists(self, base: SequenceNode, patch: SequenceNode, key: str, depth: int) -> SequenceNode:
        """Items with the same merge key merge; the patch's other items follow the base's."""
        by_key = {self._merge_key(item, key): item for item in patch.value}
        by_key.pop(None, None)
        items: list[Node] = []
        used: set[str] = set()
        for item in base.value:
            name = self._merge_key(item, key)
            if name is not None and name in by_key:
                items.append(self._merge(item, by_key[name], "", depth + 1))
                used.add(name)
            else:
                items.append(item)
        for item in patch.value:
            if self._merge_key(item, key) not in used:
                self._refuse_directives(item)
                items.append(item)
        return SequenceNode(base.tag, items, base.start_mark, base.end_mark, base.flow_style)

    def _merge_key(self, item: Node, key: str) -> str | None:
        value = self.m.get(item, key)
        return value.value if isinstance(value, ScalarNode) and value.value else None

    def _refuse_directives(self, node: Node | None) -> None:
        """A patch value taken whole may still hold a directive further down (``$patch: delete`` on a container);
        each node is looked at once (an alias shares its subtree)."""
        stack, seen = [node], {}
        while stack:
            current = stack.pop()
            if current is None or id(current) in self._clean or id(current) in seen:
                continue
            seen[id(current)] = current
            if isinstance(current, MappingNode):
                for key, (_, value) in self.m.items(current).items():
                    if key.startswith("$"):
                        raise NotMerged(f"the strategic merge directive {key}")
                    stack.append(value)
            elif isinstance(current, SequenceNode):
                stack.extend(current.value)
        self._clean.update(seen)  # only once the whole of it was looked through
