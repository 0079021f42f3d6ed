"""Terraform's ``docker_container`` read into the docker options judge's view (``shmlint.containers.docker``):
``shm_size`` and ``memory`` in MiB, ``mounts``/``volumes`` blocks, a ``tmpfs`` map, an ``env`` list."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.containers.docker import BIND, TMPFS, DockerOptions, MountOption, Spelled, judge_docker
from shmlint.containers.judged import EnvVar, base_dir
from shmlint.extract.terraform_ecs import hcl_mib
from shmlint.extract.terraform_pod import words
from shmlint.model import Size, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.hcl import OBJECT, TUPLE, UNKNOWN, Attribute, Block, Value, string
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals
from shmlint.source import SourceText, Span
from shmlint.targets import HclTarget

DOCKER_CONTAINER = "docker_container"


def docker_workload(source: SourceText, signals: Signals, resource: Block) -> Workload:
    image, entrypoint, command = (resource.attribute(key) for key in ("image", "entrypoint", "command"))
    where = command or image
    size = resource.attributes.get("shm_size")
    memory = resource.attribute("memory")
    options = DockerOptions(
        base_dir=base_dir(source.path),
        image=_spelled(source, image, string(image)) if image is not None else None,
        entrypoint=tuple(words(entrypoint)),
        arguments=tuple(words(command)),
        command_span=source.span(where.start, where.end) if where is not None else None,
        working_dir=string(resource.attribute("working_dir")) or "",
        env=tuple(_env(source, resource)),
        shm_size=(
            hcl_mib(size.value, source, strings_are_numbers=True),
            source.span(size.start, size.end),
        )
        if size is not None
        else None,
        ipc=_attribute(source, resource.attributes.get("ipc_mode"), 'ipc_mode = "{}"'),
        tmpfs=tuple(_tmpfs(source, resource)),
        mounts=tuple(_mounts(source, resource)),
        gpus=_attribute(source, resource.attributes.get("gpus"), 'gpus = "{}"'),
        runtime=_attribute(source, resource.attributes.get("runtime"), 'runtime = "{}"'),
        devices=tuple(
            Spelled(path, f"devices {path}", source.span(device.start, device.end))
            for device in resource.children("devices")
            for path in [string(device.attribute("host_path")) or ""]
        ),
        memory=hcl_mib(memory, source, strings_are_numbers=True) if memory is not None else None,
    )
    return judge_docker(options, signals).workload(
        WorkloadId(WorkloadFormat.TERRAFORM, DOCKER_CONTAINER, resource.labels[1], "", "container"),
        source.span(resource.start, resource.end),
        HclTarget("docker", resource.close),
    )


def _spelled(source: SourceText, value: Value, text: str | None) -> Spelled:
    return Spelled(text, source.text[value.start : value.end], source.span(value.start, value.end))


def _attribute(source: SourceText, attribute: Attribute | None, shown: str) -> Spelled | None:
    """An attribute's literal string (None when computed), quoted in messages as ``shown``."""
    if attribute is None:
        return None
    value = string(attribute.value)
    return Spelled(value, shown.format(value or "?"), source.span(attribute.start, attribute.end))


def _env(source: SourceText, resource: Block) -> Iterator[EnvVar]:
    env = resource.attribute("env")
    for item in env.items if env is not None and env.kind == TUPLE else ():
        text = string(item.value)
        if text is not None:
            key, _, setting = text.partition("=")
            yield EnvVar(key, setting, source.span(item.value.start, item.value.end))


def _tmpfs(source: SourceText, resource: Block) -> Iterator[tuple[Span, Spelled]]:
    tmpfs = resource.attributes.get("tmpfs")
    for item in tmpfs.value.items if tmpfs is not None and tmpfs.value.kind == OBJECT else ():
        if item.key and is_shm_path(item.key):
            yield source.span(item.start, item.value.end), _spelled(source, item.value, string(item.value))


def _mounts(source: SourceText, resource: Block) -> Iterator[MountOption]:
    for mount in resource.children("mounts"):
        if not is_shm_path(string(mount.attribute("target")) or ""):
            continue
        span = source.span(mount.start, mount.end)
        kind = string(mount.attribute("type")) or ""
        if kind == TMPFS:
            options = mount.child("tmpfs_options")
            value = options.attribute("size_bytes") if options is not None else None
            size = _byte_size(source, value) if value is not None else None
            yield MountOption(TMPFS, span, "mounts tmpfs /dev/shm", size)
        elif kind == BIND:
            host = string(mount.attribute("source")) or "?"
            yield MountOption(BIND, span, f"mounts bind of {host}", host=host)
        else:
            yield MountOption("volume", span, f"mounts {kind or 'volume'} at /dev/shm")
    for volume in resource.children("volumes"):
        if is_shm_path(string(volume.attribute("container_path")) or ""):
            span = source.span(volume.start, volume.end)
            host_path = string(volume.attribute("host_path"))
            if host_path is not None:
                yield MountOption(BIND, span, f"volumes host_path {host_path}", host=host_path)
            else:
                yield MountOption("volume", span, "volumes at /dev/shm")


def _byte_size(source: SourceText, value: Value) -> Size:
    span = source.span(value.start, value.end)
    text = source.text[value.start : value.end]
    if isinstance(value.value, int) and not isinstance(value.value, bool) and value.value >= 0:
        return Size(text, value.value, span, "bytes")
    return Size(text, None, span, "bytes", None if value.kind == UNKNOWN else f"'{text}' is not a number of bytes")
