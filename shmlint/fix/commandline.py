"""Fixes for container command lines: text edits that touch only the characters the fix is about.

A new option goes right after ``run``/``create`` (``docker run --shm-size=8g ...``), where it cannot be mistaken
for the image or for the container's own arguments, whatever else the line holds.
"""

from __future__ import annotations

from shmlint import sizes
from shmlint.extract.commandline import CommandTarget
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.source import SourceText


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    """The edits that apply ``fix`` to a ``docker run`` line; none when the fix cannot be written there."""
    target = workload.target
    if not isinstance(target, CommandTarget):
        return []
    if fix.action is FixAction.ADD_SHM and fix.size_bytes is not None:
        return [Edit(target.insert_at, target.insert_at, f" --shm-size={sizes.format_docker(fix.size_bytes)}")]
    declared = fix.source
    if declared is None:
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
