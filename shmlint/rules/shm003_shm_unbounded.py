"""SHM003 shm-unbounded: a memory-backed /dev/shm with no size grows until a memory limit or the node stops it."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Applicability, Finding, Fix, FixAction, ShmKind, ShmSource, Workload
from shmlint.rules.common import gpu_sources, who, written
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity
from shmlint.sizes import human
from shmlint.sizing import FixSize


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    limit = workload.memory_limit.bytes if workload.memory_limit else None
    for source in gpu_sources(workload, ShmKind.MEMORY):
        if source.size is None:
            grows = (
                f"the container's memory limit ({human(limit)}) bounds it"
                if limit
                else "it may grow until the node runs out of memory"
            )
            bound = (
                f"bounded only by the {written(workload.memory_limit)} memory limit"
                if workload.memory_limit and limit
                else "it can take the node's memory"
            )
            yield ctx.report(
                RULE,
                f"{who(workload)}: /dev/shm ({source.description}) has no size; {bound}; size it",
                source.span,
                workload,
                _bound(source, ctx.fix_size(workload, current=limit, source=source)),
                at_most=Severity.INFO if limit else None,  # bounded by the limit: a smaller risk than none at all
                detail=f"{workload.name}: /dev/shm comes from {source.description} with no size: {grows} (and "
                f"policies such as Kyverno's may cap it silently); give it an explicit size",
            )


def _bound(source: ShmSource, size: FixSize) -> Fix:
    """Any size lowers what an unbounded tmpfs could take (the node's memory, or the whole memory limit, which
    leaves the process nothing): a deliberate choice, so unsafe, sized as every fix is (``shmlint.sizing``)."""
    title = f"size it {human(size.bytes)} ({size.why})"
    return Fix(FixAction.SET_SIZE, title, Applicability.UNSAFE, size_bytes=size.bytes, source=source)


RULE = Rule("SHM003", check)
