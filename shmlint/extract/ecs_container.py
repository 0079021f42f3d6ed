"""One AWS ECS/Batch container definition (``containerDefinitions[]``, ``containerProperties``) judged for /dev/shm.

The definition arrives as positioned values (``shmlint.parsers.hcl.Value``) whether Terraform wrote it with
``jsonencode({...})`` or as a JSON heredoc; every format that embeds ECS/Batch container definitions can hand them
here. Sizes are integers of MiB (``linuxParameters.sharedMemorySize``, ``tmpfs[].size``, ``memory``), which ECS
passes to docker as ``--shm-size``, ``--tmpfs`` and ``--memory``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from shmlint.model import Evidence, ShmKind, ShmMechanism, ShmSource, Size
from shmlint.parsers.hcl import NUMBER, STRING, TUPLE, UNKNOWN, Item, Value, entry, entry_item, string
from shmlint.runtime import nccl
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals, device_count, positive_count
from shmlint.sizes import MIB
from shmlint.source import SourceText

#: ``Size.dialect`` of an integer number of MiB; the fixers write such sizes as a bare integer
MIB_INTEGER = "mib"


class EcsContainer(NamedTuple):
    """What one container definition says about GPUs, torch and /dev/shm."""

    name: str
    gpu: tuple[Evidence, ...]
    torch: tuple[Evidence, ...]
    shm: tuple[ShmSource, ...]
    memory_limit: Size | None
    nccl_shm_disabled: Evidence | None
    size_slots: tuple[tuple[int, int], ...]  # (tmpfs /dev/shm entry without a size, its closing brace)
    linux_parameters: Value | None  # where ``sharedMemorySize`` belongs, when the object is already there
    image: str | None  # for the tier model (``shmlint.need``), like the other formats' containers
    command: str  # entryPoint and command words joined by spaces
    accelerator_count: int | None  # the GPU resourceRequirements' value when it is a whole number


def judge_container(container: Value, source: SourceText, signals: Signals) -> EcsContainer:
    """``container`` is an object value; anything computed at plan or run time is unknown, never an error."""
    linux = entry(container, "linuxParameters")
    slots: list[tuple[int, int]] = []
    shm = [*_shared_memory(linux, source), *_tmpfs(linux, source, slots), *_mount_points(container, source)]
    return EcsContainer(
        name=string(entry(container, "name")) or "",
        gpu=tuple(_gpu(container, source, signals)),
        torch=tuple(_torch(container, source, signals)),
        shm=tuple(shm),
        memory_limit=_memory(container, source),
        nccl_shm_disabled=_nccl(container, source),
        size_slots=tuple(slots),
        linux_parameters=linux if linux is not None and linux.kind != UNKNOWN else None,
        image=string(entry(container, "image")),
        command=" ".join(_command_words(container)),
        accelerator_count=_gpu_count(container),
    )


def mib_size(value: Value, source: SourceText) -> Size:
    """An integer of MiB as a ``Size``: unknown at plan time when computed, an error when not a whole number."""
    span = source.span(value.start, value.end)
    text = source.text[value.start : value.end]
    if value.kind == UNKNOWN:
        return Size(text, None, span, MIB_INTEGER)
    number = value.value if value.kind == NUMBER else None
    if value.kind == STRING and isinstance(value.value, str) and value.value.strip().isdigit():
        number = int(value.value)  # CloudFormation and the ECS API read "8192" as 8192 too
    if isinstance(number, int) and not isinstance(number, bool) and number >= 0:
        return Size(text, number * MIB, span, MIB_INTEGER)
    return Size(text, None, span, MIB_INTEGER, f"'{text}' is not a whole number of MiB (e.g. 8192)")


def _shared_memory(linux: Value | None, source: SourceText) -> Iterator[ShmSource]:
    item = entry_item(linux, "sharedMemorySize")
    if item is not None:
        span = source.span(item.start, item.value.end)
        size = mib_size(item.value, source)
        yield ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, "linuxParameters.sharedMemorySize", size)
    elif linux is not None and linux.kind == UNKNOWN:
        span = source.span(linux.start, linux.end)
        yield ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, "linuxParameters (computed at plan time)")


def _tmpfs(linux: Value | None, source: SourceText, slots: list[tuple[int, int]]) -> Iterator[ShmSource]:
    for mount in _elements(entry(linux, "tmpfs")):
        if not is_shm_path(string(entry(mount, "containerPath")) or ""):
            continue
        span = source.span(mount.start, mount.end)
        size = entry(mount, "size")
        if size is None:
            slots.append((span.start, mount.end - 1))
        sized = mib_size(size, source) if size is not None else None
        yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "linuxParameters.tmpfs /dev/shm", sized)


def _mount_points(container: Value, source: SourceText) -> Iterator[ShmSource]:
    for mount in _elements(entry(container, "mountPoints")):
        if is_shm_path(string(entry(mount, "containerPath")) or ""):
            volume = string(entry(mount, "sourceVolume")) or "?"
            span = source.span(mount.start, mount.end)
            yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, f'volume "{volume}" at /dev/shm', name=volume)


def _elements(value: Value | None) -> Iterator[Value]:
    if value is not None and value.kind == TUPLE:
        yield from (item.value for item in value.items)


def _pairs(container: Value, key: str) -> Iterator[tuple[str, str, Value]]:
    """(name, value, entry) of ``environment`` or ``resourceRequirements`` entries with literal strings."""
    for element in _elements(entry(container, key)):
        name = string(entry(element, "name")) or string(entry(element, "type"))
        value = string(entry(element, "value"))
        if name is not None and value is not None:
            yield name, value, element


def _gpu(container: Value, source: SourceText, signals: Signals) -> Iterator[Evidence]:
    for kind, count, element in _pairs(container, "resourceRequirements"):
        if kind.upper() == "GPU" and positive_count(count):
            yield Evidence(f"resourceRequirements GPU: {count}", source.span(element.start, element.end))
    for name, value, element in _pairs(container, "environment"):
        if signals.is_gpu_env(name, value):
            yield Evidence(f"environment {name}={value}", source.span(element.start, element.end))


def _gpu_count(container: Value) -> int | None:
    counts = [
        device_count(count) for kind, count, _ in _pairs(container, "resourceRequirements") if kind.upper() == "GPU"
    ]
    return sum(count for count in counts if count is not None) or None


def _command_words(container: Value) -> list[str]:
    return [
        word
        for key in ("entryPoint", "command")
        for item in _items(entry(container, key))
        if (word := string(item.value))
    ]


def _torch(container: Value, source: SourceText, signals: Signals) -> Iterator[Evidence]:
    image = entry(container, "image")
    text = string(image)
    if image is not None and text and signals.is_torch_image(text):
        yield Evidence(f"image {text}", source.span(image.start, image.end))
    for key in ("entryPoint", "command"):
        words = [string(item.value) or "" for item in _items(entry(container, key))]
        launcher = signals.torch_command(" ".join(words))
        if launcher:
            node = entry(container, key)
            assert node is not None  # words came from it
            yield Evidence(f"{key} {launcher}", source.span(node.start, node.end))
            return


def _items(value: Value | None) -> tuple[Item, ...]:
    return value.items if value is not None and value.kind == TUPLE else ()


def _memory(container: Value, source: SourceText) -> Size | None:
    memory = entry(container, "memory")
    if memory is not None:
        return mib_size(memory, source)
    for kind, _, element in _pairs(container, "resourceRequirements"):
        value = entry(element, "value")
        if kind.upper() == "MEMORY" and value is not None:  # AWS Batch spells the hard limit this way
            return mib_size(value, source)
    return None


def _nccl(container: Value, source: SourceText) -> Evidence | None:
    for name, value, element in _pairs(container, "environment"):
        if name == nccl.SHM_DISABLE and nccl.disables_shm(value):
            return Evidence(f"environment {name}={value}", source.span(element.start, element.end))
    return None
