"""How big /dev/shm really is inside a workload's container.

One answer for the rules and for the validation suite, so the suite tests the very model the rules use.
"""

from __future__ import annotations

from enum import StrEnum

from shmlint.model import APPLIED_KINDS, ShmKind, ShmSource, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.sizes import DEFAULT_SHM_BYTES


class ShmState(StrEnum):
    DEFAULT = "default"  # the runtime's 64 MiB
    SIZED = "sized"  # a memory tmpfs of known size
    UNBOUNDED = "unbounded"  # a memory tmpfs limited only by the memory limit or the machine
    HOST = "host"  # the host's /dev/shm (host IPC or a bind mount)
    DISK = "disk"  # a disk-backed directory
    NONE = "none"  # no /dev/shm at all
    UNKNOWN = "unknown"  # shared with another container, or hidden behind an expansion
    OPERATOR = "operator"  # an operator mounts a memory tmpfs itself (KubeRay: sized to the memory limit)


class EffectiveShm(NamedTuple):
    """The /dev/shm a container really gets, from the declaration that wins."""

    state: ShmState
    bytes: int | None  # the size when it is known
    source: ShmSource | None  # the declaration that decided it


_PRECEDENCE = (ShmKind.HOST_PATH, ShmKind.DISK, ShmKind.MEMORY, ShmKind.NONE, ShmKind.SHARED, ShmKind.UNKNOWN)


def applied_sources(workload: Workload) -> list[ShmSource]:
    return [source for source in workload.shm if source.kind in APPLIED_KINDS]


def reaching_sources(workload: Workload) -> list[ShmSource]:
    """The applied declarations that shape the container's /dev/shm: host IPC replaces a namespace size (the size
    has no effect then, which SHM010 says; no other rule judges it as if it were the container's /dev/shm)."""
    applied = applied_sources(workload)
    if any(source.kind is ShmKind.HOST_IPC for source in applied):
        return [source for source in applied if not source.namespace_size]
    return applied


def effective_shm(workload: Workload) -> EffectiveShm:
    """A mount at /dev/shm shadows the IPC namespace's own /dev/shm; host IPC replaces a namespace size."""
    applied = applied_sources(workload)
    mounts = [s for s in applied if s.kind is not ShmKind.HOST_IPC and not s.namespace_size]
    host_ipc = next((s for s in applied if s.kind is ShmKind.HOST_IPC), None)
    candidates = mounts or ([host_ipc] if host_ipc else [s for s in applied if s.kind is not ShmKind.HOST_IPC])
    for kind in (ShmKind.HOST_IPC, *_PRECEDENCE):
        source = next((s for s in candidates if s.kind is kind), None)
        if source is not None:
            return _state_of(source, workload)
    if workload.shm_managed_by:  # only when the manifest mounts nothing itself: the operator leaves it then
        return EffectiveShm(ShmState.OPERATOR, workload.memory_limit.bytes if workload.memory_limit else None, None)
    return EffectiveShm(ShmState.DEFAULT, DEFAULT_SHM_BYTES, None)


def _state_of(source: ShmSource, workload: Workload) -> EffectiveShm:
    if source.kind in (ShmKind.HOST_IPC, ShmKind.HOST_PATH):
        return EffectiveShm(ShmState.HOST, None, source)
    if source.kind is ShmKind.DISK:
        return EffectiveShm(ShmState.DISK, None, source)
    if source.kind is ShmKind.NONE:
        return EffectiveShm(ShmState.NONE, 0, source)
    if source.kind is ShmKind.MEMORY:
        size = source.size.bytes if source.size else None
        limit = workload.memory_limit.bytes if workload.memory_limit else None
        if size is None and source.size is None:
            return EffectiveShm(ShmState.UNBOUNDED, limit, source)
        if size is None:  # an invalid size: the runtime refuses to start, nothing to measure
            return EffectiveShm(ShmState.UNKNOWN, None, source)
        return EffectiveShm(ShmState.SIZED, size, source)
    return EffectiveShm(ShmState.UNKNOWN, None, source)
