"""SHM007 host-ipc: the host's IPC namespace gives a large /dev/shm at the price of isolation."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.effective import reaching_sources
from shmlint.model import Finding, ShmKind, Workload
from shmlint.rules.common import gpu_sources, who
from shmlint.rules.rule import Rule, RuleContext
from shmlint.severity import Severity


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.HOST_IPC):
        mount = next((s for s in reaching_sources(workload) if s.kind in _PRIVATE), None)
        if mount is not None:  # a mount at /dev/shm shadows the namespace's: host IPC is there for other IPC
            yield ctx.report(
                RULE,
                f"{who(workload)} uses host IPC ({source.description}), but its /dev/shm is its own "
                f"({mount.description}); keep host IPC only if other IPC needs it",
                source.span,
                workload,
                at_most=Severity.INFO,
                detail=f"{workload.name} uses the host IPC namespace ({source.description}) and mounts its own "
                f"/dev/shm ({mount.description}), which shadows the host's: host IPC gives its /dev/shm nothing, "
                "so it is there for other IPC (GPU memory shared between pods, MPS, System V segments); the "
                f"container still shares the host's IPC objects{_WHY[source.in_pod]}",
            )
            continue
        yield ctx.report(
            RULE,
            f"{who(workload)} uses host IPC ({source.description}); use a sized private /dev/shm",
            source.span,
            workload,
            # outside a pod, info unless configured: docker's and PyTorch's own advice for the DataLoader bus
            # error, whose /dev/shm is the host's, large, and nothing refuses the container (audit56a-60b: most
            # failing findings of other rules); a pod's is refused where Pod Security 'baseline' is enforced
            default=None if source.in_pod else Severity.INFO,
            detail=f"{workload.name} uses the host IPC namespace ({source.description}): /dev/shm is large, but "
            f"the container shares the host's IPC objects{_WHY[source.in_pod]}; "
            "prefer a sized memory-backed /dev/shm",
        )


#: a /dev/shm of the container's own, mounted over the namespace's (a bind of the host's /dev/shm is the host's)
_PRIVATE = frozenset({ShmKind.MEMORY, ShmKind.DISK})
#: what host IPC costs, for a pod (a Kubernetes rule forbids it: YAML or Terraform alike) and for a container
#: elsewhere (docker, compose)
_WHY = {True: " and Pod Security 'baseline' forbids it", False: ", its shared memory with every process there"}

RULE = Rule("SHM007", check)
