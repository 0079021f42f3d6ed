"""SHM006 shm-disk-backed, SHM007 host-ipc, SHM008 host-shm-mount, SHM010 shm-size-ignored."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.checks.context import CheckContext, gpu_sources
from shmlint.effective import applied_sources
from shmlint.model import Finding, ShmKind, Workload


def shm_disk_backed(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.DISK):
        yield ctx.finding(
            "SHM006",
            f"{workload.name}: /dev/shm is {source.description}, which is disk-backed: it works but every "
            f"batch goes through the disk and counts as ephemeral storage; use a memory-backed volume "
            f"(emptyDir medium: Memory, tmpfs) with a size",
            source.span,
            workload,
        )


def host_ipc(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.HOST_IPC):
        yield ctx.finding(
            "SHM007",
            f"{workload.name} uses the host IPC namespace ({source.description}): /dev/shm is large, but the "
            f"container shares the host's IPC objects and Pod Security 'baseline' forbids it; prefer a sized "
            f"memory-backed /dev/shm",
            source.span,
            workload,
        )


def host_shm_mount(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.HOST_PATH):
        if _is_host_shm(source.host_path):
            yield ctx.finding(
                "SHM008",
                f"{workload.name} mounts the host's /dev/shm ({source.description}): it shares the host's shared "
                f"memory with every other user of it and is bounded by nothing; prefer a sized memory-backed "
                f"/dev/shm",
                source.span,
                workload,
            )


def _is_host_shm(host_path: str | None) -> bool:
    """The host's own /dev/shm; another host folder at /dev/shm (NVIDIA MPS) is a deliberate design."""
    return host_path is None or host_path.rstrip("/") == "/dev/shm" or host_path.startswith("/dev/shm/")


def shm_size_ignored(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    applied = applied_sources(workload)
    if not any(source.kind is ShmKind.HOST_IPC for source in applied):
        return
    for source in applied:
        if source.kind is ShmKind.MEMORY and source.namespace_size:
            yield ctx.finding(
                "SHM010",
                f"{workload.name}: {source.description} has no effect together with host IPC, which uses the "
                f"host's /dev/shm (podman refuses the combination); drop one of them",
                source.span,
                workload,
            )
