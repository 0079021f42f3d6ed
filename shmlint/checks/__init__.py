"""The rules: pure functions from a Workload to Findings, listed here explicitly in code order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from shmlint.checks.context import CheckContext
from shmlint.checks.missing import build_shm_only, missing_shm, shm_not_mounted
from shmlint.checks.nccl import nccl_shm_disabled
from shmlint.checks.sizing import invalid_size, shm_exceeds_memory_limit, shm_too_small, shm_unbounded
from shmlint.checks.sources import host_ipc, host_shm_mount, shm_disk_backed, shm_size_ignored
from shmlint.model import Finding, Workload

Check = Callable[[Workload, CheckContext], Iterable[Finding]]

#: code -> implementation; SHM000 (invalid input) is reported by the engine, which owns parsing
CHECKS: dict[str, Check] = {
    "SHM001": missing_shm,
    "SHM002": shm_not_mounted,
    "SHM003": shm_unbounded,
    "SHM004": shm_exceeds_memory_limit,
    "SHM005": shm_too_small,
    "SHM006": shm_disk_backed,
    "SHM007": host_ipc,
    "SHM008": host_shm_mount,
    "SHM009": build_shm_only,
    "SHM010": shm_size_ignored,
    "SHM011": invalid_size,
    "SHM012": nccl_shm_disabled,
}


def run_checks(workload: Workload, ctx: CheckContext) -> Iterator[Finding]:
    for code, check in CHECKS.items():
        if ctx.settings.enabled(code):
            yield from check(workload, ctx)
