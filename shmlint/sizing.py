"""The size a fix writes, one policy for every rule that writes one (SHM001, SHM003, SHM004, SHM005, SHM009,
SHM013), and the reason for it, which the fix title carries into the diff.

The policy: the DataLoader hint's recommendation, else the configured ``fix-size``; never below what the
workload already gets; at most half the container's memory limit (and half the smallest limit of the containers
that mount a pod's volume, or of those that may mount one a fix adds), since /dev/shm pages count against that
limit and the process needs the other half. The cap wins over the floor: a size above the limit is the SHM004
problem itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from shmlint.model import ShmSource, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.sizes import GIB, MIB

#: what a fix writes when neither a DataLoader hint nor ``fix-size`` says more
DEFAULT_FIX_BYTES = 8 * GIB
CONTAINER_CAP = "half the container's memory limit"
POD_CAP = "half the smallest memory limit of the pod's accelerator and torch containers"
MOUNTERS_CAP = "half the smallest memory limit of the containers that mount it"


class FixSize(NamedTuple):
    """A size to write and why it is this size (``the DataLoader hint``, ``half the memory limit 16Gi``)."""

    bytes: int
    why: str


def half(limit: int) -> int:
    """The most /dev/shm a memory limit leaves room for: its pages count against the limit."""
    return limit // 2


def pod_cap(limits: Iterable[int | None]) -> int | None:
    """The most a volume the pod's containers share can use: half the smallest of their memory limits."""
    known = [limit for limit in limits if limit]
    return half(min(known)) if known else None


def wanted(workload: Workload, fix_bytes: int) -> FixSize:
    """What a fix aims at before any cap: the hint's recommendation, else ``fix-size`` (``fix_bytes``)."""
    if workload.dataloader is not None:
        from shmlint.dataloader import estimate  # only workloads with a hint need the estimator

        return FixSize(estimate(workload.dataloader).recommended_bytes, "from the DataLoader hint")
    default = fix_bytes == DEFAULT_FIX_BYTES
    return FixSize(fix_bytes, "the default fix-size" if default else "the configured fix-size")


def minimum(workload: Workload, min_bytes: int) -> int:
    """Below this SHM005 speaks: the hint's estimated need, else ``min-shm-size`` (``min_bytes``)."""
    if workload.dataloader is not None:
        from shmlint.dataloader import estimate

        return estimate(workload.dataloader).estimate_bytes
    return min_bytes


def floor(workload: Workload, min_bytes: int, source: ShmSource) -> tuple[int, str]:
    """Below this SHM005 speaks about ``source``, and why: the minimum (or the hint's estimate), unless the memory
    limit cannot give /dev/shm that much (half the container's, half the smallest of the containers that mount
    the volume)."""
    least = minimum(workload, min_bytes)
    why = "the estimated need of its DataLoader hint" if workload.dataloader else "the minimum"
    limit = workload.memory_limit.bytes if workload.memory_limit else None
    if limit and half(limit) < least:
        least, why = half(limit), CONTAINER_CAP
    if source.cap_bytes and source.cap_bytes < least:
        return source.cap_bytes, MOUNTERS_CAP
    return least, why


def fix_size(
    workload: Workload, fix_bytes: int, *, current: int | None = None, source: ShmSource | None = None
) -> FixSize:
    """The size a fix writes. ``current``: what the workload already gets (never lowered, but for the cap);
    ``source``: the declaration the fix changes, whose pod-wide cap applies."""
    size = wanted(workload, fix_bytes)
    if current is not None and current > size.bytes:
        size = FixSize(current, "what it already gets")
    for cap, why in _caps(workload, source):
        if cap < size.bytes:
            size = FixSize(cap, why)
    return size._replace(bytes=(size.bytes // MIB) * MIB if size.bytes >= MIB else size.bytes)


def _caps(workload: Workload, source: ShmSource | None) -> list[tuple[int, str]]:
    """Half the container's memory limit; half the smallest of the containers that mount the volume changed, or of
    those that may mount a volume the fix adds (the pod's accelerator and torch containers)."""
    caps = []
    limit = workload.memory_limit
    if limit is not None and limit.bytes:
        caps.append((half(limit.bytes), f"half the memory limit {limit.text}"))
    if source is not None and source.cap_bytes:
        caps.append((source.cap_bytes, MOUNTERS_CAP))
    elif source is None and workload.volume_cap:  # a volume a fix adds or mounts (``Workload.volume_cap``)
        caps.append((workload.volume_cap, POD_CAP))
    return caps
