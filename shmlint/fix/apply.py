"""Apply fixes to one file's text until nothing fixable is left (bounded), never breaking its syntax.

Each round re-checks the current text, turns every wanted fix into edits, keeps fixes whose edits do not touch
an edit already kept, splices them in, and re-parses: a round whose result no longer parses is dropped and
reported. Fixes that meet each other (two containers of one pod both wanting the volume) converge over rounds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from shmlint.discover import FileKind, StrPath
from shmlint.edits import edits_for
from shmlint.engine import Engine
from shmlint.fix.syntax import parse_error
from shmlint.model import Applicability, Edit, Finding, WorkloadId
from shmlint.results import FileResult
from shmlint.source import SourceText

MAX_ROUNDS = 5


@dataclass(frozen=True)
class FixResult:
    """A file's text before and after its fixes, with the fixes made and those dropped."""

    source: SourceText  # as read
    text: str  # after the fixes
    applied: tuple[Finding, ...]
    problems: tuple[str, ...]  # fixes that were dropped, with why

    @property
    def changed(self) -> bool:
        return self.text != self.source.text


def _touches(a: Edit, b: Edit) -> bool:
    return not (a.end < b.start or b.end < a.start)


def splice(text: str, edits: list[Edit]) -> str:
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    return text


def _wanted(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.applicability is Applicability.SAFE)


def breaks(after: SourceText, kind: FileKind, original: SourceText) -> str | None:
    """Why the fixed text no longer reads. A duplicate key counts only when the original had none: a file the
    strict readers already reject is not made worse by the fix (and the original is read again only then)."""
    error = parse_error(after, kind, strict=True)
    if error is None or parse_error(after, kind) is not None:
        return error
    return error if parse_error(original, kind, strict=True) is None else None


def _parsable(
    current: SourceText,
    kind: FileKind,
    fixes: list[tuple[Finding, list[Edit]]],
    problems: list[str],
    original: SourceText,
) -> tuple[list[tuple[Finding, list[Edit]]], str]:
    """The round's fixes and the text they make, if together they keep the file readable; else those that do on
    their own, if together they still do; else none (and the text unchanged)."""
    together = splice(current.text, [e for _, edits in fixes for e in edits])
    if breaks(current.with_text(together), kind, original) is None:
        return fixes, together
    good = []
    for finding, edits in fixes:
        error = breaks(current.with_text(splice(current.text, edits)), kind, original)
        if error is None:
            good.append((finding, edits))
        else:
            problems.append(f"{finding.code} fix dropped: it would make the file unparsable ({error})")
    together = splice(current.text, [e for _, edits in good for e in edits])
    if good and breaks(current.with_text(together), kind, original) is None:
        return good, together
    return [], current.text


def _identity(finding: Finding) -> tuple[str, WorkloadId | None]:
    return finding.code, finding.workload.id if finding.workload else None


def _first_of_each(findings: list[Finding], identities: set[tuple[str, WorkloadId | None]]) -> list[Finding]:
    """One finding for each identity, in file order, to name in a message."""
    named: dict[tuple[str, WorkloadId | None], Finding] = {}
    for finding in findings:
        if _identity(finding) in identities:
            named.setdefault(_identity(finding), finding)
    return sorted(named.values(), key=Finding.sort_key)


def fix_source(
    engine: Engine,
    source: SourceText,
    kind: FileKind,
    path: StrPath,
    *,
    unsafe: bool = False,
    checked: FileResult | None = None,
) -> FixResult:
    """``checked``: the result of checking ``source``, when the caller has it (saves the first round's check)."""
    if "\r" in source.text and "\n" not in source.text:  # old Mac line breaks: fixed as \n, written back as \r
        lf = _fix_rounds(engine, source.with_text(source.text.replace("\r", "\n")), kind, path, unsafe, None)
        return replace(lf, source=source, text=lf.text.replace("\n", "\r"))
    return _fix_rounds(engine, source, kind, path, unsafe, checked)


def _fix_rounds(
    engine: Engine, source: SourceText, kind: FileKind, path: StrPath, unsafe: bool, checked: FileResult | None
) -> FixResult:
    current = source
    applied: list[Finding] = []
    problems: list[str] = []
    seen = {source.text}
    previous: Counter[tuple[str, WorkloadId | None]] = Counter()  # the last round's wanted findings by code, workload
    fixed_last: set[tuple[str, WorkloadId | None]] = set()
    before_last = source  # the text before the last round's edits
    for _ in range(MAX_ROUNDS):
        result = checked if checked is not None and current is source else engine.check_source(current, kind, path)
        wanted = [f for f in result.findings if _wanted(f, unsafe)]
        counts = Counter(map(_identity, wanted))
        stuck = {identity for identity in fixed_last if counts[identity] >= previous[identity]}
        problems.extend(
            f"{finding.code} fix dropped: it did not hold for {finding.workload.name if finding.workload else 'the file'}"
            for finding in _first_of_each(wanted, stuck)
        )
        if stuck:  # an edit that fixed nothing is not counted, and not kept when nothing else came with it
            applied = [finding for finding in applied if _identity(finding) not in stuck]
            if fixed_last <= stuck:
                current = before_last
                result = engine.check_source(current, kind, path)
                wanted = [f for f in result.findings if _wanted(f, unsafe)]
                counts = Counter(map(_identity, wanted))
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
        # one splice of every kept edit, all offsets taken from the same text; if the result no longer parses,
        # each fix is tried alone and only those that parse on their own are spliced together
        good, text = _parsable(current, kind, fixed_now, problems, source)
        if not good:
            break
        before_last, current = current, current.with_text(text)
        if current.text in seen:  # a round that brings back an earlier text: fixes that undo each other
            problems.append("fixes stopped: they undo each other (an unsafe fix and a safe one disagree)")
            break
        seen.add(current.text)
        applied.extend(finding for finding, _ in good)
        fixed_last.update(_identity(finding) for finding, _ in good)
    return FixResult(source, current.text, tuple(applied), tuple(problems))
