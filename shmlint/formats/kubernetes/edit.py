"""Fixes for Kubernetes pods: a Memory emptyDir with a sizeLimit, mounted at /dev/shm."""

from __future__ import annotations

from shmlint.edits import yamledit
from shmlint.edits.yamledit import Block
from shmlint.formats.kubernetes.pod_reader import shm_mount
from shmlint.formats.kubernetes.target import PodTarget
from shmlint.model import Edit, Fix, FixAction, ShmMechanism, Workload
from shmlint.parsers.yamlnodes import MappingNode, Mappings, SequenceNode, is_null, mappings_at, scalar, sequence
from shmlint.runtime.shm import SHM_PATH
from shmlint.sizes import format_kubernetes
from shmlint.source import SourceText

SHM_VOLUME = "dshm"


def volume_name(taken: frozenset[str]) -> str:
    """``dshm``, or ``dshm-2``... when a volume of that name already means something else."""
    if SHM_VOLUME not in taken:
        return SHM_VOLUME
    return next(f"{SHM_VOLUME}-{n}" for n in range(2, len(taken) + 3) if f"{SHM_VOLUME}-{n}" not in taken)


def _mount(name: str) -> Block:
    return Block((("name", name), ("mountPath", SHM_PATH)))


def _append_or_create(
    source: SourceText, m: Mappings, owner: MappingNode, key: str, item: Block, step: int, seq_offset: int
) -> Edit:
    existing = m.get(owner, key)
    if _is_json(source):  # an AWS Batch EKS pod in a JSON job definition: JSON text, laid out like its neighbours
        if isinstance(existing, SequenceNode):
            close = existing.end_mark.index - 1
            return Edit(close, close, (", " if existing.value else "") + _json(item))
        from shmlint.edits import jsonedit  # JSON files only: a flagged YAML file never loads the json module

        return jsonedit.add_member(source, owner, key, f"[{_json(item)}]")
    if isinstance(existing, SequenceNode) and (existing.value or yamledit.is_flow(existing)):
        return yamledit.append_item(source, existing, item, step)
    key_node = m.key(owner, key)
    if key_node is not None and is_null(existing):
        return yamledit.replace_null(source, key_node, existing, [item])
    return yamledit.add_key(source, owner, key, [item], step, seq_offset)


def _is_json(source: SourceText) -> bool:
    """A JSON file (the pod of a Batch job definition on EKS): flow YAML would not be JSON, so JSON is written."""
    return source.path.lower().endswith(".json")


def _json(block: Block) -> str:
    import json  # JSON files only: a flagged YAML file asks this module whether it can be fixed

    return (
        "{"
        + ", ".join(f"{json.dumps(k)}: {_json(v) if isinstance(v, Block) else json.dumps(v)}" for k, v in block.pairs)
        + "}"
    )


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """From the target alone: a pod spec to hold the volume (a TrainJob's trainer has none) and what the action
    needs (a size, the volume's name, a Memory emptyDir to size)."""
    declared = fix.source
    if not isinstance(workload.target, PodTarget):
        return False
    if any(s.mechanism is ShmMechanism.MERGED_SPEC for s in workload.shm):
        return False  # a volume added here would replace what the unseen runtime mounts (merged by name)
    if fix.action is FixAction.ADD_SHM:
        return bool(fix.size_bytes)
    if declared is None or declared.span.path != source.path:  # written in another file (a ServingRuntime)
        return False
    if fix.action is FixAction.MOUNT_VOLUME:
        return bool(declared.name)
    if fix.action is FixAction.SET_SIZE:
        return bool(declared.name and fix.size_bytes)
    return False


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, PodTarget):
        return []
    found = mappings_at(source, (target.pod_start, target.container_start))
    pod, container = found.get(target.pod_start), found.get(target.container_start)
    if pod is None or container is None:
        return []
    m = Mappings()
    step = yamledit.indent_step(pod)
    seq_offset = yamledit.sequence_offset(source, pod)
    if fix.action is FixAction.ADD_SHM and fix.size_bytes:
        mount = shm_mount(m, container)  # mounted at /dev/shm already, but no such volume
        mounted = scalar(m.get(mount, "name")) if mount is not None else None
        name = mounted or volume_name(target.volume_names)
        size = format_kubernetes(fix.size_bytes)  # capped by the pod's memory limits already (shmlint.sizing)
        volume = Block((("name", name), ("emptyDir", Block((("medium", "Memory"), ("sizeLimit", size))))))
        edits = [_append_or_create(source, m, pod, "volumes", volume, step, seq_offset)]
        if mounted is None:
            edits.append(_append_or_create(source, m, container, "volumeMounts", _mount(name), step, seq_offset))
        return edits
    if fix.action is FixAction.MOUNT_VOLUME and fix.source and fix.source.name:
        return [_append_or_create(source, m, container, "volumeMounts", _mount(fix.source.name), step, seq_offset)]
    if fix.action is FixAction.SET_SIZE and fix.source and fix.source.name and fix.size_bytes:
        return _set_size_limit(source, m, pod, fix.source.name, format_kubernetes(fix.size_bytes), step)
    return []


def _set_size_limit(source: SourceText, m: Mappings, pod: MappingNode, name: str, size: str, step: int) -> list[Edit]:
    volume = next((v for v in sequence(m.get(pod, "volumes")) if scalar(m.get(v, "name")) == name), None)
    empty_dir = m.get(volume, "emptyDir")
    if not isinstance(empty_dir, MappingNode) or not empty_dir.value:
        return []
    current = m.get(empty_dir, "sizeLimit")
    key = m.key(empty_dir, "sizeLimit")
    if _is_json(source):
        import json

        from shmlint.edits import jsonedit

        if current is not None:
            return [yamledit.replace_node(current, json.dumps(size))]
        return [jsonedit.add_member(source, empty_dir, "sizeLimit", json.dumps(size))]
    if current is not None and key is not None and m.own_key(empty_dir, "sizeLimit"):
        if is_null(current):
            return [yamledit.replace_null(source, key, current, size)]
        return [yamledit.replace_node(current, size)]
    return [yamledit.add_key(source, empty_dir, "sizeLimit", size, step, 0)]
