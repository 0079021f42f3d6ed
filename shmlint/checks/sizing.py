"""SHM003 shm-unbounded, SHM004 shm-exceeds-memory-limit, SHM005 shm-too-small, SHM011 invalid-size."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.checks.context import CheckContext, gpu_sources
from shmlint.effective import fix_size
from shmlint.model import Applicability, Finding, Fix, FixAction, ShmKind, ShmSource, Workload
from shmlint.sizes import human


def shm_unbounded(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    limit = workload.memory_limit.bytes if workload.memory_limit else None
    for source in gpu_sources(workload, ShmKind.MEMORY):
        if source.size is None:
            yield ctx.finding(
                "SHM003",
                f"{workload.name}: /dev/shm comes from {source.description} with no size, so it may grow "
                f"until the container's memory limit or the node runs out (and policies such as Kyverno's may cap "
                f"it silently); give it an explicit size",
                source.span,
                workload,
                _bound(source, limit, _capped(source, fix_size(workload, ctx.wanted_size(workload)))),
            )


def _bound(source: ShmSource, limit: int | None, wanted: int) -> Fix:
    """With a memory limit the tmpfs can already use that much: writing it keeps the workload as well off (safe).
    Without one it can use the node's memory, and any size lowers that: a deliberate choice (unsafe)."""
    if limit:
        return Fix(FixAction.SET_SIZE, f"size it {human(limit)}, its memory limit", size_bytes=limit, source=source)
    return Fix(FixAction.SET_SIZE, f"size it {human(wanted)}", Applicability.UNSAFE, size_bytes=wanted, source=source)


def shm_exceeds_memory_limit(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    limit = workload.memory_limit
    if limit is None or limit.bytes is None:
        return
    for source in gpu_sources(workload, ShmKind.MEMORY):
        size = source.size
        if size is not None and size.bytes is not None and size.bytes > limit.bytes:
            lowered = fix_size(workload, size.bytes)
            yield ctx.finding(
                "SHM004",
                f"{workload.name}: /dev/shm size {size.text} ({human(size.bytes)}) exceeds the container's memory "
                f"limit {limit.text} ({human(limit.bytes)}); pages in /dev/shm count against that limit, so the "
                f"container is OOM-killed before it can use them",
                size.span,
                workload,
                Fix(
                    FixAction.SET_SIZE,
                    f"lower it to {human(lowered)} (half the memory limit)",
                    Applicability.UNSAFE,
                    size_bytes=lowered,
                    source=source,
                ),
            )


def shm_too_small(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    minimum = ctx.minimum(workload)
    basis = "the estimated need of its DataLoader hint" if workload.dataloader else "the minimum"
    limit = workload.memory_limit.bytes if workload.memory_limit else None
    if limit and limit // 2 < minimum:  # the memory limit cannot give /dev/shm more than half
        minimum, basis = limit // 2, "half the container's memory limit"
    for source in gpu_sources(workload, ShmKind.MEMORY):
        size = source.size
        floor, why = (
            (source.cap_bytes, "half the smallest memory limit in the pod")
            if (source.cap_bytes and source.cap_bytes < minimum)
            else (minimum, basis)
        )
        if size is not None and size.bytes is not None and size.bytes < floor:
            raised = _capped(source, fix_size(workload, ctx.wanted_size(workload)))
            fix = (
                Fix(FixAction.SET_SIZE, f"raise it to {human(raised)}", size_bytes=raised, source=source)
                if raised > size.bytes
                else None
            )
            yield ctx.finding(
                "SHM005",
                f"{workload.name}: /dev/shm is {size.text} ({human(size.bytes)}), below {why} of "
                f"{human(floor)}; DataLoader workers hold (workers x prefetch_factor + 2) batches there",
                size.span,
                workload,
                fix,
            )


def _capped(source: ShmSource, size: int) -> int:
    return min(size, source.cap_bytes) if source.cap_bytes else size


def invalid_size(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    sizes = [source.size for source in workload.shm if source.size is not None]
    for size in (*sizes, workload.memory_limit):
        if size is None or size.error is None:
            continue
        fix = (
            Fix(FixAction.REWRITE_SIZE, f"write it '{size.suggestion}'", replacement=size.suggestion)
            if size.suggestion
            else None
        )
        yield ctx.finding("SHM011", f"{workload.name}: {size.error}", size.span, workload, fix)
