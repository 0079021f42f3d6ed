"""SHM004 shm-exceeds-memory-limit: /dev/shm pages count against the memory limit, so a larger size is an OOM kill."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import fix_size
from shmlint.model import Applicability, Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import gpu_sources
from shmlint.rules.rule import Rule, RuleContext
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    limit = workload.memory_limit
    if limit is None or limit.bytes is None:
        return
    for source in gpu_sources(workload, ShmKind.MEMORY):
        size = source.size
        if size is not None and size.bytes is not None and size.bytes > limit.bytes:
            lowered = fix_size(workload, size.bytes)
            yield ctx.report(
                RULE,
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


RULE = Rule("SHM004", check)
