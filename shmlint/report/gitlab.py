"""GitLab Code Quality JSON (``artifacts: reports: codequality``): findings in the merge request widget and diff.

GitLab tells new findings from old ones by ``fingerprint``, so it is the baseline fingerprint, which survives
lines moving. Severities follow the convention of other linters' GitLab output so shmlint sorts among them:
error -> major, warning -> minor, info -> info; ``critical`` and ``blocker`` are left for security scanners.
Notices are not code quality issues and are left out.
"""

from __future__ import annotations

import json
from typing import Any

from shmlint.model import Finding
from shmlint.report.common import extent, posix_path, title
from shmlint.report.fingerprint import fingerprints
from shmlint.results import Report
from shmlint.severity import Severity

_SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def _issue(finding: Finding, mark: str) -> dict[str, Any]:
    where = extent(finding.span)
    return {
        "type": "issue",
        "description": f"{title(finding)}: {finding.message}",
        "check_name": finding.code,
        "fingerprint": mark,
        "severity": _SEVERITIES[finding.severity],
        "location": {"path": posix_path(finding.span.path), "lines": {"begin": where.line, "end": where.end_line}},
    }


def format_report(report: Report) -> str:
    findings = report.findings
    issues = [_issue(f, mark) for f, mark in zip(findings, fingerprints(findings), strict=True)]
    return json.dumps(issues, indent=2) + "\n"
