"""Apply fixes to one file's text until nothing fixable is left (bounded), never breaking its syntax.

Each round re-checks the current text, turns every wanted fix into edits, keeps fixes whose edits do not touch
an edit already kept, splices them in, and re-parses: a round whose result no longer parses is dropped and
reported. Fixes that meet each other (two containers of one pod both wanting the volume) converge over rounds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from shmlint.discover import FileKind
from shmlint.engine import Engine, parse_error
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


def _identity(finding: Finding) -> tuple[str, str]:
    return finding.code, finding.workload.name if finding.workload else ""


def fix_source(engine: Engine, source: SourceText, kind: FileKind, path: Path, *, unsafe: bool = False) -> FixResult:
    current = source
    applied: list[Finding] = []
    problems: list[str] = []
    previous: Counter[tuple[str, str]] = Counter()  # wanted findings of the last round, by code and workload
    fixed_last: set[tuple[str, str]] = set()
    for _ in range(MAX_ROUNDS):
        result = engine.check_source(current, kind, path)
        wanted = [f for f in result.findings if _wanted(f, unsafe)]
        counts = Counter(map(_identity, wanted))
        stuck = {identity for identity in fixed_last if counts[identity] >= previous[identity]}
        problems.extend(f"{code} fix dropped: it did not hold for {name}" for code, name in sorted(stuck))
        previous, fixed_last = counts, set()
        kept: list[Edit] = []
        fixed_now: list[tuple[Finding, list[Edit]]] = []
        for finding in wanted:
            if _identity(finding) in stuck:
                continue
            edits = edits_for(finding, current)
            if edits and not any(_touches(e, k) for e in edits for k in kept):
                kept.extend(edits)
                fixed_now.append((finding, edits))
        if not kept:
            break
        # later fixes first, so that each one's offsets still hold after the ones below it are spliced in;
        # each result must still parse, or that fix alone is dropped
        for finding, edits in sorted(fixed_now, key=lambda pair: min(e.start for e in pair[1]), reverse=True):
            candidate = replace(current, text=splice(current.text, edits))
            error = parse_error(candidate, kind)
            if error is not None:
                problems.append(f"{finding.code} fix dropped: it would make the file unparsable ({error})")
                continue
            current = candidate
            applied.append(finding)
            fixed_last.add(_identity(finding))
    return FixResult(source, current.text, tuple(applied), tuple(problems))
