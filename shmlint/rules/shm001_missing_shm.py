"""SHM001 missing-shm: a GPU/torch workload with no /dev/shm declaration keeps the runtime's 64 MiB."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import applied_sources, fix_size
from shmlint.model import Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import REMEDY, evidence
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    if not workload.is_gpu_or_torch or workload.shm_managed_by:
        return
    applied = applied_sources(workload)
    unknown = [s for s in applied if s.kind is ShmKind.UNKNOWN]
    pending = any(s.kind in (ShmKind.UNMOUNTED, ShmKind.BUILD_ONLY) for s in workload.shm)
    if pending or len(unknown) < len(applied):
        return
    size = fix_size(workload, ctx.wanted_size(workload))
    fix = Fix(FixAction.ADD_SHM, f"give /dev/shm {human(size)}", size_bytes=size)
    if unknown:
        yield ctx.report(
            RULE,
            f"{workload.name} runs GPU/torch work ({evidence(workload)}) and no /dev/shm size is written; "
            f"{unknown[0].description} could carry one but cannot be resolved here: if it does not, /dev/shm is "
            f"64 MiB; {REMEDY[workload.format]} to make it certain",
            workload.span,
            workload,
            fix,
            at_most=Severity.WARNING,
        )
        return
    yield ctx.report(
        RULE,
        f"{workload.name} runs GPU/torch work ({evidence(workload)}) with no sized /dev/shm, so it gets the "
        f"runtime default of 64 MiB and DataLoader workers or NCCL can crash; {REMEDY[workload.format]}",
        workload.span,
        workload,
        fix,
    )


RULE = Rule("SHM001", check)
