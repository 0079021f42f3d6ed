"""Fixes for Akash SDL: a ram-class volume appended to the service's profile storage and mounted at /dev/shm in the
service's ``params.storage`` (made where missing); an unmounted ram volume mounted; a ram volume's size written."""

from __future__ import annotations

from shmlint import sizes
from shmlint.edits import yamledit
from shmlint.edits.yamledit import Block
from shmlint.formats.akash.extract import RAM_CLASS, storage
from shmlint.formats.akash.target import AkashTarget
from shmlint.model import Edit, Fix, FixAction, ShmKind, Workload
from shmlint.parsers.yamlnodes import MappingNode, Mappings, SequenceNode, mappings_at
from shmlint.runtime.shm import SHM_PATH
from shmlint.source import SourceText

#: the name a new ram volume takes
VOLUME = "shm"


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """A new volume where the profile lists its storage as a block list with no volume of that name; a mount of a
    declared ram volume; a size of a ram volume."""
    target = workload.target
    if not isinstance(target, AkashTarget):
        return False
    if fix.action is FixAction.ADD_SHM:
        nodes = _nodes(target, source)
        return bool(fix.size_bytes) and nodes is not None and _appendable(source, nodes[1]) is not None
    declared = fix.source
    if declared is None or declared.span.path != source.path or not declared.name:
        return False
    if fix.action is FixAction.MOUNT_VOLUME:
        return declared.kind is ShmKind.UNMOUNTED
    return fix.action is FixAction.SET_SIZE and bool(fix.size_bytes) and declared.size is not None


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not can_write(fix, workload, source) or not isinstance(target, AkashTarget):
        return []
    declared = fix.source
    if fix.action is FixAction.SET_SIZE and declared is not None and declared.size is not None and fix.size_bytes:
        return [Edit(declared.size.span.start, declared.size.span.end, sizes.format_kubernetes(fix.size_bytes))]
    nodes = _nodes(target, source)
    if nodes is None:
        return []
    service, resources = nodes
    if fix.action is FixAction.MOUNT_VOLUME and declared is not None and declared.name:
        return [_mount(source, service, declared.name)]
    listed = _appendable(source, resources)
    if fix.action is not FixAction.ADD_SHM or not fix.size_bytes or listed is None:
        return []
    attributes = Block((("persistent", "false"), ("class", RAM_CLASS)))
    volume = Block((("name", VOLUME), ("size", sizes.format_kubernetes(fix.size_bytes)), ("attributes", attributes)))
    step = yamledit.indent_step(resources)
    return [yamledit.append_item(source, listed, volume, step), _mount(source, service, VOLUME)]


def _nodes(target: AkashTarget, source: SourceText) -> tuple[MappingNode, MappingNode] | None:
    """The service and its profile's resources, as the file holds them now."""
    found = mappings_at(source, (target.service_start, target.resources_start))
    service, resources = found.get(target.service_start), found.get(target.resources_start)
    return (service, resources) if service is not None and resources is not None else None


def _appendable(source: SourceText, resources: MappingNode) -> SequenceNode | None:
    """The profile's storage, where a new volume can be appended: a block list with no volume named ``shm``."""
    listed = Mappings().get(resources, "storage")
    if not isinstance(listed, SequenceNode) or not listed.value or yamledit.is_flow(listed):
        return None
    return None if any(volume.name == VOLUME for volume in storage(source, resources)) else listed


def _mount(source: SourceText, service: MappingNode, name: str) -> Edit:
    """``params.storage.<name>.mount: /dev/shm`` in the service, each level made where it is missing."""
    m = Mappings()
    mount = Block((("mount", SHM_PATH),))
    params = m.get(service, "params")
    volumes = m.get(params, "storage")
    step = yamledit.indent_step(service)
    if isinstance(volumes, MappingNode) and volumes.value:
        return yamledit.add_key(source, volumes, name, mount, step, 0)
    if isinstance(params, MappingNode) and params.value:
        return yamledit.add_key(source, params, "storage", Block(((name, mount),)), step, 0)
    return yamledit.add_key(source, service, "params", Block((("storage", Block(((name, mount),))),)), step, 0)
