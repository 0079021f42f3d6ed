"""A finding's format-free ``Fix`` as text edits for one file, by the fixer of the workload's format.

Apart from the fix loop so that ``check`` can ask "can this fix be written here?" without loading that loop.
"""

from __future__ import annotations

from shmlint.model import Edit, Finding, FixAction, Format
from shmlint.source import SourceText


def edits_for(finding: Finding, source: SourceText) -> list[Edit]:
    fix, workload = finding.fix, finding.workload
    if fix is None or workload is None:
        return []
    if fix.action is FixAction.REWRITE_SIZE and fix.replacement:
        return [Edit(finding.span.start, finding.span.end, fix.replacement)]
    if workload.format is Format.KUBERNETES:
        from shmlint.fix import kubernetes as fixer
    elif workload.format is Format.COMPOSE:
        from shmlint.fix import compose as fixer  # type: ignore[no-redef]
    else:
        from shmlint.fix import commandline as fixer  # type: ignore[no-redef]
    return fixer.edits_for(fix, workload, source)
