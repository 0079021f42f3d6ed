"""The pods a RoleBasedGroup's roles run (sgl-project/rbg, ``workloads.x-k8s.io``), composed as its controller
composes them.

A role names its pod template inline (``template``) or by reference to one of ``spec.roleTemplates`` with a patch
(v1alpha1 ``templateRef`` + ``templatePatch``; v1alpha2 ``templateRef.patch`` inside ``standalonePattern`` or
``leaderWorkerPattern``), and a leader/worker role patches that again for its leader and its workers (v1alpha1
``leaderWorkerSet.patchLeaderTemplate``; v1alpha2 ``leaderTemplatePatch``). Each patch is a strategic merge patch
(``GetResolvedTemplate`` and ``applyStrategicMergePatch`` in api/workloads/v1alpha2/helper.go): read alone, a
template misses the role's command and a patch misses the template's GPUs and /dev/shm volume, so neither is a pod.
"""

from __future__ import annotations

from collections.abc import Iterator

from yaml.nodes import MappingNode, Node

from shmlint.formats.kubernetes.strategic_merge import Directive, merged
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import Mappings, scalar, sequence

GROUP = "workloads.x-k8s.io"
KINDS = ("RoleBasedGroup", "RoleBasedGroupSet")
#: a role's pattern (v1alpha2) or the role itself (v1alpha1): where its template source is written
_PATTERNS = ("standalonePattern", "leaderWorkerPattern")
#: the leader's and the workers' patches of a leader/worker role: (v1alpha1 under ``leaderWorkerSet``, v1alpha2)
_GROUP_PATCHES = {
    "leader": (("leaderWorkerSet", "patchLeaderTemplate"), ("leaderWorkerPattern", "leaderTemplatePatch")),
    "worker": (("leaderWorkerSet", "patchWorkerTemplate"), ("leaderWorkerPattern", "workerTemplatePatch")),
}


class RolePod(NamedTuple):
    """One pod a role runs: the role's name (with ``leader``/``worker``) and its composed pod template."""

    role: str
    template: MappingNode


class Composition(NamedTuple):
    """What a RoleBasedGroup's roles run, and what was read to make it: those nodes are parts, not pods."""

    pods: tuple[RolePod, ...]
    parts: frozenset[int]  # ids of the templates and patches composed
    notices: tuple[tuple[Node, str], ...]  # a role not composed: where, and why


def is_role_based_group(group: str, kind: str) -> bool:
    return group == GROUP and kind in KINDS


def compose_roles(obj: MappingNode, m: Mappings, made: list[Node]) -> Composition:
    """The pods of the object's roles (a RoleBasedGroupSet's under ``spec.template``). ``made`` keeps the composed
    nodes alive as long as ``m`` (``strategic_merge.merged``)."""
    spec = m.get(obj, "spec")
    if scalar(m.get(obj, "kind")) == "RoleBasedGroupSet":
        spec = m.get(spec, "template")
    templates: dict[str, Node] = {}
    parts: set[int] = set()
    for entry in sequence(m.get(spec, "roleTemplates")):
        name, template = scalar(m.get(entry, "name")), m.get(entry, "template")
        if name and template is not None:
            templates[name] = template
            parts.add(id(template))
    pods: list[RolePod] = []
    notices: list[tuple[Node, str]] = []
    used: set[str] = set()
    for role in sequence(m.get(spec, "roles")):
        name = scalar(m.get(role, "name")) or "?"
        parts.update(id(node) for node in _sources(role, m) if node is not None)
        used.update(filter(None, (scalar(m.path(holder, "templateRef", "name")) for holder in _holders(role, m))))
        try:
            pods.extend(_role_pods(role, name, templates, m, made))
        except _NotComposed as why:
            notices.append((role, f'role "{name}" not judged: {why}'))
    notices.extend(
        (template, f'roleTemplate "{name}" not judged: no role of this object uses it')
        for name, template in templates.items()
        if name not in used
    )
    return Composition(tuple(pods), frozenset(parts), tuple(notices))


class _NotComposed(Exception):
    """Why a role's pods cannot be composed from what the object writes."""


def _role_pods(role: Node, name: str, templates: dict[str, Node], m: Mappings, made: list[Node]) -> Iterator[RolePod]:
    base = _base(role, templates, m, made)
    if base is None:
        return
    patches = {part: _group_patch(role, part, m) for part in _GROUP_PATCHES}
    for part, patch in patches.items() if any(patches.values()) else (("", None),):
        try:
            pod = merged(base, patch, m, made)
        except Directive as directive:
            raise _NotComposed(f"its {part} patch uses the strategic merge directive {directive}") from None
        if isinstance(pod, MappingNode):
            yield RolePod(f"{name} {part}".strip(), pod)


def _base(role: Node, templates: dict[str, Node], m: Mappings, made: list[Node]) -> Node | None:
    """The role's template: inline, or the roleTemplate it names with its patch merged over it."""
    for holder in _holders(role, m):
        inline = m.get(holder, "template")
        if inline is not None:
            return inline
        reference = m.get(holder, "templateRef")
        if reference is None:
            continue
        wanted = scalar(m.get(reference, "name")) or ""
        if wanted not in templates:
            raise _NotComposed(f'it names roleTemplate "{wanted}", which this object does not write')
        patch = m.get(reference, "patch") or m.get(role, "templatePatch")
        try:
            return merged(templates[wanted], patch, m, made)
        except Directive as directive:
            raise _NotComposed(f"its template patch uses the strategic merge directive {directive}") from None
    return None


def _holders(role: Node, m: Mappings) -> tuple[Node | None, ...]:
    """Where a role writes its template source: the role itself (v1alpha1) or its pattern (v1alpha2)."""
    return (role, *(m.get(role, key) for key in _PATTERNS))


def _group_patch(role: Node, part: str, m: Mappings) -> Node | None:
    return next((found for path in _GROUP_PATCHES[part] if (found := m.path(role, *path)) is not None), None)


def _sources(role: Node, m: Mappings) -> Iterator[Node | None]:
    """Every template and patch a role's composition reads."""
    for holder in _holders(role, m):
        yield m.get(holder, "template")
        yield m.path(holder, "templateRef", "patch")
    yield m.get(role, "templatePatch")
    for part in _GROUP_PATCHES:
        yield _group_patch(role, part, m)
