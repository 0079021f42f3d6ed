"""Helpers more than one rule uses: which /dev/shm declarations count, how to say what to do."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import applied_sources
from shmlint.model import ShmKind, ShmSource, Workload, WorkloadFormat

#: how each format sizes /dev/shm, for messages that say what to do
REMEDY = {
    WorkloadFormat.KUBERNETES: "mount an emptyDir with medium: Memory and a sizeLimit at /dev/shm",
    WorkloadFormat.COMPOSE: "set shm_size on the service",
    WorkloadFormat.COMMAND: "add --shm-size (e.g. --shm-size=8g)",
    WorkloadFormat.TERRAFORM: (
        "size it in the resource (an empty_dir volume with medium Memory mounted at /dev/shm, docker_container "
        "shm_size, or linuxParameters.sharedMemorySize)"
    ),
    WorkloadFormat.PYTHON: "pass the launcher's shared memory option (shared_memory=, shm_size=, or a Memory emptyDir at /dev/shm)",
    WorkloadFormat.RAY: "add --shm-size (e.g. --shm-size=8g) to docker.run_options",
    WorkloadFormat.QUADLET: "set ShmSize= in the [Container] section (e.g. ShmSize=8g)",
    WorkloadFormat.DEVCONTAINER: 'add "--shm-size=8g" to runArgs',
    WorkloadFormat.CI_JOB: "add --shm-size (e.g. --shm-size=8g) to the container's options (Jenkins: args)",
    WorkloadFormat.GITLAB_RUNNER: "set shm_size (bytes) in [runners.docker]",
}


def gpu_sources(workload: Workload, kind: ShmKind) -> Iterator[ShmSource]:
    """A GPU/torch workload's /dev/shm declarations of one kind that reach the container (none otherwise)."""
    if workload.is_gpu_or_torch:
        yield from (source for source in applied_sources(workload) if source.kind is kind)


def first_source(workload: Workload, kind: ShmKind) -> ShmSource | None:
    """The workload's first declaration of one kind, applied or not."""
    return next((source for source in workload.shm if source.kind is kind), None)


def evidence(workload: Workload) -> str:
    """Why the workload counts as GPU/torch, for messages: its first two pieces of evidence."""
    return ", ".join(e.text for e in (*workload.gpu, *workload.torch)[:2])


def capped(source: ShmSource, size: int) -> int:
    """A size no larger than a pod-shared volume can use (``cap_bytes``)."""
    return min(size, source.cap_bytes) if source.cap_bytes else size
