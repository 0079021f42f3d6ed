"""Suppression comments: ``# shmlint: ignore[SHM001]`` on a finding's line or the line above,
``<!-- shmlint: ignore[SHM001] -->`` before a Markdown code block, and ``# shmlint: ignore-file``.

Codes or slugs are accepted; a bare ``ignore`` (no list) is not, so a suppression always says what it hides.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shmlint.source import SourceText

if TYPE_CHECKING:
    from shmlint.model import Finding

_LINE = re.compile(r"(?:#|<!--)\s*shmlint:\s*ignore\[([^\]]*)\]")
_FILE = re.compile(r"#\s*shmlint:\s*ignore-file\b|<!--\s*shmlint:\s*ignore-file\s*-->")
_HTML = re.compile(r"<!--\s*shmlint:\s*ignore\[([^\]]*)\]\s*-->")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class Suppression:
    """A ``shmlint: ignore[...]`` comment and the lines it covers."""

    line: int  # where the comment is
    column: int
    codes: frozenset[str]
    first: int  # first and last line it covers
    last: int

    def covers(self, finding: Finding) -> bool:
        return finding.code in self.codes and self.first <= finding.span.line <= self.last


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


def find_suppressions(source: SourceText, resolve: Callable[[str], str | None]) -> list[Suppression]:
    """All suppressions in a file; ``resolve`` maps a code or slug to its code (None when unknown)."""
    text = source.text
    if "shmlint:" not in text:
        return []
    found: list[Suppression] = []
    for match in _LINE.finditer(text):
        line, column = source.position(match.start())
        codes = frozenset(filter(None, (resolve(part.strip()) for part in match.group(1).split(","))))
        last = _block_after(source, line) if _HTML.match(text, match.start()) else line + 1
        found.append(Suppression(line, column, codes, line, last))
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
