"""SHM006 shm-disk-backed: /dev/shm on a disk-backed volume works, but every batch goes through the disk."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, ShmKind, Workload
from shmlint.rules.common import gpu_sources, who
from shmlint.rules.rule import Rule, RuleContext


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.DISK):
        yield ctx.report(
            RULE,
            f"{who(workload)}: /dev/shm is {source.description}, on disk; use a sized memory-backed volume",
            source.span,
            workload,
            detail=f"{workload.name}: /dev/shm is {source.description}, which is disk-backed: it works but every "
            f"batch goes through the disk and counts as ephemeral storage; use a memory-backed volume "
            f"(emptyDir medium: Memory, tmpfs) with a size",
        )


RULE = Rule("SHM006", check)
