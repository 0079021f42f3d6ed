"""Apply fixes to one file's text until nothing fixable is left (bounded), never breaking its syntax.

Each round re-checks the current text, turns every wanted fix into edits, keeps fixes whose edits do not touch
an edit already kept, splices them in, and re-parses: a round whose result no longer parses is dropped and
reported. Fixes that meet each other (two containers of one pod both wanting the volume) converge over rounds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.model import Applicability, Edit, Finding, FixAction, Format
from shmlint.source import SourceText

MAX_ROUNDS = 5


@dataclass(frozen=True)
class FixResult:
    source: SourceText  # as read
    text: str  # after the fixes
    applied: tuple[Finding, ...]
    problems: tuple[str, ...]  # fixes that were dropped, with why

    @property
    def changed(self) -> bool:
        return self.text != self.source.text


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


def _touches(a: Edit, b: Edit) -> bool:
    return not (a.end < b.start or b.end < a.start)


def splice(text: str, edits: list[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    return text


def _wanted(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.applicability is Applicability.SAFE)


def fix_source(engine: Engine, source: SourceText, kind: FileKind, path: Path, *, unsafe: bool = False) -> FixResult:
    current = source
    applied: list[Finding] = []
    problems: list[str] = []
    for _ in range(MAX_ROUNDS):
        result = engine.check_source(current, kind, path)
        kept: list[Edit] = []
        fixed_now: list[Finding] = []
        for finding in result.findings:
            if not _wanted(finding, unsafe):
                continue
            edits = edits_for(finding, current)
            if edits and not any(_touches(e, k) for e in edits for k in kept):
                kept.extend(edits)
                fixed_now.append(finding)
        if not kept:
            break
        candidate = replace(current, text=splice(current.text, kept))
        if any(f.code == "SHM000" for f in engine.check_source(candidate, kind, path).findings):
            problems.extend(f"{f.code} fix dropped: it would make the file unparsable ({f.message})" for f in fixed_now)
            break
        applied.extend(fixed_now)
        current = candidate
    return FixResult(source, current.text, tuple(applied), tuple(problems))
