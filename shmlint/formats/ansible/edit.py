"""Fixes for Ansible container tasks: ``shm_size`` written in the module's arguments (its own value replaced, or a
key added after the last, indented like its siblings); every other byte of the file stays as it was. Shell tasks'
command lines are fixed by the command-line writer, as their workloads are command lines."""

from __future__ import annotations

from shmlint.edits import yamledit
from shmlint.formats.ansible.target import AnsibleTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.parsers.yamlnodes import MappingNode, mappings_at
from shmlint.sizes import format_docker
from shmlint.source import SourceText


def _sizes_own(fix: Fix, target: AnsibleTarget) -> bool:
    """The fix gives the container a sized /dev/shm, or resizes its ``shm_size``: its own, or one merged in from an
    anchor or given under ``args``, which a ``shm_size`` of the module's own overrides."""
    if not fix.size_bytes:
        return False
    if fix.action is FixAction.ADD_SHM:
        return True
    if fix.action is not FixAction.SET_SIZE or fix.source is None or not fix.source.namespace_size:
        return False
    return target.shm_size is None or fix.source.span.start == target.shm_size.start


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    target = workload.target
    if not isinstance(target, AnsibleTarget):
        return False
    if fix.action is FixAction.PRIVATE_IPC:  # only the module's own literal ``none``: that reads the text
        return bool(edits_for(fix, workload, source))
    return _sizes_own(fix, target)


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if not isinstance(target, AnsibleTarget):
        return []
    module = mappings_at(source, (target.module_start,)).get(target.module_start)
    if module is None:
        return []
    if fix.action is FixAction.PRIVATE_IPC:
        return _private_ipc(source, module, target, fix)
    if not _sizes_own(fix, target) or fix.size_bytes is None:
        return []
    return [_set_size(source, module, target, fix.size_bytes)]


def _set_size(source: SourceText, module: MappingNode, target: AnsibleTarget, size: int) -> Edit:
    """The module's own ``shm_size`` replaced, or one added after its last argument."""
    if target.shm_size is not None:  # an empty ``shm_size:`` gets its blank after the colon
        span = target.shm_size
        return Edit(span.start, span.end, (" " if span.start == span.end else "") + format_docker(size))
    return yamledit.add_key(source, module, "shm_size", format_docker(size), yamledit.indent_step(module), 0)


def _private_ipc(source: SourceText, module: MappingNode, target: AnsibleTarget, fix: Fix) -> list[Edit]:
    """The module's own ``ipc_mode: none`` (podman: ``ipc``) becomes ``private``, with a ``shm_size`` when it has
    none; one given under the task's ``args`` or through Jinja is left alone."""
    span = fix.source.span if fix.source is not None else None
    inside = span is not None and module.start_mark.index <= span.start < module.end_mark.index
    if span is None or not inside or source.text[span.start : span.end].strip("'\"") != "none":
        return []
    sizing = [_set_size(source, module, target, fix.size_bytes)] if fix.size_bytes and target.shm_size is None else []
    return [Edit(span.start, span.end, "private"), *sizing]
