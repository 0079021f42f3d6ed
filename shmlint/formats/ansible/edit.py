"""Fixes for Ansible container tasks: ``shm_size`` written in the module's arguments (its own value replaced, or a
key added after the last, indented like its siblings); every other byte of the file stays as it was. Shell tasks'
command lines are fixed by the command-line writer, as their workloads are command lines."""

from __future__ import annotations

from shmlint.edits import yamledit
from shmlint.formats.ansible.target import AnsibleTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.parsers.yamlnodes import mappings_at
from shmlint.sizes import format_docker
from shmlint.source import SourceText


def _sizes_own(fix: Fix, target: AnsibleTarget) -> bool:
    """The fix gives the container a sized /dev/shm, or resizes the task's own ``shm_size``."""
    if not fix.size_bytes:
        return False
    if fix.action is FixAction.ADD_SHM:
        return True
    own = target.shm_size
    return (
        fix.action is FixAction.SET_SIZE
        and fix.source is not None
        and fix.source.namespace_size
        and own is not None
        and fix.source.span.start == own.start
    )


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    target = workload.target
    return isinstance(target, AnsibleTarget) and _sizes_own(fix, target)


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, AnsibleTarget) or not _sizes_own(fix, target) or fix.size_bytes is None:
        return []
    module = mappings_at(source, (target.module_start,)).get(target.module_start)
    if module is None:
        return []
    size = format_docker(fix.size_bytes)
    if target.shm_size is not None:
        span = target.shm_size
        return [Edit(span.start, span.end, size)]
    return [yamledit.add_key(source, module, "shm_size", size, yamledit.indent_step(module), 0)]
