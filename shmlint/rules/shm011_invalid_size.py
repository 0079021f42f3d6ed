"""SHM011 invalid-size: a size the runtime would reject or read differently than its author meant."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, Fix, FixAction, Workload
from shmlint.rules.common import who
from shmlint.rules.rule import Rule, RuleContext


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    sizes = [source.size for source in workload.shm if source.size is not None]
    for size in (*sizes, workload.memory_limit):
        if size is None or size.error is None:
            continue
        # the new spelling replaces what the span holds: only where that is the size itself (or it quoted), never a
        # whole option string it was read from (``/dev/shm:size=1.5g``, ``size=8gb,uid=1000``)
        alone = size.span.end - size.span.start in (len(size.text), len(size.text) + 2)
        fix = (
            Fix(FixAction.REWRITE_SIZE, f"write it '{size.suggestion}'", replacement=size.suggestion)
            if size.suggestion and alone
            else None
        )
        yield ctx.report(RULE, f"{who(workload)}: {size.error}", size.span, workload, fix)


RULE = Rule("SHM011", check)
