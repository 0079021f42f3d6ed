"""The Kubernetes Python client's objects as launchers write them (``V1Volume``, ``V1VolumeMount``,
``V1ResourceRequirements``, or the dicts that stand for them): the /dev/shm a task or pod operator mounts and the
GPUs it asks for. Shared by KFP v1's ``ContainerOp`` volume calls and Airflow's ``KubernetesPodOperator``."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from shmlint import sizes
from shmlint.formats.python.calls import UNKNOWN, Arg, CallReader, device_counts
from shmlint.model import Evidence, ShmKind, ShmMechanism, ShmSource
from shmlint.runtime.shm import is_shm_path


def field(reader: CallReader, node: ast.expr, *names: str) -> ast.expr | None:
    """A client object's field: a keyword of its constructor (``V1VolumeMount(mount_path=...)``) or a key of the
    dict written in its place (``{"mountPath": ...}``), by any of ``names``."""
    if isinstance(node, ast.Call):
        return next((k.value for k in node.keywords if k.arg in names), None)
    if isinstance(node, ast.Dict):
        return next(
            (v for k, v in zip(node.keys, node.values, strict=True) if k is not None and reader.value(k) in names),
            None,
        )
    return None


def resolved(reader: CallReader, node: ast.expr) -> ast.expr:
    """What a name the module assigns once holds (``dshm = k8s.V1Volume(...)`` then ``volumes=[dshm]``); any
    other node as it is."""
    return reader.module_expressions.get(node.id, node) if isinstance(node, ast.Name) else node


def shm_mounts(reader: CallReader, mounts: Sequence[ast.expr]) -> list[ast.expr]:
    """The mounts at /dev/shm among ``mounts``."""
    return [
        mount
        for mount in mounts
        if isinstance(path := reader.value(field(reader, mount, "mount_path", "mountPath") or ast.Constant(None)), str)
        and is_shm_path(path)
    ]


def mounted_volume(reader: CallReader, volumes: Sequence[ast.expr], mount: ast.expr) -> ast.expr | None:
    """The volume a mount names, among ``volumes`` (None where none of them is that one, or a name is not known)."""
    name = reader.value(field(reader, mount, "name") or ast.Constant(None))
    if not isinstance(name, str):
        return None
    return next((v for v in volumes if reader.value(field(reader, v, "name") or ast.Constant(None)) == name), None)


def volume_source(reader: CallReader, volume: ast.expr | None, where: ast.AST, description: str) -> ShmSource:
    """A volume at /dev/shm: an ``empty_dir`` of the ``Memory`` medium is a Memory emptyDir (sized by its
    ``size_limit``), another ``empty_dir`` is disk, and anything else (a claim, a value made elsewhere, no volume
    found) is not understood, never the runtime's 64 MiB."""
    empty_dir = field(reader, volume, "empty_dir", "emptyDir") if volume is not None else None
    if empty_dir is None:
        span = reader.span(where)
        return ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, f"{description} (not understood)")
    medium = reader.value(field(reader, empty_dir, "medium") or ast.Constant(""))
    if medium is UNKNOWN:
        return ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, reader.span(where), f"{description} (medium unknown)")
    if medium != "Memory":
        return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, reader.span(where), f"{description} without medium Memory")
    limit = field(reader, empty_dir, "size_limit", "sizeLimit")
    sized = reader.size(Arg(limit, reader.value(limit)), sizes.KUBERNETES) if limit is not None else None
    return ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, reader.span(where), description, sized)


def mounted_shm(
    reader: CallReader, volumes: Sequence[ast.expr], mounts: Sequence[ast.expr], description: str
) -> Iterator[ShmSource]:
    """The /dev/shm each mount at /dev/shm gives, from the volume of its name."""
    volumes = [resolved(reader, volume) for volume in volumes]
    for mount in shm_mounts(reader, [resolved(reader, mount) for mount in mounts]):
        yield volume_source(reader, mounted_volume(reader, volumes, mount), mount, description)


def gpu_limits(reader: CallReader, resources: ast.expr | None, label: str) -> tuple[list[Evidence], list[int]]:
    """The GPUs a ``V1ResourceRequirements`` (or its dict) asks for in ``limits`` or ``requests``, and their
    counts where written: (evidence, counts)."""
    evidence: list[Evidence] = []
    counts: list[int] = []
    for part in ("limits", "requests"):
        given = field(reader, resources, part) if resources is not None else None
        if not isinstance(given, ast.Dict):
            continue
        for key, value in zip(given.keys, given.values, strict=True):
            name = reader.value(key) if key is not None else UNKNOWN
            if isinstance(name, str) and reader.signals.is_gpu_resource(name):
                arg = Arg(value, reader.value(value))
                if reader.positive(arg) or arg.value is UNKNOWN:
                    evidence.append(Evidence(f"{label} {part} {name}: {reader.text(value)}", reader.span(value)))
                    counts += device_counts(arg)
    return evidence, counts


def listed(node: ast.expr | None) -> list[ast.expr] | None:
    """The items of a list or tuple written out; None for anything else (a value made elsewhere)."""
    if isinstance(node, ast.List | ast.Tuple):
        return list(node.elts)
    return None
