"""One AWS ECS/Batch container definition (``containerDefinitions[]``, ``containerProperties``) judged for /dev/shm.

Every format that carries container definitions (ECS/Batch JSON, CloudFormation, Terraform's ``jsonencode`` and
JSON heredocs) reads them through a small ``EcsTree`` adapter over its own positioned nodes, so the judging lives
here once. Sizes are whole MiB (``linuxParameters.sharedMemorySize``, ``tmpfs[].size``, ``memory``), which ECS
passes to docker as ``--shm-size``, ``--tmpfs`` and ``--memory``.

What the task adds (AWS API reference, ``TaskDefinition``): ``ipcMode`` ``host`` (the instance's /dev/shm),
``task`` (one namespace for the task) or ``none``; ``volumes`` that ``mountPoints`` name; the task ``memory``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from shmlint.containers import EnvVar, Judged, gpu_env, nccl_disabled, torch_evidence
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import ascii_int
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import MAX_DEVICES, Signals, positive_count
from shmlint.sizes import MIB, parse_either
from shmlint.source import Span

if TYPE_CHECKING:
    from shmlint.model import FixTarget

#: ``Size.dialect`` of an integer number of MiB; the fixers write such sizes as a bare integer
MIB_DIALECT = "mib"
IGNORE_LABEL = "shmlint.io/ignore"
ENV_LABEL = "environment"
_WHOLE = LazyRegex(r"^\d{1,12}$", re.ASCII)
#: the task-level ``memory`` also takes ``"4 GB"`` (ECS task size)
_TASK_MEMORY = LazyRegex(r"^(\d{1,9})\s*(GB)?$", re.IGNORECASE | re.ASCII)
_IPC_KINDS = {"host": ShmKind.HOST_IPC, "none": ShmKind.NONE, "task": ShmKind.SHARED}

N = TypeVar("N")


class EcsTree(Protocol[N]):
    """Read-only access to a format's positioned nodes, in the API's camelCase key spelling."""

    def get(self, node: N | None, key: str) -> N | None: ...
    def pair_span(self, node: N | None, key: str) -> Span | None: ...  # from the key to the end of its value
    def elements(self, node: N | None) -> Sequence[N]: ...
    def text(self, node: N | None) -> str | None: ...  # a literal string or number, as text
    def span(self, node: N) -> Span: ...
    def between(self, first: N, last: N) -> Span: ...  # from the start of one node to the end of another
    def mib(self, node: N | None) -> Size | None: ...  # None when absent
    def is_computed(self, node: N | None) -> bool: ...  # known only at plan or deploy time
    def spell(self, path: str) -> str: ...  # a key path as the file spells it, for messages


class EcsContainer(NamedTuple):
    """One container definition judged, with what only ECS says beside the verdict."""

    name: str
    judged: Judged
    ignored_codes: frozenset[str]  # ``dockerLabels`` ``shmlint.io/ignore``
    unsized_tmpfs: tuple[Span, ...]  # tmpfs /dev/shm entries without a size, where a fixer may add one

    def workload(self, identity: WorkloadId, span: Span, target: FixTarget) -> Workload:
        """The container as a Workload; ``identity`` names it as its format does, ``target`` is its fixer's."""
        return self.judged.workload(identity, span, target, ignored_codes=self.ignored_codes)


def judge_container(
    tree: EcsTree[N], task: N | None, container: N, signals: Signals, base_dir: str, fargate: Span | None = None
) -> EcsContainer:
    """``task`` holds what the container shares with its neighbours (``ipcMode``, ``volumes``, ``memory``);
    ``base_dir`` is the folder of the file that defines it (where the paths it starts are looked for), ``fargate``
    where the definition asks for Fargate, which takes no shm setting."""
    entrypoint, arguments = (tuple(_texts(tree, tree.get(container, key))) for key in ("entryPoint", "command"))
    words = [*entrypoint, *arguments]
    env = tuple(_env(tree, container))
    gpu, count = _gpu(tree, container, env, signals)
    image = tree.get(container, "image")
    command = tree.get(container, "command") or tree.get(container, "entryPoint")
    torch = tuple(
        torch_evidence(
            tree.text(image),
            tree.span(image) if image is not None else None,
            words,
            tree.span(command) if command is not None else None,
            signals,
        )
    )
    workdir = tree.text(tree.get(container, "workingDirectory")) or ""
    linux = tree.get(container, "linuxParameters")
    unsized = tuple(tree.span(mount) for mount in _tmpfs_mounts(tree, linux) if tree.get(mount, "size") is None)
    judged = Judged(
        gpu=gpu,
        torch=torch,
        shm=tuple(_shm(tree, task, container, fargate)),
        memory_limit=_memory(tree, task, container),
        nccl_shm_disabled=nccl_disabled(env, ENV_LABEL),
        image=tree.text(image),
        command=" ".join(words),
        accelerator_count=count,
        launch=Launch(base_dir, entrypoint, arguments, workdir, tuple((name, value) for name, value, _ in env))
        if gpu or torch
        else None,
    )
    return EcsContainer(tree.text(tree.get(container, "name")) or "", judged, _ignored(tree, container), unsized)


def mib_size(text: str, literal: str | None, span: Span, *, quoted: bool, strings_are_numbers: bool) -> Size:
    """A whole number of MiB as the API takes it: a quoted one is a string the API refuses, unless the format turns
    it into a number (CloudFormation, Terraform number attributes)."""
    value = literal or ""
    if _WHOLE.match(value) and (strings_are_numbers or not quoted):
        return Size(text, int(value) * MIB, span, MIB_DIALECT)
    if _WHOLE.match(value):
        return Size(text, None, span, MIB_DIALECT, f"{text} is a string; the API takes a number", value)
    meant = parse_either(value)
    suggestion = str(meant // MIB) if meant and meant % MIB == 0 else None
    return Size(text, None, span, MIB_DIALECT, f"{text} is not a whole number of MiB", suggestion)


def ipc_source(mode: str | None, span: Span | None, described: str) -> ShmSource | None:
    """The task's ``ipcMode``: ``host``, ``none`` or ``task``; anything else says nothing about /dev/shm."""
    kind = _IPC_KINDS.get((mode or "").lower())
    if span is None or kind is None:
        return None
    return ShmSource(kind, ShmMechanism.IPC_MODE, span, f"{described}: {mode}")


def _texts(tree: EcsTree[N], node: N | None) -> Iterator[str]:
    return (text for item in tree.elements(node) if (text := tree.text(item)))


def _pairs(tree: EcsTree[N], container: N, key: str) -> Iterator[tuple[str, str, N]]:
    """(name, value, entry) of ``environment`` or ``resourceRequirements`` entries with literal values."""
    for element in tree.elements(tree.get(container, key)):
        name = tree.text(tree.get(element, "name")) or tree.text(tree.get(element, "type"))
        value = tree.text(tree.get(element, "value"))
        if name is not None and value is not None:
            yield name, value, element


def _gpu(
    tree: EcsTree[N], container: N, env: tuple[EnvVar, ...], signals: Signals
) -> tuple[tuple[Evidence, ...], int | None]:
    found: list[Evidence] = []
    count = 0
    for kind, value, element in _pairs(tree, container, "resourceRequirements"):
        if kind.upper() == "GPU" and positive_count(value):
            found.append(Evidence(f"resourceRequirements GPU: {value}", tree.span(element)))
            count += ascii_int(value, maximum=MAX_DEVICES) or 0
    found.extend(gpu_env(env, signals, ENV_LABEL))
    return tuple(found), count or None


def _env(tree: EcsTree[N], container: N) -> Iterator[EnvVar]:
    for name, value, element in _pairs(tree, container, "environment"):
        yield name, value, _env_span(tree, element)


def _env_span(tree: EcsTree[N], element: N) -> Span:
    """An environment entry from its name to its value, where an editor points at the variable."""
    name, value = tree.get(element, "name"), tree.get(element, "value")
    return tree.between(name, value) if name is not None and value is not None else tree.span(element)


def _ignored(tree: EcsTree[N], container: N) -> frozenset[str]:
    value = tree.text(tree.get(tree.get(container, "dockerLabels"), IGNORE_LABEL)) or ""
    return frozenset(code.strip() for code in value.split(",") if code.strip())


def _memory(tree: EcsTree[N], task: N | None, container: N) -> Size | None:
    """The container's hard limit, else Batch's ``resourceRequirements`` MEMORY (a string), else the task's."""
    own = tree.mib(tree.get(container, "memory"))
    if own is not None:
        return own
    for kind, text, element in _pairs(tree, container, "resourceRequirements"):
        if kind.upper() == "MEMORY" and _WHOLE.match(text):
            value = tree.get(element, "value")
            assert value is not None  # text came from it
            return Size(text, int(text) * MIB, tree.span(value), MIB_DIALECT)
    task_memory = tree.get(task, "memory")
    text = tree.text(task_memory) or ""
    match = _TASK_MEMORY.match(text)
    if task_memory is not None and match:
        scale = 1024 * MIB if match.group(2) else MIB
        return Size(text, int(match.group(1)) * scale, tree.span(task_memory), MIB_DIALECT)
    return None


def _tmpfs_mounts(tree: EcsTree[N], linux: N | None) -> Iterator[N]:
    for mount in tree.elements(tree.get(linux, "tmpfs")):
        if is_shm_path(tree.text(tree.get(mount, "containerPath")) or ""):
            yield mount


def _shm(tree: EcsTree[N], task: N | None, container: N, fargate: Span | None) -> Iterator[ShmSource]:
    applied: list[ShmSource] = []
    ipc = ipc_source(tree.text(tree.get(task, "ipcMode")), tree.pair_span(task, "ipcMode"), tree.spell("ipcMode"))
    if ipc is not None and fargate is None:
        applied.append(ipc)
    linux = tree.get(container, "linuxParameters")
    size_span = tree.pair_span(linux, "sharedMemorySize")
    size = tree.mib(tree.get(linux, "sharedMemorySize"))
    described = tree.spell("linuxParameters.sharedMemorySize")
    if size is not None and size_span is not None and fargate is not None:
        described += " (Fargate does not support it)"
        applied.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.PLATFORM, size_span, described, size))
    elif size is not None and size_span is not None:
        applied.append(ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, size_span, described, size))
    elif linux is not None and tree.is_computed(linux):
        described = f"{tree.spell('linuxParameters')} (computed at plan or deploy time)"
        applied.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, tree.span(linux), described))
    for mount in _tmpfs_mounts(tree, linux):
        described = f"{tree.spell('linuxParameters.tmpfs')} at /dev/shm"
        tmpfs = tree.mib(tree.get(mount, "size"))
        applied.append(ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, tree.span(mount), described, tmpfs))
    applied.extend(_volumes(tree, task, container))
    if fargate is not None and not applied:
        described = "Fargate's own /dev/shm (Fargate takes no shm setting and AWS documents no size for it)"
        applied.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.PLATFORM, fargate, described))
    yield from applied


def _volumes(tree: EcsTree[N], task: N | None, container: N) -> Iterator[ShmSource]:
    """A task volume mounted at /dev/shm: the instance's folder (``host.sourcePath``) or a docker volume."""
    volumes = {tree.text(tree.get(v, "name")): v for v in tree.elements(tree.get(task, "volumes"))}
    for mount in tree.elements(tree.get(container, "mountPoints")):
        if not is_shm_path(tree.text(tree.get(mount, "containerPath")) or ""):
            continue
        name = tree.text(tree.get(mount, "sourceVolume")) or ""
        volume = volumes.get(name)
        if volume is None:
            continue  # the API refuses a mount point whose volume the task does not declare
        host = tree.text(tree.get(tree.get(volume, "host"), "sourcePath"))
        span = tree.span(mount)
        if host is not None:
            described = f'host volume "{name}" ({host})'
            yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, described, None, name, host)
        else:
            yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, f'volume "{name}"', None, name)
