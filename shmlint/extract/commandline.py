"""``docker run`` / ``podman run`` / ``nvidia-docker run`` command lines as workloads.

The command line is split by ``shmlint.parsers.container_command``; this module only judges the parsed command:
GPU and torch evidence, the /dev/shm its options give, and where a fix can write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from shmlint import sizes
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.container_command import ContainerCommand, Flag, container_commands
from shmlint.runtime import nccl
from shmlint.runtime.ipc import ipc_mode
from shmlint.runtime.mounts import Option, classify_mount, find_option, parse_mount, parse_tmpfs, parse_volume
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals, device_count, gpu_visible
from shmlint.source import SourceText, Span
from shmlint.targets import CommandTarget, SizeSlot


def extract_commands(source: SourceText, masked: str, signals: Signals) -> list[Workload]:
    """One workload per container run/create command line in the masked text."""
    workloads: list[Workload] = []
    for command in container_commands(masked):
        workloads.append(command_workload(command, source, signals, occurrence=len(workloads)))
    return workloads


def command_workload(command: ContainerCommand, source: SourceText, signals: Signals, *, occurrence: int) -> Workload:
    """A container command as a workload; formats that start a container from options (Ray, Quadlet, dev containers, CI jobs) take this
    and put in their own identity, span and fix target."""
    span = source.span(command.first.start, command.first.end)
    entrypoint = command.flag_values("--entrypoint")[-1:]
    argv = [(flag.value_text, flag.flag.start, flag.end) for flag in entrypoint]
    argv += [(word.text, word.start, word.end) for word in command.arguments]
    utility = signals.is_utility_command([text for text, _, _ in argv])
    gpu = () if utility else tuple(_gpu_evidence(command, source, signals))
    shm, slots = _shm_sources(command, source)
    memory = command.flag_values("--memory")
    image = command.image
    return Workload(
        id=WorkloadId(WorkloadFormat.COMMAND, command.name, occurrence=occurrence),
        span=span,
        gpu=gpu,
        torch=() if utility else tuple(_torch_evidence(command, argv, source, signals)),
        shm=tuple(shm),
        memory_limit=_size(memory[-1], source) if memory else None,
        nccl_shm_disabled=_nccl_shm_disabled(command, source),
        target=CommandTarget(insert_at=command.run_word.end, size_slots=tuple(slots)),
        image=image.text if image is not None and not image.dynamic else None,
        command=" ".join(text for text, _, _ in argv),
        accelerator_count=_accelerator_count(command, signals) if gpu else None,
        launch=_launch(command, source) if gpu else None,
    )


def _launch(command: ContainerCommand, source: SourceText) -> Launch:
    """What the container starts (``--entrypoint``, its arguments, ``-w``, ``-e NAME=value``), for following it
    into the repository (``shmlint.project``); relative paths start from the file's folder."""
    entrypoint = command.flag_values("--entrypoint")[-1:]
    workdir = command.flag_values("--workdir")[-1:]
    env = tuple(
        (name, value.strip("\"'"))
        for flag in command.flag_values("--env")
        for name, equals, value in [flag.value_text.partition("=")]
        if equals and not flag.dynamic
    )
    return Launch(
        os.path.dirname(source.path) or ".",
        tuple(flag.value_text for flag in entrypoint),
        tuple(word.text for word in command.arguments),
        workdir[0].value_text if workdir else "",
        env,
    )


def _gpu_evidence(command: ContainerCommand, source: SourceText, signals: Signals) -> Iterable[Evidence]:
    if command.engine.text.rsplit("/", 1)[-1] == "nvidia-docker":
        yield Evidence("nvidia-docker", source.span(command.engine.start, command.engine.end))
    for flag in command.flags:
        if flag.value is not None and _is_gpu_option(flag.long_name, flag.value_text, signals):
            yield Evidence(flag.shown(), source.span(flag.flag.start, flag.end))


def _accelerator_count(command: ContainerCommand, signals: Signals) -> int | None:
    """GPUs ``--gpus`` asks for (``2``, ``"device=0,1"``; None for ``all``), else what a counted visibility
    variable lists (``-e NVIDIA_VISIBLE_DEVICES=0,1``)."""
    gpus = command.flag_values("--gpus")
    if gpus:
        return device_count(gpus[-1].value_text)
    listed = [
        device_count(value)
        for flag in command.flag_values("--env")
        for name in signals.counted_envs
        if (value := _env(flag.value_text, name)) is not None and gpu_visible(value)
    ]
    return max((count for count in listed if count is not None), default=None)


def _is_gpu_option(name: str, value: str, signals: Signals) -> bool:
    value = value.strip().strip("\"'")
    if name == "--gpus":
        return value != "0"  # docker reads --gpus 0 as no GPUs
    if name == "--runtime":
        return signals.is_gpu_runtime(value)
    if name == "--device":
        return signals.is_gpu_device(value)
    if name == "--env":
        key, equals, setting = value.partition("=")
        return bool(equals) and signals.is_gpu_env(key, setting.strip().strip("\"'"))
    return False


def _env(value: str, name: str) -> str | None:
    """The value an ``-e NAME=value`` option gives ``name``, or None when it sets something else."""
    key, equals, setting = value.partition("=")
    return setting.strip().strip("\"'") if equals and key == name else None


def _torch_evidence(
    command: ContainerCommand, argv: list[tuple[str, int, int]], source: SourceText, signals: Signals
) -> Iterable[Evidence]:
    image = command.image
    if image is not None and not image.dynamic and signals.is_torch_image(image.text):
        yield Evidence(f"image {image.text}", source.span(image.start, image.end))
    joined = " ".join(text for text, _, _ in argv)
    launcher = signals.torch_command(joined)
    if launcher:
        begin = joined.find(launcher)
        finish = begin + len(launcher)
        covered, position = [], 0
        for text, start, end in argv:  # the words the launcher text was found in
            if position < finish and position + len(text) >= begin:
                covered.append((start, end))
            position += len(text) + 1
        yield Evidence(launcher, source.span(covered[0][0], covered[-1][1]))


def _nccl_shm_disabled(command: ContainerCommand, source: SourceText) -> Evidence | None:
    for flag in command.flag_values("--env"):
        value = _env(flag.value_text, nccl.SHM_DISABLE)
        if value is not None and nccl.disables_shm(value):
            return Evidence(flag.shown(), source.span(flag.flag.start, flag.end))
    return None


def _shm_sources(command: ContainerCommand, source: SourceText) -> tuple[list[ShmSource], list[SizeSlot]]:
    found: list[ShmSource] = []
    slots: list[SizeSlot] = []
    for option in command.flags:
        if option.value is None:
            continue
        span = source.span(option.flag.start, option.end)
        name, value = option.long_name, option.value_text.strip()
        if name == "--shm-size":
            found.append(
                ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, "--shm-size", _size(option, source))
            )
        elif name == "--ipc":
            kind = ShmKind.UNKNOWN if option.dynamic else ipc_mode(value).kind
            if kind is not None:
                found.append(ShmSource(kind, ShmMechanism.IPC_MODE, span, f"--ipc={value}"))
        elif name == "--tmpfs":
            found.extend(_tmpfs(option, span, source, slots))
        elif name == "--mount":
            found.extend(_mount(option, span, source, slots))
        elif name == "--volume":
            found.extend(_volume(option, span))
    for word in command.unknown:
        description = f"{word.text} (expanded at run time)"
        span = source.span(word.start, word.end)
        found.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, description))
    return found, slots


def _tmpfs(option: Flag, span: Span, source: SourceText, slots: list[SizeSlot]) -> Iterable[ShmSource]:
    spec = parse_tmpfs(option.value_text)
    if not is_shm_path(spec.target):
        return
    size = find_option(spec.options, "size")
    if size is not None:
        unknown = option.dynamic or size.value.endswith("%")  # the kernel also takes a share of RAM: 50%
        sized = _option_size(option, size, source, unknown)
        yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, span, "--tmpfs /dev/shm", sized)
        return
    prefix = ",size=" if spec.options else "size=" if spec.has_options else ":size="
    slots.append(SizeSlot(span.start, option.end, prefix, in_bytes=False))
    yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, span, "--tmpfs /dev/shm")


def _mount(option: Flag, span: Span, source: SourceText, slots: list[SizeSlot]) -> Iterable[ShmSource]:
    mount = parse_mount(option.value_text)
    if not is_shm_path(mount.target):
        return
    kind, mechanism = classify_mount(mount)
    if kind is ShmKind.MEMORY:
        size = find_option(mount.options, "tmpfs-size")
        if size is not None:
            sized = _option_size(option, size, source, option.dynamic)
            yield ShmSource(kind, mechanism, span, "--mount type=tmpfs", sized)
        else:
            slots.append(SizeSlot(span.start, option.end, ",tmpfs-size=", in_bytes=True))
            yield ShmSource(kind, mechanism, span, "--mount type=tmpfs")
    elif kind is ShmKind.HOST_PATH:
        host = "the host's /dev/shm" if is_shm_path(mount.source) else mount.source
        yield ShmSource(kind, mechanism, span, f"--mount type=bind of {host}", host_path=mount.source)
    else:
        yield ShmSource(kind, mechanism, span, f"--mount type={mount.type} at /dev/shm")


def _volume(option: Flag, span: Span) -> Iterable[ShmSource]:
    mount = parse_volume(option.value_text)
    if is_shm_path(mount.target):
        kind, mechanism = classify_mount(mount)
        host_path = mount.source if kind is ShmKind.HOST_PATH else None
        yield ShmSource(kind, mechanism, span, f"{option.name} {option.value_text}", host_path=host_path)


def _size(option: Flag, source: SourceText) -> Size:
    return _sized(option.value_text, option.value_start, option.value_end, source, option.dynamic)


def _option_size(option: Flag, size: Option, source: SourceText, unknown: bool) -> Size:
    """The size one mount option gives, spanned on its own characters when the value is written as it reads."""
    if option.exact:
        start = option.value_start + size.start
        return _sized(size.value, start, start + len(size.value), source, unknown)
    return _sized(size.value, option.value_start, option.value_end, source, unknown)


def _sized(text: str, start: int, end: int, source: SourceText, dynamic: bool) -> Size:
    span = source.span(start, end)
    if dynamic:
        return Size(text, None, span, sizes.DOCKER)  # known only at run time: neither a size nor an error
    parsed = sizes.parse(text, sizes.DOCKER)
    return Size(text, parsed.bytes, span, sizes.DOCKER, parsed.error, parsed.suggestion)
