"""The documented JSON format (``schema_version`` 1): one object with a ``findings`` list."""

from __future__ import annotations

import json
from typing import Any

from shmlint.model import Finding, Report

SCHEMA_VERSION = 1


def finding_dict(finding: Finding) -> dict[str, Any]:
    span = finding.span
    return {
        "code": finding.code,
        "slug": finding.slug,
        "severity": finding.severity.label,
        "message": finding.message,
        "path": span.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "workload": finding.workload.name if finding.workload else None,
        "fixable": finding.fixable,
        "fix": {"title": finding.fix.title, "applicability": finding.fix.applicability.value} if finding.fix else None,
    }


def render(report: Report) -> str:
    document = {
        "schema_version": SCHEMA_VERSION,
        "tool": "shmlint",
        "findings": [finding_dict(f) for f in report.findings],
        "notices": [{"path": n.path, "message": n.message} for n in report.notices],
        "summary": {"files": len(report.files), "findings": len(report.findings), "baselined": report.baselined},
    }
    return json.dumps(document, indent=2) + "\n"
