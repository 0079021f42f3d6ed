"""``path:line:col: CODE [severity] message`` lines and a summary, coloured only for a terminal."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from shmlint.severity import Severity

if TYPE_CHECKING:  # the default reporter stays light: a clean run never loads the model
    from shmlint.model import Finding, Report

_COLOURS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def _paint(text: str, code: str, colour: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if colour else text


def format_finding(finding: Finding, colour: bool = False) -> str:
    span = finding.span
    where = _paint(f"{span.path}:{span.line}:{span.column}:", "1", colour)
    severity = _paint(f"[{finding.severity.label}]", _COLOURS[finding.severity], colour)
    return f"{where} {_paint(finding.code, '1', colour)} {severity} {finding.message}"


def summary(report: Report) -> str:
    findings = report.findings
    accepted = f" ({report.baselined} accepted by the baseline)" if report.baselined else ""
    if not findings:
        if accepted:
            return f"No new findings in {len(report.files)} file(s){accepted}."
        return f"All checked: no findings in {len(report.files)} file(s)."
    counts = Counter(f.severity for f in findings)
    parts = [
        f"{counts[s]} {s.label}{'s' if counts[s] != 1 and s is not Severity.INFO else ''}"
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if counts[s]
    ]
    fixable = sum(1 for f in findings if f.fixable)
    new = " new" if accepted else ""
    line = f"Found {len(findings)}{new} finding(s) in {len(report.files)} file(s){accepted}: {', '.join(parts)}."
    if fixable:
        line += f" {fixable} fixable with `shmlint fix`."
    return line


def statistics(report: Report) -> list[str]:
    counts = Counter((f.code, f.slug) for f in report.findings)
    return [f"{count:5d}  {code}  {slug}" for (code, slug), count in sorted(counts.items())]


def render(
    report: Report,
    *,
    colour: bool = False,
    quiet: bool = False,
    show_statistics: bool = False,
    show_fixes: bool = False,
    show_unused_suppressions: bool = False,
) -> str:
    lines = []
    for finding in report.findings:
        lines.append(format_finding(finding, colour))
        if show_fixes and finding.fix:
            lines.append(f"    fix ({finding.fix.applicability.value}): {finding.fix.title}")
    if show_unused_suppressions:
        lines += [
            f"{path}:{s.line}:{s.column}: unused suppression: ignore[{','.join(sorted(s.codes))}] matched nothing"
            for path, s in report.unused_suppressions
        ]
    if show_statistics:
        lines += statistics(report)
    if not quiet:
        lines += [f"{n.path}: note: {n.message}" for n in report.notices]
        lines.append(summary(report))
    return "\n".join(lines) + ("\n" if lines else "")
