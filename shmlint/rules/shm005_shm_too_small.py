"""SHM005 shm-too-small: an explicit /dev/shm size below the minimum, or below the DataLoader hint's estimate.

The minimum is a policy for software that uses /dev/shm: where the workload's software is not known to (a GPU
alone, an inference server whose backends are not known), the finding is undecided, as SHM001's is: the size its
author chose may well be enough."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import gpu_sources, need_cap, need_evidence, set_elsewhere, unknown_need, who, written
from shmlint.rules.rule import Rule, RuleContext
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.MEMORY):
        size = source.size
        floor, why = ctx.floor(workload, source)
        if size is not None and size.bytes is not None and size.bytes < floor:
            raised = ctx.fix_size(workload, current=size.bytes, source=source)
            fix = (
                Fix(
                    FixAction.SET_SIZE,
                    f"raise it to {human(raised.bytes)} ({raised.why})",
                    size_bytes=raised.bytes,
                    source=source,
                )
                if raised.bytes > size.bytes and not set_elsewhere(size)
                else None
            )
            where = f" where {size.text} is set" if set_elsewhere(size) else ""
            undecided = unknown_need(workload)
            uses = (
                "its software's use of /dev/shm is not known"
                if undecided
                else f"it uses /dev/shm ({need_evidence(workload)})"
            )
            yield ctx.report(
                RULE,
                f"{who(workload)}: /dev/shm {written(size)} is under {human(floor)} ({why.replace('the ', '', 1)}); "
                + (f"raise it to {human(raised.bytes)}{where}" if raised.bytes > size.bytes else "raise it"),
                size.span,
                workload,
                fix,
                at_most=need_cap(workload),
                undecided=undecided,
                detail=f"{workload.name}: /dev/shm is {size.text} ({human(size.bytes)}), below {why} of "
                f"{human(floor)}; {uses}: DataLoader workers hold (workers x prefetch_factor + 2) batches there, "
                "NCCL and inference servers their buffers",
            )


RULE = Rule("SHM005", check)
