"""Terraform's ``docker_container`` read into the docker options judge's view (``shmlint.containers.docker``):
``shm_size`` and ``memory`` in MiB, ``mounts``/``volumes`` blocks, a ``tmpfs`` map, an ``env`` list."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.containers import base_dir
from shmlint.containers.docker import (
    DEVICE,
    ENV,
    GPUS,
    IPC,
    MOUNT,
    RUNTIME,
    SHM_SIZE,
    TMPFS,
    DockerOptions,
    Setting,
    judge_docker,
    tmpfs_size,
)
from shmlint.extract.terraform_ecs import hcl_mib
from shmlint.formats.terraform.pod import words
from shmlint.formats.terraform.target import HclTarget
from shmlint.model import Size, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.hcl import OBJECT, TUPLE, UNKNOWN, Attribute, Block, Value, string
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

DOCKER_CONTAINER = "docker_container"


def docker_workload(source: SourceText, signals: Signals, resource: Block) -> Workload:
    image, entrypoint, command = (resource.attribute(key) for key in ("image", "entrypoint", "command"))
    where = command or image
    memory = resource.attribute("memory")
    options = DockerOptions(
        base_dir=base_dir(source.path),
        settings=tuple(_settings(source, resource)),
        image=string(image),
        image_span=_span(source, image) if image is not None else None,
        entrypoint=tuple(words(entrypoint)),
        arguments=tuple(words(command)),
        command_span=_span(source, where) if where is not None else None,
        working_dir=string(resource.attribute("working_dir")) or "",
        memory=hcl_mib(memory, source, strings_are_numbers=True) if memory is not None else None,
    )
    return judge_docker(options, signals).workload(
        WorkloadId(WorkloadFormat.TERRAFORM, DOCKER_CONTAINER, resource.labels[1], "", "container"),
        _span(source, resource),
        HclTarget("docker", resource.close),
    )


def _settings(source: SourceText, resource: Block) -> Iterator[Setting]:
    """The resource's settings in the order docker reads them: GPUs, the environment, then /dev/shm."""
    yield from _attribute(source, resource.attributes.get("gpus"), GPUS, 'gpus = "{}"')
    yield from _attribute(source, resource.attributes.get("runtime"), RUNTIME, 'runtime = "{}"')
    for device in resource.children("devices"):
        path = string(device.attribute("host_path")) or ""
        yield Setting(DEVICE, path, f"devices {path}", _span(source, device))
    env = resource.attribute("env")
    for item in env.items if env is not None and env.kind == TUPLE else ():
        text = string(item.value)
        if text is not None:
            yield Setting(ENV, text, f"env {text}", _span(source, item.value))
    size = resource.attributes.get("shm_size")
    if size is not None:
        yield Setting(
            SHM_SIZE, None, "shm_size", _span(source, size), hcl_mib(size.value, source, strings_are_numbers=True)
        )
    yield from _attribute(source, resource.attributes.get("ipc_mode"), IPC, 'ipc_mode = "{}"')
    yield from _mounts(source, resource)
    tmpfs = resource.attributes.get("tmpfs")
    for item in tmpfs.value.items if tmpfs is not None and tmpfs.value.kind == OBJECT else ():
        if item.key and is_shm_path(item.key):
            options = string(item.value)
            text = source.text[item.value.start : item.value.end]
            sized = tmpfs_size(options, text, _span(source, item.value))
            yield Setting(TMPFS, options, "tmpfs /dev/shm", source.span(item.start, item.value.end), sized)


def _attribute(source: SourceText, attribute: Attribute | None, kind: str, shown: str) -> Iterator[Setting]:
    """An attribute's literal string (None when computed), quoted in messages as ``shown``."""
    if attribute is not None:
        value = string(attribute.value)
        yield Setting(kind, value, shown.format(value or "?"), _span(source, attribute))


def _mounts(source: SourceText, resource: Block) -> Iterator[Setting]:
    """``mounts`` and ``volumes`` blocks at /dev/shm; a mount type other than tmpfs or bind is a volume here."""
    for mount in resource.children("mounts"):
        if not is_shm_path(string(mount.attribute("target")) or ""):
            continue
        span = _span(source, mount)
        kind = string(mount.attribute("type")) or ""
        if kind == "tmpfs":
            options = mount.child("tmpfs_options")
            value = options.attribute("size_bytes") if options is not None else None
            size = _byte_size(source, value) if value is not None else None
            yield Setting(MOUNT, "tmpfs", "mounts tmpfs /dev/shm", span, size)
        elif kind == "bind":
            host = string(mount.attribute("source")) or "?"
            yield Setting(MOUNT, "bind", f"mounts bind of {host}", span, host=host)
        else:
            yield Setting(MOUNT, "volume", f"mounts {kind or 'volume'} at /dev/shm", span)
    for volume in resource.children("volumes"):
        if is_shm_path(string(volume.attribute("container_path")) or ""):
            host_path = string(volume.attribute("host_path"))
            if host_path is not None:
                yield Setting(MOUNT, "bind", f"volumes host_path {host_path}", _span(source, volume), host=host_path)
            else:
                yield Setting(MOUNT, "volume", "volumes at /dev/shm", _span(source, volume))


def _span(source: SourceText, node: Block | Value | Attribute) -> Span:
    return source.span(node.start, node.end)


def _byte_size(source: SourceText, value: Value) -> Size:
    span = source.span(value.start, value.end)
    text = source.text[value.start : value.end]
    if isinstance(value.value, int) and not isinstance(value.value, bool) and value.value >= 0:
        return Size(text, value.value, span, "bytes")
    return Size(text, None, span, "bytes", None if value.kind == UNKNOWN else f"'{text}' is not a number of bytes")
