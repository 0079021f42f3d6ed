"""Text edits per format: a finding's format-free ``Fix`` written as the smallest edits to one file.

Below the engine: the engine asks ``can_write`` whether a fix can be written for a workload's target (from the
target's data alone, no edit is computed during ``check``), and the fix loop (``shmlint.fix``) asks
``edits_for`` for the edits themselves.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from shmlint.file_formats import describe
from shmlint.model import BlockTarget, Edit, Finding, FixAction, WorkloadFormat
from shmlint.source import SourceText


def _writer(format: WorkloadFormat) -> ModuleType:
    """The module of the format that spells the fix (``Format.writer``), imported when a fix is wanted."""
    return import_module(describe(format).writer)


def can_write(finding: Finding, source: SourceText) -> bool:
    """Whether the fixer of the workload's format can write the finding's fix in its file."""
    fix, workload = finding.fix, finding.workload
    if fix is None or workload is None:
        return False
    if fix.action is FixAction.REWRITE_SIZE:
        return bool(fix.replacement)
    if isinstance(workload.target, BlockTarget):
        from shmlint.edits import codeblock

        workload, source = codeblock.unwrapped(workload, workload.target, source)
    answer: bool = _writer(workload.format).can_write(fix, workload, source)
    return answer


def edits_for(finding: Finding, source: SourceText) -> list[Edit]:
    fix, workload = finding.fix, finding.workload
    if fix is None or workload is None:
        return []
    if fix.action is FixAction.REWRITE_SIZE and fix.replacement:
        return [Edit(finding.span.start, finding.span.end, fix.replacement)]
    target = workload.target
    if isinstance(target, BlockTarget):
        from shmlint.edits import codeblock

        inner, alone = codeblock.unwrapped(workload, target, source)
        return codeblock.verified(_writer(workload.format).edits_for(fix, inner, alone), target, alone)
    edits: list[Edit] = _writer(workload.format).edits_for(fix, workload, source)
    return edits
