"""SHM009 build-shm-only: compose ``build.shm_size`` sizes the build container; the service keeps 64 MiB."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import applied_sources
from shmlint.model import Finding, Fix, FixAction, ShmKind, Workload
from shmlint.rules.common import first_source, who
from shmlint.rules.rule import Rule, RuleContext
from shmlint.sizes import human


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    if applied_sources(workload):
        return
    if (source := first_source(workload, ShmKind.BUILD_ONLY)) is not None:
        build_bytes = source.size.bytes if source.size and source.size.bytes else 0
        size = ctx.fix_size(workload, current=build_bytes)
        yield ctx.report(
            RULE,
            f"{who(workload)}: build.shm_size sizes only the build, the service keeps 64 MiB; set its shm_size",
            source.span,
            workload,
            Fix(
                FixAction.ADD_SHM,
                f"set the service's shm_size to {human(size.bytes)} ({size.why})",
                size_bytes=size.bytes,
            ),
        )


RULE = Rule("SHM009", check)
