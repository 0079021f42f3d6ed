"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request's diff.

``::error``/``::warning``/``::notice`` follow the severity. The runner drops columns from an annotation that spans
several lines, so columns are written only for single-line extents. Notices (files that were not checked) become
``::notice`` annotations titled ``shmlint``.
"""

from __future__ import annotations

from shmlint.model import Finding, Notice
from shmlint.report.common import extent, posix_path, title
from shmlint.results import RenderRecord, Report
from shmlint.severity import Severity
from shmlint.visible import visible

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_DATA_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
_PROPERTY_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})


def escape_data(text: str) -> str:
    """The message after ``::``: a newline would end the command, ``%`` starts an escape; other control
    characters are made visible (the log viewer would interpret them)."""
    return visible(text.translate(_DATA_ESCAPES))


def escape_property(text: str) -> str:
    """A ``key=value`` property: additionally ``,`` separates properties and ``:`` ends them."""
    return visible(text.translate(_PROPERTY_ESCAPES))


def _command(name: str, properties: dict[str, object], message: str) -> str:
    fields = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::{name} {fields}::{escape_data(message)}"


def format_finding(finding: Finding) -> str:
    where = extent(finding.span)
    properties: dict[str, object] = {"file": posix_path(finding.span.path), "line": where.line}
    if where.end_line == where.line and where.end_column is not None:
        properties |= {"col": where.column, "endLine": where.end_line, "endColumn": where.end_column}
    else:
        properties["endLine"] = where.end_line
    properties["title"] = title(finding)
    return _command(_COMMANDS[finding.severity], properties, finding.message)


def format_notice(notice: Notice) -> str:
    return _command("notice", {"file": posix_path(notice.path), "title": "shmlint"}, notice.message)


def format_unrendered(record: RenderRecord) -> str:
    """A kustomization or chart that was not rendered, annotated at the level ``unrendered`` gives it."""
    name = _COMMANDS[record.severity] if record.severity is not None else "notice"
    return _command(name, {"file": posix_path(record.path), "title": "shmlint"}, record.describe())


def format_report(report: Report) -> str:
    lines = [format_finding(f) for f in report.findings] + [format_notice(n) for n in report.notices]
    lines += [format_unrendered(r) for r in report.unrendered]
    lines += [_command("notice", {"title": "shmlint"}, note) for note in filter(None, [report.undecided_note()])]
    return "".join(f"{line}\n" for line in lines)
