"""SHM007 host-ipc: the host's IPC namespace gives a large /dev/shm at the price of isolation."""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, ShmKind, Workload
from shmlint.rules.common import gpu_sources, who
from shmlint.rules.rule import Rule, RuleContext


def check(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    for source in gpu_sources(workload, ShmKind.HOST_IPC):
        yield ctx.report(
            RULE,
            f"{who(workload)} uses host IPC ({source.description}); use a sized private /dev/shm",
            source.span,
            workload,
            detail=f"{workload.name} uses the host IPC namespace ({source.description}): /dev/shm is large, but "
            f"the container shares the host's IPC objects{_WHY[source.in_pod]}; "
            "prefer a sized memory-backed /dev/shm",
        )


#: what host IPC costs, for a pod (a Kubernetes rule forbids it: YAML or Terraform alike) and for a container
#: elsewhere (docker, compose)
_WHY = {True: " and Pod Security 'baseline' forbids it", False: ", its shared memory with every process there"}

RULE = Rule("SHM007", check)
