"""KServe: an InferenceService's predictor is completed by the ServingRuntime it names, as KServe completes it.

KServe picks the runtime named by ``spec.predictor.model.runtime``, or else one whose ``supportedModelFormats``
has the model's format with ``autoSelect: true`` (the highest ``priority`` first), then merges the runtime's pod
spec into the predictor's: containers by position, volumes by name. So the predictor container's /dev/shm is the
runtime's unless the InferenceService sets its own, and a volume added to the InferenceService under the runtime's
volume name replaces the runtime's; likewise it runs the runtime's image and command where it names none of its own
(its ``args`` after the runtime's), so the runtime's software decides its need
(``shmlint.formats.kubernetes.pod_reader``). shmlint judges the completed spec; the runtimes come from the checked
files (not from a rendered kustomization's or chart's output).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from shmlint import sizes
from shmlint.model import APPLIED_KINDS, ShmKind, ShmMechanism, ShmSource, Size, Workload
from shmlint.numbers import ascii_int
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, scalar, scalars, sequence
from shmlint.project.runtimes import Runtime, RuntimeFormat, RuntimeIndex
from shmlint.source import SourceText

if TYPE_CHECKING:  # the tier data is read only for an InferenceService whose runtime is not among the files
    from shmlint.need import BuiltinRuntime

RUNTIME_KINDS = frozenset({"ServingRuntime", "ClusterServingRuntime"})
#: the container memory limit KServe's built-in runtimes set unless the InferenceService sets one
BUILTIN_MEMORY_LIMIT = "2Gi"


def runtimes_in(source: SourceText, documents: list[Node], workloads: Iterable[Workload]) -> list[Runtime]:
    """The ServingRuntimes a file defines, with the /dev/shm the extractor found for their first container."""
    m = Mappings()
    first_container: dict[str, Workload] = {}
    for workload in workloads:
        if workload.id.kind in RUNTIME_KINDS and workload.id.container_kind == "container":
            first_container.setdefault(workload.id.name, workload)
    found = []
    for document in documents:
        kind = scalar(m.get(document, "kind")) or ""
        name = scalar(m.path(document, "metadata", "name")) or ""
        if kind not in RUNTIME_KINDS or not name or name not in first_container:
            continue
        formats = tuple(_format(m, entry) for entry in sequence(m.path(document, "spec", "supportedModelFormats")))
        shm = tuple(source for source in first_container[name].shm if source.kind in APPLIED_KINDS)
        container = next(iter(sequence(m.path(document, "spec", "containers"))), None)
        found.append(
            Runtime(
                kind,
                name,
                tuple(f for f in formats if f.name),
                shm,
                scalar(m.get(container, "image")),
                scalars(m.get(container, "command")),
                scalars(m.get(container, "args")),
            )
        )
    return found


#: KServe keeps a model format's priority in an int32
MAX_PRIORITY = 2**31 - 1


def _format(m: Mappings, entry: Node) -> RuntimeFormat:
    name = (scalar(m.get(entry, "name")) or "").strip().lower()
    auto = (scalar(m.get(entry, "autoSelect")) or "").strip().lower() == "true"
    priority = ascii_int(scalar(m.get(entry, "priority")) or "0", maximum=MAX_PRIORITY) or 0
    return RuntimeFormat(name, auto, priority)


def _builtin(explicit: str | None, model_format: str) -> BuiltinRuntime | None:
    """KServe's own runtime of that name, or the first of them that serves the format (its default)."""
    from shmlint.need import builtin

    runtimes = builtin().kserve_runtimes
    if explicit:
        return next((r for r in runtimes if r.name == explicit), None)
    return next((r for r in runtimes if model_format in r.formats), None)


def _builtin_shm(runtime: BuiltinRuntime, model: MappingNode, source: SourceText) -> tuple[ShmSource, ...]:
    """What a built-in runtime mounts at /dev/shm, located at the model spec (the runtime is not in any file): a
    Memory emptyDir, sized or bounded by the memory limit (the runtimes set 2Gi unless the model sets one)."""
    if not runtime.mounts_shm:
        return ()
    span = source.span(model.start_mark.index, model.end_mark.index)
    description = f'the Memory emptyDir of KServe\'s built-in ServingRuntime "{runtime.name}"'
    text = runtime.size_limit or _memory_limit(model) or BUILTIN_MEMORY_LIMIT
    parsed = sizes.parse_kubernetes(text)
    size = Size(text, parsed.bytes, span, sizes.KUBERNETES)
    return (ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, description, size),)


def _memory_limit(model: MappingNode) -> str | None:
    return scalar(Mappings().path(model, "resources", "limits", "memory"))


def _named(model: MappingNode) -> tuple[str | None, str]:
    """The runtime a predictor model spec names, and its model format (lower case; "" for none)."""
    m = Mappings()
    return scalar(m.get(model, "runtime")), (scalar(m.path(model, "modelFormat", "name")) or "").strip().lower()


def runtime_of(model: MappingNode, index: RuntimeIndex | None) -> Runtime | None:
    """The ServingRuntime of the checked files that KServe completes a predictor model spec with: the one it names,
    else the one it selects for its model format."""
    explicit, model_format = _named(model)
    index = index or RuntimeIndex()
    return index.named(explicit) if explicit else index.for_format(model_format) if model_format else None


def runtime_named_at(model: MappingNode) -> Node:
    """Where a predictor model spec names its runtime, for what is said of it: its ``runtime``, else its model
    format's name (KServe selects by it), else the spec itself."""
    m = Mappings()
    runtime_node = m.get(model, "runtime")
    if runtime_node is not None and scalar(runtime_node):
        return runtime_node
    return m.path(model, "modelFormat", "name") or model


def runtime_shm(model: MappingNode, source: SourceText, index: RuntimeIndex | None) -> tuple[ShmSource, ...]:
    """What the runtime gives a predictor model spec that sets no /dev/shm of its own: the runtime's sources, or an
    unknown source naming the runtime that could not be found (judged as "cannot be resolved here")."""
    explicit, model_format = _named(model)
    runtime = runtime_of(model, index)
    if runtime is None:
        builtin = _builtin(explicit, model_format)
        if builtin is not None:
            return _builtin_shm(builtin, model, source)
    if runtime is not None:
        return tuple(
            ShmSource(
                s.kind,
                s.mechanism,
                s.span,
                f'{s.description} of {runtime.kind} "{runtime.name}"',
                s.size,
                None,  # no volume name: the fixers of this file never edit the runtime's declaration
                s.host_path,
                s.cap_bytes,
            )
            for s in runtime.shm
        )
    where = runtime_named_at(model)
    span = source.span(where.start_mark.index, where.end_mark.index)
    if explicit:
        description = f'the ServingRuntime "{explicit}", which is not among the checked files,'
    else:
        description = (
            f'the ServingRuntime KServe selects for model format "{model_format or "?"}", not among the checked files,'
        )
    return (ShmSource(ShmKind.UNKNOWN, ShmMechanism.MERGED_SPEC, span, description),)
