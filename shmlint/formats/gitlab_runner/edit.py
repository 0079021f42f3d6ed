"""Fixes for a GitLab runner's ``config.toml``: ``shm_size`` (bytes) written in ``[runners.docker]``, one line."""

from __future__ import annotations

from shmlint import sizes
from shmlint.formats.gitlab_runner.target import TableTarget
from shmlint.model import Edit, Fix, FixAction, ShmMechanism, Workload
from shmlint.source import SourceText


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """A new ``shm_size`` (over a 0, the default) or a size where the declaration has one."""
    if not isinstance(workload.target, TableTarget) or fix.size_bytes is None:
        return False
    if fix.action is FixAction.ADD_SHM:
        return True
    return fix.action is FixAction.SET_SIZE and fix.source is not None and fix.source.size is not None


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not can_write(fix, workload, source) or not isinstance(target, TableTarget) or fix.size_bytes is None:
        return []
    if fix.action is FixAction.ADD_SHM:
        if target.existing is not None:
            return [Edit(*target.existing, str(fix.size_bytes))]
        return [Edit(target.insert_at, target.insert_at, f"{target.line_prefix}shm_size = {fix.size_bytes}")]
    declared = fix.source
    assert declared is not None and declared.size is not None  # can_write said so
    in_bytes = declared.mechanism is ShmMechanism.NAMESPACE_SIZE  # shm_size; a tmpfs size is docker-spelled
    size = str(fix.size_bytes) if in_bytes else sizes.format_docker(fix.size_bytes)
    return [Edit(declared.size.span.start, declared.size.span.end, size)]
