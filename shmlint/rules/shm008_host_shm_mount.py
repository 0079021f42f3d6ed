"""SHM008 host-shm-mount: the host's own /dev/shm bind-mounted in is shared with every other user and unbounded."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, ShmKind, Workload
from shmlint.rules.common import gpu_sources, who
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.HOST_PATH):
        if _is_host_shm(source.host_path):
            yield ctx.report(
                RULE,
                f"{who(workload)} mounts the host's /dev/shm ({source.description}), shared, unbounded; use a sized "
                f"private one",
                source.span,
                workload,
                # outside a pod, info unless configured, as SHM007's host IPC: the same host /dev/shm, the usual
                # fix for the DataLoader bus error and a project's documented one (audit63b: graphstorm's shared-
                # memory graph store), and nothing refuses it; a pod's hostPath is refused by Pod Security baseline
                default=None if source.in_pod else Severity.INFO,
                detail=f"{workload.name} mounts the host's /dev/shm ({source.description}): it shares the host's "
                f"shared memory with every other user of it, bounded only by the host's own tmpfs (half its RAM by "
                f"default), not by anything the manifest says; prefer a sized memory-backed /dev/shm",
            )


def _is_host_shm(host_path: str | None) -> bool:
    """The host's own /dev/shm; another host folder at /dev/shm (NVIDIA MPS) is a deliberate design."""
    return host_path is None or host_path.rstrip("/") == "/dev/shm" or host_path.startswith("/dev/shm/")


RULE = Rule("SHM008", check)
