"""Fixes for Podman Quadlet ``.container`` units: a new ``ShmSize=`` line at the end of ``[Container]``; sizes and
``--ipc`` options already written (``ShmSize=``, ``Tmpfs=``, ``PodmanArgs=``) are changed as on a command line.
A new line is kept only if the unit, read again, has it as a ``[Container]`` key."""

from __future__ import annotations

from shmlint import sizes
from shmlint.extract.commandline import CommandTarget
from shmlint.formats.commandline import edit as commandline
from shmlint.model import Edit, Fix, FixAction, Workload
from shmlint.parsers.systemd_unit import read_unit, value
from shmlint.source import SourceText


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    return commandline.can_write(fix, workload, source)


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    target = workload.target
    if fix.action is not FixAction.ADD_SHM or fix.size_bytes is None or not isinstance(target, CommandTarget):
        return commandline.edits_for(fix, workload, source)
    size = sizes.format_docker(fix.size_bytes)
    edit = Edit(target.insert_at, target.insert_at, f"{source.newline}ShmSize={size}")
    text = source.text[: edit.start] + edit.new_text + source.text[edit.end :]
    added = [e for e in read_unit(text) if e.section == "Container" and e.key == "ShmSize"]
    return [edit] if added and value(text, added[-1]) == size else []
