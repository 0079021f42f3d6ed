"""SHM013 ipc-none: ``--ipc=none`` / ``ipc: none`` gives a GPU/torch container no /dev/shm at all."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import ShmState, applied_sources, effective_shm
from shmlint.model import Applicability, Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import claims_missing_shm, evidence, need_cap, unknown_need, who
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    if not claims_missing_shm(workload) or workload.shm_managed_by:
        return
    effective = effective_shm(workload)  # a tmpfs mounted at /dev/shm despite ipc none wins: nothing to say
    none = effective.source
    if effective.state is not ShmState.NONE or none is None:
        return
    applied = applied_sources(workload)
    unknown = next((source for source in applied if source.kind is ShmKind.UNKNOWN), None)
    # a --shm-size / shm_size written beside ipc none is ignored today and takes effect once the namespace is private
    size = None if any(source.namespace_size for source in applied) else ctx.fix_size(workload)
    title = "use a private IPC namespace" + (f" with a {human(size.bytes)} /dev/shm ({size.why})" if size else "")
    hidden = f"; {unknown.description} could mount one but cannot be resolved here" if unknown else ""
    yield ctx.report(
        RULE,
        f"{who(workload)} has no /dev/shm ({none.description}); use private IPC and a sized /dev/shm",
        none.span,
        workload,
        Fix(FixAction.PRIVATE_IPC, title, Applicability.UNSAFE, size_bytes=size.bytes if size else None, source=none),
        at_most=Severity.WARNING if unknown else need_cap(workload),
        undecided=unknown_need(workload),
        detail=f"{workload.name} runs GPU/torch work ({evidence(workload)}) with {none.description}, which mounts "
        f"no /dev/shm at all, so DataLoader workers and NCCL cannot create shared memory{hidden}; use a private IPC "
        f"namespace with a sized /dev/shm, or mount a sized tmpfs at /dev/shm",
    )


RULE = Rule("SHM013", check)
