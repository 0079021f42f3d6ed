"""Akash Network SDL (``deploy.yaml``) -> one Workload per service the deployment places.

A provider runs each service as a Kubernetes pod. The compute profile its placement names
(``deployment.<service>.<placement>.profile``) gives its GPUs (``profiles.compute.<profile>.resources.gpu.units``)
and its memory. Its /dev/shm is the container runtime's 64 MiB unless the service mounts one of its profile's
storage volumes there (``params.storage.<volume>.mount: /dev/shm``): the ``ram`` storage class is a memory-backed
emptyDir of the volume's ``size``, never persistent, counted in the service's memory
(https://github.com/akash-network/support/issues/179, where the class was made for /dev/shm); any other class is a
persistent disk. A ram volume the service mounts nowhere is one declared for /dev/shm and left unmounted.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.containers import base_dir
from shmlint.containers.pod import quantity
from shmlint.formats.akash.target import AkashTarget
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, scalar, sequence
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import MAX_DEVICES, Signals
from shmlint.source import SourceText, Span

#: the storage class Akash backs with memory
RAM_CLASS = "ram"
#: the top-level sections an SDL has, all mappings
_SECTIONS = ("services", "profiles", "deployment")


def is_akash_sdl(documents: list[Node]) -> bool:
    """An SDL: its services, its profiles with their compute section, its deployment, and its version."""
    m = Mappings()
    document = next((d for d in documents if isinstance(d, MappingNode)), None)
    return (
        document is not None
        and m.get(document, "version") is not None
        and all(isinstance(m.get(document, key), MappingNode) for key in _SECTIONS)
        and isinstance(m.path(document, "profiles", "compute"), MappingNode)
    )


def extract_akash(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    document = next(d for d in documents if isinstance(d, MappingNode))
    return list(_Extractor(source, signals, document).workloads())


class _Extractor:
    def __init__(self, source: SourceText, signals: Signals, document: MappingNode) -> None:
        self.source, self.signals, self.document, self.m = source, signals, document, Mappings()

    def span(self, node: Node) -> Span:
        return self.source.span(node.start_mark.index, node.end_mark.index)

    def workloads(self) -> Iterator[Workload]:
        m = self.m
        for name, (key, service) in m.items(m.get(self.document, "services")).items():
            if isinstance(service, MappingNode):
                yield self.workload(name, key, service, self.resources(name))

    def resources(self, service: str) -> MappingNode | None:
        """The ``resources`` of the compute profile the service's first placement names."""
        m = self.m
        placements = m.items(m.path(self.document, "deployment", service))
        profile = next((scalar(m.get(placed, "profile")) for _, (_, placed) in placements.items()), None)
        found = m.path(self.document, "profiles", "compute", profile or "", "resources") if profile else None
        return found if isinstance(found, MappingNode) else None

    def workload(self, name: str, key: ScalarNode, service: MappingNode, resources: MappingNode | None) -> Workload:
        m = self.m
        image = scalar(m.get(service, "image")) or ""
        entrypoint = tuple(self.words(m.get(service, "command")))
        arguments = tuple(self.words(m.get(service, "args")))
        command = " ".join((*entrypoint, *arguments))
        gpu, count = self.gpus(resources)
        torch = tuple(self.torch(service, image, command))
        env = tuple(pair for item in sequence(m.get(service, "env")) if (pair := _variable(scalar(item) or "")))
        launch = Launch(base_dir(self.source.path), entrypoint, arguments, "", env, manifest=self.source.path)
        memory = m.path(resources, "memory", "size")
        return Workload(
            id=WorkloadId(WorkloadFormat.AKASH, "Akash service", name),
            span=self.span(key),
            gpu=gpu,
            torch=torch,
            shm=tuple(self.shm(service, resources)),
            memory_limit=quantity(scalar(memory) or "", self.span(memory)) if scalar(memory) else None,
            image=image or None,
            command=command,
            accelerator_count=count,
            launch=launch if gpu or torch else None,
            target=AkashTarget(service.start_mark.index, resources.start_mark.index) if resources else None,
        )

    def words(self, node: Node | None) -> Iterator[str]:
        """A command or its arguments: a list of words, or one string (a word of its own, as Akash passes it)."""
        items = sequence(node) if node is not None and not isinstance(node, ScalarNode) else [node]
        yield from (text for item in items if item is not None and (text := scalar(item)) is not None)

    def gpus(self, resources: MappingNode | None) -> tuple[tuple[Evidence, ...], int | None]:
        """``gpu.units`` above zero, and its count."""
        units = self.m.path(resources, "gpu", "units")
        text = (scalar(units) or "").strip()
        if units is None or not text.isdigit() or not 0 < int(text) <= MAX_DEVICES:
            return (), None
        return (Evidence(f"gpu units {text}", self.span(units)),), int(text)

    def torch(self, service: MappingNode, image: str, command: str) -> Iterator[Evidence]:
        node = self.m.get(service, "image")
        if node is not None and self.signals.is_torch_image(image):
            yield Evidence(f"image {image}", self.span(node))
        launched = self.signals.torch_command(command)
        if launched:
            yield Evidence(f"command {launched}", self.span(self.m.get(service, "args") or service))

    def shm(self, service: MappingNode, resources: MappingNode | None) -> Iterator[ShmSource]:
        """The volume mounted at /dev/shm, by its class; ram volumes of the profile mounted nowhere."""
        m = self.m
        volumes = {volume.name: volume for volume in storage(self.source, resources)}
        mounted = m.items(m.path(service, "params", "storage"))
        for name, (key, params) in mounted.items():
            if not is_shm_path(scalar(m.get(params, "mount")) or ""):
                continue
            span, declared = self.span(key), volumes.get(name)
            if declared is None:
                yield ShmSource(ShmKind.UNKNOWN, ShmMechanism.VOLUME, span, f'storage "{name}" (not in the profile)')
            elif declared.ram:
                yield ShmSource(
                    ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, f'ram volume "{name}"', declared.size, name
                )
            else:
                described = f'storage "{name}" (class {declared.kind or "default"})'
                yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, described, name=name)
            return
        for volume in volumes.values():
            if volume.ram and volume.name not in mounted:
                described = f'ram volume "{volume.name}"'
                yield ShmSource(
                    ShmKind.UNMOUNTED, ShmMechanism.TMPFS_MOUNT, volume.span, described, volume.size, volume.name
                )


class Volume(NamedTuple):
    """One storage volume of a compute profile (one without a name is ``default``)."""

    name: str
    kind: str  # its ``attributes.class``
    size: Size | None
    span: Span
    node: MappingNode

    @property
    def ram(self) -> bool:
        return self.kind == RAM_CLASS


def storage(source: SourceText, resources: MappingNode | None) -> Iterator[Volume]:
    """The storage volumes of a profile's ``resources``: a list of them, or one mapping."""
    m = Mappings()
    found = m.get(resources, "storage")
    for entry in [found] if isinstance(found, MappingNode) else sequence(found):
        if not isinstance(entry, MappingNode):
            continue
        size = m.get(entry, "size")
        written = scalar(size)
        span = source.span(entry.start_mark.index, entry.end_mark.index)
        yield Volume(
            scalar(m.get(entry, "name")) or "default",
            (scalar(m.path(entry, "attributes", "class")) or "").strip(),
            quantity(written, source.span(size.start_mark.index, size.end_mark.index)) if written and size else None,
            span,
            entry,
        )


def _variable(item: str) -> tuple[str, str] | None:
    """``NAME=value`` of a service's ``env`` list."""
    name, equals, value = item.partition("=")
    return (name.strip(), value) if equals and name.strip() else None
