"""One finding's fix as a diff of its file, to show beside the finding (``check --show-source``), not to apply:
``shmlint fix`` is what applies fixes (with rounds and the syntax guard)."""

from __future__ import annotations

from shmlint.edits import edits_for
from shmlint.fix.apply import splice
from shmlint.fix.diff import unified
from shmlint.model import Finding
from shmlint.source import SourceText


def fix_diff(finding: Finding, source: SourceText, context: int = 1) -> str | None:
    """The unified diff of the finding's fix alone, or None when no edit can be written for it in this text."""
    edits = edits_for(finding, source)
    if not edits:
        return None
    return unified(source.path, source.text, splice(source.text, edits), context) or None
