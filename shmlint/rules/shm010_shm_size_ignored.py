"""SHM010 shm-size-ignored: a namespace shm size has no effect together with host IPC."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import applied_sources
from shmlint.model import Finding, ShmKind, Workload
from shmlint.rules.common import who
from shmlint.rules.rule import Rule, RuleContext


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    applied = applied_sources(workload)
    if not any(source.kind is ShmKind.HOST_IPC for source in applied):
        return
    for source in applied:
        if source.kind is ShmKind.MEMORY and source.namespace_size:
            yield ctx.report(
                RULE,
                f"{who(workload)}: {source.description} has no effect with host IPC; drop one of them",
                source.span,
                workload,
                detail=f"{workload.name}: {source.description} has no effect together with host IPC, which uses the "
                f"host's /dev/shm (podman refuses the combination); drop one of them",
            )


RULE = Rule("SHM010", check)
