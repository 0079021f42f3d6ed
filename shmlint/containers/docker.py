"""Docker/podman run options given as settings (Terraform's ``docker_container``, the Python docker SDK's
``containers.run``) judged for /dev/shm, once for every syntax that writes them.

An adapter reads its syntax into ``DockerOptions`` (each value with the span and the words its file writes it
with); this module decides what they mean, as docker does: ``shm_size`` sizes the IPC namespace's /dev/shm,
``ipc_mode`` may share another's (``shmlint.runtime.ipc``), a tmpfs, bind or volume at /dev/shm replaces it, a GPU
comes from ``gpus``, a device request, a GPU runtime, a device node or a visibility variable.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint import sizes
from shmlint.containers.judged import EnvVar, Judged, gpu_env, nccl_disabled, torch_evidence
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size
from shmlint.named_tuple import NamedTuple
from shmlint.runtime.ipc import ipc_mode
from shmlint.signals import Signals, device_count, gpu_visible
from shmlint.source import Span

TMPFS = "tmpfs"
BIND = "bind"


class Spelled(NamedTuple):
    """A setting's value (``None`` when the file computes it), as the file writes it, and where."""

    value: str | None
    text: str
    span: Span


class MountOption(NamedTuple):
    """Something mounted at /dev/shm: ``type`` ``tmpfs``, ``bind`` (``host`` is the folder) or a volume."""

    type: str
    span: Span
    described: str
    size: Size | None = None
    host: str | None = None


class DockerOptions(NamedTuple):
    """What a container's options say, each with its place; ``env_label`` is how messages name the environment."""

    base_dir: str  # the file's folder, where relative paths of a launch start
    image: Spelled | None = None
    entrypoint: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    command_span: Span | None = None
    working_dir: str = ""
    env: tuple[EnvVar, ...] = ()
    env_label: str = "env"
    shm_size: tuple[Size, Span] | None = None
    ipc: Spelled | None = None
    tmpfs: tuple[tuple[Span, Spelled], ...] = ()  # /dev/shm entries: where, and their options (``size=8g``)
    mounts: tuple[MountOption, ...] = ()
    gpus: Spelled | None = None  # ``gpus = "all"``
    runtime: Spelled | None = None
    devices: tuple[Spelled, ...] = ()  # host device paths
    device_requests: tuple[Evidence, ...] = ()  # GPU device requests, as the file writes them
    memory: Size | None = None
    unresolved: tuple[ShmSource, ...] = ()  # options spread from a value known at run time (``**options``)


def judge_docker(options: DockerOptions, signals: Signals) -> Judged:
    words = options.entrypoint + options.arguments
    gpu = tuple(_gpu(options, signals))
    image = options.image.value if options.image is not None else None
    image_span = options.image.span if options.image is not None else None
    torch = tuple(torch_evidence(image, image_span, words, options.command_span, signals))
    if signals.is_utility_command(list(words)):
        gpu, torch = (), ()
    env = tuple((var.name, var.value) for var in options.env)
    launch = Launch(options.base_dir, options.entrypoint, options.arguments, options.working_dir, env)
    return Judged(
        gpu=gpu,
        torch=torch,
        shm=tuple(_shm(options)),
        memory_limit=options.memory,
        nccl_shm_disabled=nccl_disabled(options.env, options.env_label),
        image=image,
        command=" ".join(words),
        accelerator_count=_accelerator_count(options, signals) if gpu else None,
        launch=launch if gpu or torch else None,
    )


def tmpfs_size(options: Spelled) -> Size | None:
    """The ``size=`` of a tmpfs option string (``size=8g,mode=1777``); unknown when the file computes it."""
    if options.value is None:
        return Size(options.text, None, options.span, sizes.DOCKER)
    for option in options.value.split(","):
        key, _, setting = option.partition("=")
        if key.strip() == "size":
            parsed = sizes.parse_docker(setting)
            return Size(setting, parsed.bytes, options.span, sizes.DOCKER, parsed.error, parsed.suggestion)
    return None


def _gpu(options: DockerOptions, signals: Signals) -> Iterator[Evidence]:
    if options.gpus is not None and (options.gpus.value or "").strip() not in ("", "0"):
        yield Evidence(options.gpus.text, options.gpus.span)
    yield from options.device_requests
    if options.runtime is not None and signals.is_gpu_runtime(options.runtime.value or ""):
        yield Evidence(options.runtime.text, options.runtime.span)
    for device in options.devices:
        if signals.is_gpu_device(device.value or ""):
            yield Evidence(device.text, device.span)
    yield from gpu_env(options.env, signals, options.env_label)


def _accelerator_count(options: DockerOptions, signals: Signals) -> int | None:
    """GPUs ``gpus`` asks for (``2``, ``device=0,1``; None for ``all``), else what a counted visibility variable
    lists."""
    if options.gpus is not None and options.gpus.value is not None:
        return device_count(options.gpus.value)
    listed = [
        device_count(var.value) for var in options.env if var.name in signals.counted_envs and gpu_visible(var.value)
    ]
    return max((count for count in listed if count is not None), default=None)


def _shm(options: DockerOptions) -> Iterator[ShmSource]:
    if options.shm_size is not None:
        size, span = options.shm_size
        yield ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, "shm_size", size)
    if options.ipc is not None:
        kind = ipc_mode(options.ipc.value).kind if options.ipc.value is not None else ShmKind.UNKNOWN
        if kind is not None:
            yield ShmSource(kind, ShmMechanism.IPC_MODE, options.ipc.span, options.ipc.text)
    for mount in options.mounts:
        if mount.type == TMPFS:
            yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, mount.span, mount.described, mount.size)
        elif mount.type == BIND:
            yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, mount.span, mount.described, host_path=mount.host)
        else:
            yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, mount.span, mount.described)
    for span, entry in options.tmpfs:
        yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, span, "tmpfs /dev/shm", tmpfs_size(entry))
    yield from options.unresolved
