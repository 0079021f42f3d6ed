"""SHM004 shm-exceeds-memory-limit: /dev/shm pages count against the memory limit, so a larger size is an OOM kill."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Applicability, Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import gpu_sources, set_elsewhere, who, written
from shmlint.rules.rule import Rule, RuleContext
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    limit = workload.memory_limit
    if limit is None or not limit.bytes:  # 0 is no limit (moby's verifyPlatformContainerResources: 0 is unset)
        return
    for source in gpu_sources(workload, ShmKind.MEMORY):
        size = source.size
        if size is not None and size.bytes is not None and size.bytes > limit.bytes:
            lowered = ctx.fix_size(workload, current=size.bytes, source=source)
            where = f" where {size.text} is set" if set_elsewhere(size) else ""
            yield ctx.report(
                RULE,
                f"{who(workload)}: /dev/shm {written(size)} is over the {written(limit)} memory limit (OOM kill); lower it "
                f"to {human(lowered.bytes)}{where}",
                size.span,
                workload,
                None
                if set_elsewhere(size)
                else Fix(
                    FixAction.SET_SIZE,
                    f"lower it to {human(lowered.bytes)} ({lowered.why})",
                    Applicability.UNSAFE,
                    size_bytes=lowered.bytes,
                    source=source,
                ),
                detail=f"{workload.name}: /dev/shm size {size.text} ({human(size.bytes)}) exceeds the container's "
                f"memory limit {limit.text} ({human(limit.bytes)}); pages in /dev/shm count against that limit, so "
                f"the container is OOM-killed before it can use them",
            )


RULE = Rule("SHM004", check)
