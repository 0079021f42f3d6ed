"""SHM012 nccl-shm-disabled: a workaround that trades the crash for slower multi-GPU traffic."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, Workload
from shmlint.rules.common import uses_shm, who
from shmlint.rules.rule import Rule, RuleContext
from shmlint.visible import clipped


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    evidence = workload.nccl_shm_disabled
    if evidence is None or not uses_shm(workload):
        return
    yield ctx.report(
        RULE,
        f"{who(workload)} sets {clipped(evidence.text, 40)}, which slows NCCL; size /dev/shm and drop it",
        evidence.span,
        workload,
        detail=f"{workload.name} sets {evidence.text}: NCCL then moves intra-node GPU traffic from shared memory "
        f"to slower paths; size /dev/shm instead and drop the variable",
    )


RULE = Rule("SHM012", check)
