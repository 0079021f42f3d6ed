"""Every rule, listed here once in code order: the engine runs them, the meta-tests hold them to the catalog.

An explicit tuple rather than registration on import: what runs is what is written here, and adding a rule is
visible in one line. Only files with a workload import this module (and so the rules).
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.model import Finding, Workload
from shmlint.rules import (
    shm000_invalid_input,
    shm001_missing_shm,
    shm002_shm_not_mounted,
    shm003_shm_unbounded,
    shm004_shm_exceeds_memory_limit,
    shm005_shm_too_small,
    shm006_shm_disk_backed,
    shm007_host_ipc,
    shm008_host_shm_mount,
    shm009_build_shm_only,
    shm010_shm_size_ignored,
    shm011_invalid_size,
    shm012_nccl_shm_disabled,
    shm013_ipc_none,
)
from shmlint.rules.rule import Rule, RuleContext

RULES: tuple[Rule, ...] = (
    shm000_invalid_input.RULE,
    shm001_missing_shm.RULE,
    shm002_shm_not_mounted.RULE,
    shm003_shm_unbounded.RULE,
    shm004_shm_exceeds_memory_limit.RULE,
    shm005_shm_too_small.RULE,
    shm006_shm_disk_backed.RULE,
    shm007_host_ipc.RULE,
    shm008_host_shm_mount.RULE,
    shm009_build_shm_only.RULE,
    shm010_shm_size_ignored.RULE,
    shm011_invalid_size.RULE,
    shm012_nccl_shm_disabled.RULE,
    shm013_ipc_none.RULE,
)


def run_rules(workload: Workload, ctx: RuleContext) -> Iterator[Finding]:
    """The findings of every enabled rule that checks workloads, in code order."""
    for rule in RULES:
        if rule.check is not None and ctx.settings.enabled(rule.code):
            yield from rule.check(workload, ctx)
