"""SHM001 missing-shm, SHM002 shm-not-mounted, SHM009 build-shm-only: the container keeps the 64 MiB default."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from shmlint.checks.context import REMEDY, CheckContext
from shmlint.effective import applied_sources, fix_size
from shmlint.model import Finding, Fix, FixAction, ShmKind, ShmSource, Workload
from shmlint.severity import Severity
from shmlint.sizes import human


def _evidence(workload: Workload) -> str:
    return ", ".join(e.text for e in (*workload.gpu, *workload.torch)[:2])


def missing_shm(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
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
        finding = ctx.finding(
            "SHM001",
            f"{workload.name} runs GPU/torch work ({_evidence(workload)}) and no /dev/shm size is written; "
            f"{unknown[0].description} could carry one but cannot be resolved here: if it does not, /dev/shm is "
            f"64 MiB; {REMEDY[workload.format]} to make it certain",
            workload.span,
            workload,
            fix,
        )
        yield replace(finding, severity=min(finding.severity, Severity.WARNING))
        return
    yield ctx.finding(
        "SHM001",
        f"{workload.name} runs GPU/torch work ({_evidence(workload)}) with no sized /dev/shm, so it gets the "
        f"runtime default of 64 MiB and DataLoader workers or NCCL can crash; {REMEDY[workload.format]}",
        workload.span,
        workload,
        fix,
    )


def _first(workload: Workload, kind: ShmKind) -> ShmSource | None:
    return next((source for source in workload.shm if source.kind is kind), None)


def shm_not_mounted(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    if not workload.is_gpu_or_torch or workload.shm_managed_by or applied_sources(workload):
        return
    if (source := _first(workload, ShmKind.UNMOUNTED)) is not None:
        yield ctx.finding(
            "SHM002",
            f"{workload.name} runs GPU/torch work ({_evidence(workload)}) but does not mount the pod's "
            f"{source.description} at /dev/shm, so it still gets 64 MiB; add a volumeMount of "
            f'"{source.name}" at /dev/shm',
            workload.span,
            workload,
            Fix(FixAction.MOUNT_VOLUME, f'mount "{source.name}" at /dev/shm', source=source),
        )


def build_shm_only(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    if applied_sources(workload):
        return
    if (source := _first(workload, ShmKind.BUILD_ONLY)) is not None:
        build_bytes = source.size.bytes if source.size and source.size.bytes else 0
        size = fix_size(workload, max(ctx.wanted_size(workload), build_bytes))
        yield ctx.finding(
            "SHM009",
            f"{workload.name} sets build.shm_size, which sizes only the build container; the running "
            f"service keeps the 64 MiB default; set shm_size on the service itself",
            source.span,
            workload,
            Fix(FixAction.ADD_SHM, f"set the service's shm_size to {human(size)}", size_bytes=size),
        )
