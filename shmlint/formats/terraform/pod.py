"""Terraform's pod specs (the Kubernetes provider's workloads, AWS Batch ``eks_properties``) read into the pod
judge's view (``shmlint.containers.pod``): snake_case blocks, sizes that Terraform may compute at plan time."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint import sizes
from shmlint.containers import EnvVar
from shmlint.containers.pod import INIT_CONTAINER, PodContainer, PodVolume, Resource, VolumeMount, judge_pod, quantity
from shmlint.formats.terraform.target import HclTarget
from shmlint.model import Evidence, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.hcl import BOOL, NULL, OBJECT, TUPLE, Attribute, Block, Item, Value, entry, string
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals
from shmlint.source import SourceText, Span
from shmlint.visible import clipped


class PodBlocks(NamedTuple):
    """How a provider spells a pod spec's blocks: the Kubernetes provider in the singular, the ``eks_properties`` of
    an AWS Batch job definition in the plural. The fixer writes new blocks with the same names."""

    spec: str
    container: str
    init_container: str
    volume: str
    volume_mount: str


KUBERNETES_BLOCKS = PodBlocks("spec", "container", "init_container", "volume", "volume_mount")
EKS_BLOCKS = PodBlocks("pod_properties", "containers", "init_containers", "volumes", "volume_mounts")
#: ``HclTarget.shape`` of a pod spec, by its spelling
POD_SHAPES = {KUBERNETES_BLOCKS: "pod", EKS_BLOCKS: "eks-pod"}


def pod_workloads(source: SourceText, signals: Signals, resource: Block, blocks: PodBlocks) -> Iterator[Workload]:
    """One workload per container of each pod spec the resource holds."""
    kind, name = resource.labels
    for pod in _pod_specs(resource, blocks):
        volumes = {n: v for v in pod.children(blocks.volume) if (n := string(v.attribute("name")))}
        containers = [(c, "container") for c in pod.children(blocks.container)]
        containers += [(c, INIT_CONTAINER) for c in pod.children(blocks.init_container)]
        runtime = pod.attributes.get("runtime_class_name")
        runtime_name = (string(runtime.value) if runtime is not None else None) or ""
        host_ipc = pod.attributes.get("host_ipc")
        wide = (
            Evidence("host_ipc = true", _span(source, host_ipc))
            if host_ipc is not None and host_ipc.value.kind == BOOL and host_ipc.value.value is True
            else None,
            Evidence(f"runtime_class_name = {runtime_name}", _span(source, runtime))
            if runtime is not None and runtime_name
            else None,
            runtime_name,
        )
        judged = judge_pod(
            tuple(_container(source, container, holder, blocks) for container, holder in containers),
            {name: _volume(source, name, volume) for name, volume in volumes.items()},
            wide,
            source.path,
            signals,
        )
        slot_of = {
            name: (volume.start, empty_dir.close)
            for name, volume in volumes.items()
            if (empty_dir := volume.child("empty_dir")) is not None
            and (string(empty_dir.attribute("medium")) or "").strip() == "Memory"
            and empty_dir.attribute("size_limit") is None
        }
        for (container, holder), verdict in zip(containers, judged, strict=True):
            slots = tuple(slot_of[s.name] for s in verdict.shm if s.name in slot_of)
            identity = WorkloadId(
                WorkloadFormat.TERRAFORM, kind, name, "", holder, string(container.attribute("name")) or "?"
            )
            target = HclTarget(POD_SHAPES[blocks], pod.close, container.close, frozenset(volumes), slots)
            yield verdict.workload(identity, _span(source, container), target)


def _container(source: SourceText, container: Block, holder: str, blocks: PodBlocks) -> PodContainer:
    image, command, args = (container.attribute(key) for key in ("image", "command", "args"))
    entrypoint, arguments = tuple(words(command)), tuple(words(args))
    mounts = container.children(blocks.volume_mount)
    shm = next((m for m in mounts if is_shm_path(string(m.attribute("mount_path")) or "")), None)
    where = command or image
    return PodContainer(
        holder=holder,
        image=string(image),
        image_span=_span(source, image) if image is not None else None,
        entrypoint=entrypoint,
        arguments=arguments,
        words=entrypoint + arguments,
        command_span=_span(source, where) if where is not None else None,
        env=tuple(_env(source, container)),
        resources=tuple(_resource_entries(source, container)),
        memory_limit=k8s_size(source, entry(_resources(container, "limits"), "memory")),
        shm_mount=(string(shm.attribute("name")) or "") if shm is not None else None,
        mounts=tuple(_mount(mount) for mount in mounts),
        working_dir=string(container.attribute("working_dir")) or "",
    )


def _mount(mount: Block) -> VolumeMount:
    name, path, sub_path = (string(mount.attribute(key)) or "" for key in ("name", "mount_path", "sub_path"))
    return name, path, sub_path


def _medium(source: SourceText, value: Value | None) -> str:
    """An ``empty_dir`` medium: the literal, or an expression (``var.medium``) spelled as Terraform interpolates it
    (``${var.medium}``), a value known at plan time that the pod reader judges as a template's placeholder."""
    if value is None or value.kind == NULL:  # ``medium = null``: unset, the default disk
        return ""
    literal = string(value)
    if literal is not None:
        return literal
    written = source.text[value.start : value.end]
    return written if "${" in written else "${" + written + "}"  # a quoted template interpolates already


def _volume(source: SourceText, name: str, volume: Block) -> PodVolume:
    span = _span(source, volume)
    empty_dir = volume.child("empty_dir")
    if empty_dir is not None:
        medium = _medium(source, empty_dir.attribute("medium"))
        size = k8s_size(source, empty_dir.attribute("size_limit"))
        return PodVolume(name, span, "empty_dir", True, medium, size)
    host_path = volume.child("host_path")
    if host_path is not None:
        path = host_path.attributes.get("path")
        text = (string(path.value) if path is not None else None) or "?"
        return PodVolume(
            name, span, "host_path", host_path=text, host_path_span=_span(source, path) if path is not None else None
        )
    config_map = volume.child("config_map")
    if config_map is not None and string(config_map.attribute("name")):
        items = ((string(i.attribute("key")), string(i.attribute("path"))) for i in config_map.children("items"))
        kept = tuple((key, path) for key, path in items if key and path)
        return PodVolume(name, span, "config_map", config_map=string(config_map.attribute("name")) or "", items=kept)
    kinds = [block.type for block in volume.blocks]
    return PodVolume(name, span, kinds[0] if kinds else "volume")


def _env(source: SourceText, container: Block) -> Iterator[EnvVar]:
    for env in container.children("env"):
        key, value = string(env.attribute("name")), string(env.attribute("value"))
        if key and value is not None:
            yield key, value, _span(source, env)


def _resource_entries(source: SourceText, container: Block) -> Iterator[Resource]:
    for section in ("limits", "requests"):
        resources = _resources(container, section)
        for item in resources.items if resources is not None and resources.kind == OBJECT else ():
            if item.key:
                yield section, item.key, _count(source, item.value), source.span(item.start, item.value.end)


def _count(source: SourceText, value: Value) -> str:
    """A resource's count as written, one Terraform computes at plan time as its interpolation
    (``${local.gpu_config.accelerator_count}``): a count filled in later, as a template's placeholder is (audit72c:
    a vLLM Deployment's GPUs from a local were not seen at all)."""
    text = string(value)
    if text is not None or value.kind in (NULL, BOOL):  # ``null``, ``false``: no count at all
        return text if text is not None else source.text[value.start : value.end]
    return "${" + clipped(source.text[value.start : value.end], 60) + "}"


def k8s_size(source: SourceText, value: Value | None) -> Size | None:
    """A Kubernetes quantity; one Terraform computes at plan time is a size shmlint cannot read."""
    if value is None:
        return None
    span = source.span(value.start, value.end)
    text = string(value)
    if text is None:
        return Size(source.text[value.start : value.end], None, span, sizes.KUBERNETES)
    return quantity(text, span)


def words(value: Value | None) -> list[str]:
    """A list of literal strings (``command = ["python", "train.py"]``); what Terraform computes is left out."""
    if value is None or value.kind != TUPLE:
        return []
    return [text for item in value.items if (text := string(item.value)) is not None]


def _span(source: SourceText, node: Block | Value | Attribute) -> Span:
    return source.span(node.start, node.end)


def _pod_specs(resource: Block, blocks: PodBlocks) -> Iterator[Block]:
    """Pod spec blocks (``spec`` holding ``container`` blocks), found by shape wherever the resource nests them."""
    stack = [resource]
    while stack:
        block = stack.pop()
        if block.type == blocks.spec and (block.children(blocks.container) or block.children(blocks.init_container)):
            yield block
            continue
        stack.extend(reversed(block.blocks))


def _resources(container: Block, section: str) -> Value | None:
    """``resources { limits = {...} }``; the provider's older block form ``limits { ... }`` reads the same."""
    resources = container.child("resources")
    if resources is None:
        return None
    value = resources.attribute(section)
    if value is not None:
        return value
    block = resources.child(section)
    if block is None:
        return None
    items = tuple(Item(a.name, a.start, a.value) for a in block.attributes.values())
    return Value(OBJECT, None, block.start, block.end, items)
