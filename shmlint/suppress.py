"""Every way a finding is switched off, applied in one stage: the workload's own ``shmlint.io/ignore`` annotation
or label, ``per-file-ignores`` from configuration, and comments: ``# shmlint: ignore[SHM001]`` on a finding's
line or the line above (``; shmlint: ignore[...]`` in systemd and Quadlet units,
``// shmlint: ignore[...]`` in JSONC and Jenkinsfiles),
``<!-- shmlint: ignore[SHM001] -->`` before a Markdown code block, ``.. shmlint: ignore[SHM001]`` before a
reStructuredText directive (its whole body), and ``# shmlint: ignore-file``.

Codes or slugs are accepted; a bare ``ignore`` (no list) is not, so a suppression always says what it hides.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shmlint.lazy_regex import LazyRegex
from shmlint.model import Finding, Suppression
from shmlint.source import SourceText

_LINE = LazyRegex(r"(?:#|//|;|<!--|^[ \t]*\.\.)\s*shmlint:\s*ignore\[([^\]]*)\]", re.MULTILINE)
_FILE = LazyRegex(r"(?:#|//)\s*shmlint:\s*ignore-file\b|<!--\s*shmlint:\s*ignore-file\s*-->")
_HTML = LazyRegex(r"<!--\s*shmlint:\s*ignore\[([^\]]*)\]\s*-->")
_FENCE = LazyRegex(r"^\s{0,3}(`{3,}|~{3,})")
_RST_COMMENT = LazyRegex(r"[ \t]*\.\.")
#: how far a reStructuredText suppression reaches: more than any code block, and a bound on the work when a
#: hostile file puts thousands of comments in front of one huge indented block
_DIRECTIVE_LINES = 5_000


def ignores_file(text: str) -> bool:
    """``# shmlint: ignore-file`` anywhere: the file is not read further, so nothing in it can be reported."""
    return "shmlint:" in text and _FILE.search(text) is not None


def _block_after(source: SourceText, line: int) -> int:
    """The last line of the fenced code block that follows a Markdown comment on ``line``."""
    total = len(source.line_starts)
    opening = None
    for number in range(line + 1, total + 1):
        match = _FENCE.match(source.line_text(number))
        if match and opening is None:
            opening = match.group(1)
        elif match and opening and match.group(1).startswith(opening[0]) and len(match.group(1)) >= len(opening):
            return number
    return line + 1


def _directive_after(source: SourceText, line: int) -> int:
    """The last line of what follows a reStructuredText comment on ``line``: the next directive or paragraph and
    everything indented below it (a ``code-block`` with its body)."""
    total = len(source.line_starts)
    number = line + 1
    while number <= total and not source.line_text(number).strip():
        number += 1
    if number > total:
        return line + 1
    head = source.line_text(number)
    indent = len(head) - len(head.lstrip())
    last = number
    for following in range(number + 1, min(total, number + _DIRECTIVE_LINES) + 1):
        current = source.line_text(following)
        if current.strip():
            if len(current) - len(current.lstrip()) <= indent:
                break
            last = following
    return last


def find_suppressions(source: SourceText, resolve: Callable[[str], str | None]) -> list[Suppression]:
    """All suppressions in a file; ``resolve`` maps a code or slug to its code (None when unknown)."""
    text = source.text
    if "shmlint:" not in text:
        return []
    found: list[Suppression] = []
    for match in _LINE.finditer(text):
        line, column = source.position(match.start())
        named = [part.strip() for part in match.group(1).split(",") if part.strip()]
        codes = frozenset(filter(None, map(resolve, named)))
        unknown = tuple(part for part in named if resolve(part) is None)
        if _HTML.match(text, match.start()):
            last = _block_after(source, line)
        elif _RST_COMMENT.match(text, match.start()):
            last = _directive_after(source, line)
        else:
            last = line + 1
        found.append(Suppression(line, column, codes, line, last, unknown))
    return found


def apply_suppressions(
    findings: list[Finding], suppressions: list[Suppression]
) -> tuple[list[Finding], list[Suppression]]:
    """(findings left, suppressions that matched nothing)."""
    used: set[Suppression] = set()
    kept: list[Finding] = []
    for finding in findings:
        hit = next((s for s in suppressions if s.covers(finding)), None)
        if hit is None:
            kept.append(finding)
        else:
            used.add(hit)
    return kept, [s for s in suppressions if s not in used]


def suppress(
    findings: list[Finding], source: SourceText, path_ignores: frozenset[str], resolve: Callable[[str], str | None]
) -> tuple[list[Finding], list[Suppression]]:
    """(findings left, comments that matched nothing); ``resolve`` maps a code or slug to its code."""
    kept = [f for f in findings if f.code not in path_ignores and not _ignored_by_workload(f)]
    return apply_suppressions(kept, find_suppressions(source, resolve))


def _ignored_by_workload(finding: Finding) -> bool:
    """The workload's own ``shmlint.io/ignore`` annotation or label names the rule (code, any case, or slug)."""
    if finding.workload is None or not finding.workload.ignored_codes:
        return False
    names = {name.upper() for name in finding.workload.ignored_codes} | finding.workload.ignored_codes
    return finding.code in names or finding.slug in names
