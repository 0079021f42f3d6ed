"""SHM003 shm-unbounded: a memory-backed /dev/shm with no size grows until a memory limit or the node stops it."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import fix_size
from shmlint.model import Applicability, Finding, Fix, FixAction, ShmKind, ShmSource, Workload
from shmlint.rules.common import capped, gpu_sources
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    limit = workload.memory_limit.bytes if workload.memory_limit else None
    for source in gpu_sources(workload, ShmKind.MEMORY):
        if source.size is None:
            grows = (
                f"the container's memory limit ({human(limit)}) bounds it"
                if limit
                else "it may grow until the node runs out of memory"
            )
            yield ctx.report(
                RULE,
                f"{workload.name}: /dev/shm comes from {source.description} with no size: {grows} (and "
                f"policies such as Kyverno's may cap it silently); give it an explicit size",
                source.span,
                workload,
                _bound(source, limit, capped(source, fix_size(workload, ctx.wanted_size(workload)))),
                at_most=Severity.INFO if limit else None,  # bounded by the limit: a smaller risk than none at all
            )


def _bound(source: ShmSource, limit: int | None, wanted: int) -> Fix:
    """With a memory limit the tmpfs can already use that much: writing it keeps the workload as well off (safe).
    Without one it can use the node's memory, and any size lowers that: a deliberate choice (unsafe)."""
    if limit:
        return Fix(FixAction.SET_SIZE, f"size it {human(limit)}, its memory limit", size_bytes=limit, source=source)
    return Fix(FixAction.SET_SIZE, f"size it {human(wanted)}", Applicability.UNSAFE, size_bytes=wanted, source=source)


RULE = Rule("SHM003", check)
