"""The pods a RoleBasedGroup's roles run (sgl-project/rbg, ``workloads.x-k8s.io``), composed as its controller
composes them.

A role names its pod template inline (``template``) or by reference to one of ``spec.roleTemplates`` with a patch
(v1alpha1 ``templateRef`` + ``templatePatch``; v1alpha2 ``templateRef.patch`` inside ``standalonePattern`` or
``leaderWorkerPattern``), and a leader/worker role patches that again for its leader and its workers (v1alpha1
``leaderWorkerSet.patchLeaderTemplate``; v1alpha2 ``leaderTemplatePatch``). Each patch is a strategic merge patch
(``GetResolvedTemplate`` and ``applyStrategicMergePatch`` in api/workloads/v1alpha2/helper.go): read alone, a
template misses the role's command and a patch misses the template's GPUs and /dev/shm volume, so neither is a pod.

A composed pod is judged, and offered no fix: its /dev/shm is written in a template other roles (or the role's
other pods) share, or in a patch the merge reads over it, so no one place sizes it for this pod alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from yaml.nodes import MappingNode, Node

from shmlint.formats.kubernetes.strategic_merge import NotMerged, StrategicMerge
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import Mappings, is_null, scalar, sequence

#: the kinds (of the group ``workloads.x-k8s.io``) whose roles compose their pods: a set's under ``spec.template``
KINDS = ("RoleBasedGroup", "RoleBasedGroupSet")
#: a role's pattern (v1alpha2) or the role itself (v1alpha1): where its template source is written
_PATTERNS = ("standalonePattern", "leaderWorkerPattern")
#: the leader's and the workers' patches of a leader/worker role: (v1alpha1 under ``leaderWorkerSet``, v1alpha2)
_GROUP_PATCHES = {
    "leader": (("leaderWorkerSet", "patchLeaderTemplate"), ("leaderWorkerPattern", "leaderTemplatePatch")),
    "worker": (("leaderWorkerSet", "patchWorkerTemplate"), ("leaderWorkerPattern", "workerTemplatePatch")),
}


class RolePod(NamedTuple):
    """One pod a role runs: the role's name (with ``leader``/``worker``), its pod template, and whether that was
    composed from parts (a template and patches) rather than written whole."""

    role: str
    template: MappingNode
    composed: bool


class Composition(NamedTuple):
    """What a RoleBasedGroup's roles run, and what was read to make it: those nodes are parts, not pods."""

    pods: tuple[RolePod, ...]
    parts: frozenset[int]  # ids of the templates and patches composed
    notices: tuple[tuple[Node, str], ...]  # a role (or its leader's or workers' pods) not composed: where, and why


def compose_roles(obj: MappingNode, kind: str, merge: StrategicMerge) -> Composition:
    """The pods of the roles of an object of the group (a RoleBasedGroupSet's under ``spec.template``; another
    kind has none: its pods are found by their shape), merged by ``merge``, whose nodes live as long as it does."""
    if kind not in KINDS:
        return Composition((), frozenset(), ())
    m = merge.m
    spec = m.get(obj, "spec")
    if kind == "RoleBasedGroupSet":
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
            base = _base(role, templates, merge)
        except _NotComposed as why:
            notices.append((role, f'role "{name}" not judged: {why}'))
            continue
        if base is None:
            continue  # no template source (a custom components pattern): its pods are found by their shape
        template, composed = base
        patches = {part: _group_patch(role, part, m) for part in _GROUP_PATCHES}
        for part, patch in patches.items() if any(not is_null(p) for p in patches.values() if p) else (("", None),):
            try:
                pod = _mapping(merge.merged(template, patch), "its pod template is not a mapping")
            except (NotMerged, _NotComposed) as why:
                whose = f"{part} pods of role" if part else "role"
                notices.append((patch or role, f'{whose} "{name}" not judged: {why}'))
                continue
            pods.append(RolePod(f"{name} {part}".strip(), pod, composed or pod is not template))
    notices.extend(
        (template, f'roleTemplate "{name}" not judged: no role of this object uses it')
        for name, template in templates.items()
        if name not in used
    )
    return Composition(tuple(pods), frozenset(parts), tuple(notices))


class _NotComposed(Exception):
    """Why a role's pods cannot be composed from what the object writes."""


def _mapping(node: Node | None, why: str) -> MappingNode:
    if not isinstance(node, MappingNode):
        raise _NotComposed(why)
    return node


def _base(role: Node, templates: dict[str, Node], merge: StrategicMerge) -> tuple[MappingNode, bool] | None:
    """The role's template, and whether it was composed: inline as written, or the roleTemplate it names with its
    patch merged over it. None for a role that names neither."""
    m = merge.m
    for holder in _holders(role, m):
        inline = m.get(holder, "template")
        if inline is not None:
            return _mapping(inline, "its template is not a mapping"), False
        reference = m.get(holder, "templateRef")
        if reference is None:
            continue
        wanted = scalar(m.get(reference, "name")) or ""
        if wanted not in templates:
            raise _NotComposed(f'it names roleTemplate "{wanted}", which this object does not write')
        patch = m.get(reference, "patch") or m.get(role, "templatePatch")
        try:
            merged = merge.merged(_mapping(templates[wanted], f'roleTemplate "{wanted}" is not a mapping'), patch)
        except NotMerged as why:
            raise _NotComposed(f"its template patch: {why}") from None
        return _mapping(merged, "its template patch is not a mapping"), True
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
