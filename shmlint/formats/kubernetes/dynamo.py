"""NVIDIA Dynamo's DynamoGraphDeployment and DynamoComponentDeployment: where their pods are written, and the
/dev/shm the Dynamo operator mounts in each component's main container.

The operator mounts a Memory emptyDir named ``shared-memory`` at /dev/shm in the main container of every component,
8Gi unless the component says otherwise (ai-dynamo/dynamo at d195d280: ``DefaultSharedMemorySize = "8Gi"`` and
``DefaultSharedMemoryMountPath = "/dev/shm"`` in deploy/operator/internal/consts/consts.go). v1beta1 writes that as
``sharedMemorySize`` beside ``podTemplate`` ("nil selects the operator default (8Gi), a positive quantity sets a
custom size, and "0" disables the shared-memory volume entirely", deploy/operator/api/v1beta1/
dynamocomponentdeployment_types.go), and the main container is the one named ``main`` in ``podTemplate``. v1alpha1
writes ``sharedMemory: {size, disabled}``, and each service's main container is ``extraPodSpec.mainContainer``,
given the service's ``resources`` (``gpu: "2"`` is ``nvidia.com/gpu``).
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.containers.pod import PodVolume, Resource, quantity
from shmlint.formats.kubernetes.pod_reader import CONTAINER, FoundPod, OperatorShm, PodReader, listed_containers
from shmlint.model import WorkloadId
from shmlint.parsers.yamlnodes import MappingNode, Node, scalar, sequence

GROUP = "nvidia.com"
KINDS = frozenset({"DynamoGraphDeployment", "DynamoComponentDeployment"})
MAIN = "main"
#: the operator's volume and its default size (consts.go ``KubeValueNameSharedMemory``, ``DefaultSharedMemorySize``)
VOLUME, DEFAULT_SIZE = "shared-memory", "8Gi"
#: Dynamo's own resource names and the device plugin resource the operator asks for
_GPU_RESOURCES = {"gpu": "nvidia.com/gpu"}


def is_dynamo(group: str, kind: str) -> bool:
    return group == GROUP and kind in KINDS


def dynamo_pods(
    reader: PodReader, obj: MappingNode, kind: str, owner: WorkloadId, metadata: tuple[Node, ...]
) -> Iterator[FoundPod]:
    """One pod per component: a graph's ``components`` (v1beta1) or ``services`` (v1alpha1), a component
    deployment's own spec. ``metadata``: the object's, where annotations live after the pod template's."""
    m, spec = reader.m, reader.m.get(obj, "spec")
    if kind == "DynamoComponentDeployment":
        components: list[tuple[str, Node | None]] = [(scalar(m.get(spec, "name")) or "", spec)]
    else:
        components = [(scalar(m.get(c, "name")) or "?", c) for c in sequence(m.get(spec, "components"))]
        components += [(name, service) for name, (_, service) in m.items(m.get(spec, "services")).items()]
    for name, component in components:
        if isinstance(component, MappingNode):
            pod = _pod(reader, component, owner._replace(role=name))
            if pod is not None:
                yield pod._replace(metadata=pod.metadata + metadata)


def _pod(reader: PodReader, component: MappingNode, owner: WorkloadId) -> FoundPod | None:
    m = reader.m
    template = m.get(component, "podTemplate")
    if isinstance(template, MappingNode):  # v1beta1
        spec = m.get(template, "spec")
        if not isinstance(spec, MappingNode):
            return None
        containers = tuple(listed_containers(m, spec))
        main = next((c for c, holder, name in containers if name == MAIN and holder == CONTAINER), None)
        metadata = (template_metadata,) if (template_metadata := m.get(template, "metadata")) is not None else ()
        resources: tuple[Resource, ...] = ()
    else:  # v1alpha1
        spec = m.get(component, "extraPodSpec")
        main = m.get(spec, "mainContainer")
        if not isinstance(spec, MappingNode) or not isinstance(main, MappingNode):
            return None  # the operator makes the whole container: nothing here says what it runs
        containers = ((main, CONTAINER, MAIN), *listed_containers(m, spec))
        metadata = ()
        resources = tuple(_resources(reader, component))
    if not containers:
        return None
    volume = _operator_volume(reader, component)
    operator = OperatorShm(main, volume, resources) if isinstance(main, MappingNode) else None
    return FoundPod(owner, spec, containers, metadata=metadata, operator=operator)


def _operator_volume(reader: PodReader, component: MappingNode) -> PodVolume | None:
    """The operator's /dev/shm volume for the component, where its setting is written (or its name, for the
    default); None when the component turns it off."""
    m = reader.m
    kind = "the Dynamo operator's emptyDir"
    beta = m.get(component, "sharedMemorySize")
    if scalar(beta):  # written (null is the operator's default): a zero quantity turns the volume off
        size = reader.size(beta)
        return (
            None
            if size is not None and size.bytes == 0
            else PodVolume(VOLUME, reader.span(beta), kind, True, "Memory", size)
        )
    alpha = m.get(component, "sharedMemory")
    if (scalar(m.get(alpha, "disabled")) or "").lower() == "true":
        return None
    written = m.get(alpha, "size")
    if scalar(written):
        size = reader.size(written)
        if size is None or size.bytes != 0:  # a zero size is the default (``Size.IsZero``)
            return PodVolume(VOLUME, reader.span(written), kind, True, "Memory", size)
    where = reader.span(m.key(component, "podTemplate") or m.key(component, "extraPodSpec") or component)
    default = quantity(DEFAULT_SIZE, where)  # not written: said where the component would size it
    return PodVolume(VOLUME, where, f"{kind} (its default {DEFAULT_SIZE})", True, "Memory", default)


def _resources(reader: PodReader, component: MappingNode) -> Iterator[Resource]:
    """A v1alpha1 service's ``resources``, as the main container's: Dynamo's ``gpu`` is the device plugin's
    resource its ``gpuType`` names (``nvidia.com/gpu`` by default), and ``custom`` holds resources by their own
    names (``amd.com/gpu: 1``)."""
    m = reader.m
    for section in ("limits", "requests"):
        entries = m.items(m.path(component, "resources", section))
        gpu = scalar(entries["gpuType"][1]) if "gpuType" in entries else None
        for name, (key, value) in entries.items():
            if name == "custom":
                for own, (own_key, own_value) in m.items(value).items():
                    yield section, own, scalar(own_value), reader.pair_span(own_key, own_value)
            elif name != "gpuType":
                named = (gpu or _GPU_RESOURCES[name]) if name in _GPU_RESOURCES else name
                yield section, named, scalar(value), reader.pair_span(key, value)
