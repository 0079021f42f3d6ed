"""SHM002 shm-not-mounted: the pod has a memory volume meant for /dev/shm that a GPU/torch container does not mount."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import applied_sources
from shmlint.model import Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import claims_missing_shm, evidence, first_source, need_cap, unknown_need, who
from shmlint.rules.rule import Rule, RuleContext


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    if not claims_missing_shm(workload) or workload.shm_managed_by or applied_sources(workload):
        return
    if (source := first_source(workload, ShmKind.UNMOUNTED)) is not None:
        yield ctx.report(
            RULE,
            f"{who(workload)} does not mount {source.description} at /dev/shm, so it has 64 MiB; mount it there",
            workload.span,
            workload,
            Fix(FixAction.MOUNT_VOLUME, f'mount "{source.name}" at /dev/shm', source=source),
            at_most=need_cap(workload),
            undecided=unknown_need(workload),  # as SHM001: the need is not known
            detail=f"{workload.name} runs GPU/torch work ({evidence(workload)}) but does not mount the pod's "
            f"{source.description} at /dev/shm, so it still gets 64 MiB; add a volumeMount of "
            f'"{source.name}" at /dev/shm',
        )


RULE = Rule("SHM002", check)
