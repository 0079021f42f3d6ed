"""Fixes for container command lines: text edits that touch only the characters the fix is about.

A new option goes right after ``run``/``create`` (``docker run --shm-size=8g ...``), where it cannot be mistaken
for the image or for the container's own arguments, whatever else the line holds; after a variable the script
gives a ``--shm-size`` (docker keeps the last one), and nowhere when an expansion there may hold one of its own.
"""

from __future__ import annotations

from shmlint import sizes
from shmlint.edits.option_size import written_as_read
from shmlint.extract.commandline import CommandTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.source import SourceText


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    """From the target alone: a new ``--shm-size``, a size where the declaration has one or a slot for one, or the
    ``--ipc`` option rewritten."""
    target, declared = workload.target, fix.source
    if fix.action is FixAction.PRIVATE_IPC:  # not one a variable gives: its value is the variable's
        return isinstance(target, CommandTarget) and declared is not None and declared.span.start not in target.expanded
    if not isinstance(target, CommandTarget) or fix.size_bytes is None:
        return False
    if _adds_option(fix, target):
        return not target.overridable
    if fix.action is not FixAction.SET_SIZE or declared is None or declared.span.start in target.expanded:
        return False
    if declared.size is not None:
        return written_as_read(source.text, declared.size)
    return any(slot.source_start == declared.span.start for slot in target.size_slots)


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    """The edits that apply ``fix`` to a ``docker run`` line; none when the fix cannot be written there."""
    target = workload.target
    if not isinstance(target, CommandTarget):
        return []
    declared = fix.source
    if _adds_option(fix, target) and fix.size_bytes is not None:
        if target.overridable:
            return []
        option = f"--shm-size={sizes.format_docker(fix.size_bytes)}"
        return [Edit(target.insert_at, target.insert_at, f"{target.before}{option}{target.after}")]
    if declared is None or declared.span.start in target.expanded:
        return []
    if fix.action is FixAction.PRIVATE_IPC:  # the whole ``--ipc=none`` / ``--ipc none`` option is rewritten
        size = f"{target.separator}--shm-size={sizes.format_docker(fix.size_bytes)}" if fix.size_bytes else ""
        return [Edit(declared.span.start, declared.span.end, f"--ipc=private{size}")]
    if declared.size is not None and not written_as_read(source.text, declared.size):
        return []
    if fix.action is FixAction.REWRITE_SIZE and fix.replacement and declared.size is not None:
        return [Edit(declared.size.span.start, declared.size.span.end, fix.replacement)]
    if fix.action is not FixAction.SET_SIZE or fix.size_bytes is None:
        return []
    if declared.size is not None:
        return [Edit(declared.size.span.start, declared.size.span.end, sizes.format_docker(fix.size_bytes))]
    for slot in target.size_slots:
        if slot.source_start == declared.span.start:
            size = str(fix.size_bytes) if slot.in_bytes else sizes.format_docker(fix.size_bytes)
            return [Edit(slot.offset, slot.offset, slot.prefix + size)]
    return []


def _adds_option(fix: Fix, target: CommandTarget) -> bool:
    """The fix writes a new ``--shm-size``: it adds one, or raises a variable's (after it, never inside it)."""
    declared = fix.source
    if fix.action is FixAction.ADD_SHM:
        return True
    return fix.action is FixAction.SET_SIZE and declared is not None and declared.span.start in target.expanded
