"""``path:line:col: CODE [severity] message`` lines and a summary, coloured only for a terminal."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

import click

from shmlint.severity import Severity
from shmlint.visible import visible

if TYPE_CHECKING:  # the default reporter stays light: a clean run never loads the model
    from shmlint.model import Finding
    from shmlint.results import RenderRecord, Report
    from shmlint.source import SourceText

_COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def wants_colour(stream: TextIO | None) -> bool:
    """Colour for a terminal only, and never when ``NO_COLOR`` is set to anything (https://no-color.org)."""
    return not os.environ.get("NO_COLOR") and stream is not None and stream.isatty()


def format_finding(finding: Finding, colour: bool = False) -> str:
    span = finding.span
    where = f"{visible(span.path)}:{span.line}:{span.column}:"
    code, severity = finding.code, f"[{finding.severity.label}]"
    if colour:
        where, code = click.style(where, bold=True), click.style(code, bold=True)
        severity = click.style(severity, fg=_COLOURS[finding.severity])
    return f"{where} {code} {severity} {visible(finding.message)}"


def summary(report: Report) -> str:
    findings = report.findings
    accepted = f" ({report.baselined} accepted by the baseline)" if report.baselined else ""
    if not findings:
        if accepted:
            return f"No new findings in {report.checked} file(s){accepted}."
        if not report.checked:  # "All checked" would claim what did not happen (an excluded or empty path)
            return "No files checked: nothing shmlint reads under the path(s) given, or all of it excluded."
        left = Counter(record.unit for record in report.unrendered)
        if left:  # neither would it with a chart whose templates were not checked (listed above)
            asking = sum(record.accelerators for record in report.unrendered)
            units = ", ".join(f"{count} {unit}(s)" for unit, count in sorted(left.items()))
            units += f", {asking} of the charts asking for accelerators" if asking else ""
            return f"No findings in {report.checked} file(s); not rendered, so not checked whole: {units} (above)."
        return f"All checked: no findings in {report.checked} file(s)."
    counts = Counter(f.severity for f in findings)
    parts = [
        f"{counts[s]} {s.label}{'s' if counts[s] != 1 and s is not Severity.INFO else ''}"
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if counts[s]
    ]
    new = " new" if accepted else ""
    where = f"{len({f.span.path for f in findings})} of {report.checked} file(s)"  # files with findings, of all
    line = f"Found {len(findings)}{new} finding(s) in {where}{accepted}: {', '.join(parts)}."
    return line + fixable_note(findings)


def fixable_note(findings: list[Finding]) -> str:
    """Safe and unsafe fixes counted apart, as ruff does: ``fix --write`` applies only the safe ones."""
    from shmlint.model import Applicability

    unsafe = sum(1 for f in findings if f.fix is not None and f.fix.applicability is Applicability.UNSAFE)
    safe = sum(1 for f in findings if f.fixable) - unsafe
    note = f" {safe} fixable with `shmlint fix --write`." if safe else ""
    if unsafe:
        note += f" {unsafe} hidden fix(es) can be enabled with `--unsafe-fixes`."
    return note


def rendering(report: Report) -> list[str]:
    """Which renderers ran (with versions, for how many units) and every unit left unrendered, with its level."""
    from shmlint.results import RenderStatus

    ran: dict[tuple[str, str, str], Counter[RenderStatus]] = {}
    for r in report.renders:
        if r.status is not RenderStatus.NOT_RENDERED:
            ran.setdefault((r.renderer, r.version, r.unit), Counter())[r.status] += 1
    lines = [
        f"Ran {name} {version}: {counts[RenderStatus.RENDERED]} {unit}(s) rendered"
        + (f", {counts[RenderStatus.FAILED]} failed." if counts[RenderStatus.FAILED] else ".")
        for (name, version, unit), counts in ran.items()
    ]
    return lines + [format_unrendered(r) for r in report.unrendered]


def format_unrendered(record: RenderRecord) -> str:
    """``charts/x: warning: Helm chart not rendered: ...``: the level is what ``unrendered`` makes it count as."""
    return (
        f"{visible(record.path)}: {record.severity.label if record.severity else 'note'}: {visible(record.describe())}"
    )


def statistics(report: Report) -> list[str]:
    counts = Counter((f.code, f.slug) for f in report.findings)
    return [f"{count:5d}  {code}  {slug}" for (code, slug), count in sorted(counts.items())]


def source_context(finding: Finding, source: SourceText, diff: str | None, colour: bool) -> list[str]:
    """The lines under a finding in the full format: its source with a marker, its fix and the fix's diff."""
    from shmlint.report.context import diff_lines, snippet

    def marker(text: str) -> str:
        return click.style(text, fg=_COLOURS[finding.severity], bold=True)

    lines = snippet(source, finding.span, marker if colour else None)
    if finding.detail:  # the long explanation the one-line message leaves out
        import textwrap

        lines += textwrap.wrap(
            visible(finding.detail), 116, initial_indent="    = ", subsequent_indent="      ", break_on_hyphens=False
        )
    if finding.fix:
        lines.append(f"    fix ({finding.fix.applicability.value}): {visible(finding.fix.title)}")
        if diff:
            lines += diff_lines(diff, colour)
    return [*lines, ""]


def format_unused_suppressions(report: Report) -> list[str]:
    """One line per suppression comment that matched no finding (``--report-unused-suppressions``)."""
    return [
        f"{visible(path)}:{s.line}:{s.column}: unused suppression: "
        f"ignore[{visible(','.join((*sorted(s.codes), *s.unknown)))}] matched nothing"
        + (f"; {visible(', '.join(s.unknown))} names no rule" if s.unknown else "")
        for path, s in report.unused_suppressions
    ]


def format_report(
    report: Report,
    *,
    colour: bool = False,
    quiet: bool = False,
    show_statistics: bool = False,
    show_fixes: bool = False,
    show_unused_suppressions: bool = False,
    sources: Mapping[str, SourceText] | None = None,
    diffs: Mapping[Finding, str] | None = None,
) -> str:
    """``sources``: the text of the files whose findings are shown with their source context (``--show-source``),
    ``diffs``: the fix of each such finding as a diff."""
    lines = []
    for finding in report.findings:
        lines.append(format_finding(finding, colour))
        source = sources.get(finding.span.path) if sources else None
        if source is not None:
            lines += source_context(finding, source, (diffs or {}).get(finding), colour)
        elif show_fixes and finding.fix:
            lines.append(f"    fix ({finding.fix.applicability.value}): {visible(finding.fix.title)}")
    if show_unused_suppressions:
        lines += format_unused_suppressions(report)
    if show_statistics:
        lines += statistics(report)
    if not quiet:
        lines += [f"{visible(n.path)}: note: {visible(n.message)}" for n in report.notices]
        if report.renders:
            lines += rendering(report)
        lines.append(summary(report))
        if note := report.undecided_note():
            lines.append(note + ".")
    return "\n".join(lines) + ("\n" if lines else "")
