"""The documented JSON format (``schema_version`` 1): one object with a ``findings`` list."""

from __future__ import annotations

import json
from typing import Any

from shmlint.model import Finding
from shmlint.report.common import posix_path
from shmlint.results import RenderStatus, Report

SCHEMA_VERSION = 1


def finding_dict(finding: Finding) -> dict[str, Any]:
    span = finding.span
    return {
        "code": finding.code,
        "slug": finding.slug,
        "severity": finding.severity.label,
        "message": finding.message,
        "detail": finding.detail or None,  # the long explanation, when the rule gives one
        "path": posix_path(span.path),
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "workload": finding.workload.name if finding.workload else None,
        "fixable": finding.fixable,
        "fix": {"title": finding.fix.title, "applicability": finding.fix.applicability.value} if finding.fix else None,
    }


def rendering(report: Report) -> dict[str, Any]:
    """Which renderers ran, with versions, and what happened to each kustomization and chart (also SARIF's)."""
    ran = sorted({(r.renderer, r.version) for r in report.renders if r.status is not RenderStatus.NOT_RENDERED})
    return {
        "renderers": [{"name": name, "version": version} for name, version in ran],
        "units": [
            {
                "path": r.path,
                "unit": r.unit,
                "renderer": r.renderer,
                "status": r.status.value,
                "version": r.version or None,
                "reason": r.reason or None,
                "severity": (r.severity.label if r.severity else "note")
                if r.status is RenderStatus.NOT_RENDERED
                else None,
                "accelerators": r.accelerators,
            }
            for r in report.renders
        ],
    }


def format_report(report: Report) -> str:
    document = {
        "schema_version": SCHEMA_VERSION,
        "tool": "shmlint",
        "findings": [finding_dict(f) for f in report.findings],
        "notices": [{"path": posix_path(n.path), "message": n.message} for n in report.notices],
        "rendering": rendering(report),
        "summary": {
            "files": report.checked,
            "findings": len(report.findings),
            "baselined": report.baselined,
            "undecided": report.undecided,
        },
    }
    return json.dumps(document, indent=2) + "\n"
