"""SARIF 2.1.0, the format GitHub code scanning and most security dashboards import.

Every catalog rule is listed in ``tool.driver.rules`` (not only the ones that fired), so a dashboard can show a
rule's docs and tell "fixed" from "rule not run". Results carry the baseline fingerprint in
``partialFingerprints``, so code scanning follows a finding across commits that move its lines. Notices (files
that were not checked, such as Helm templates) become tool execution notifications.
"""

from __future__ import annotations

import json
from typing import Any

from shmlint import __version__
from shmlint.catalog import CatalogEntry, load_catalog
from shmlint.model import Finding, Notice
from shmlint.report.common import extent, homepage, rule_url, uri_reference
from shmlint.report.fingerprint import fingerprints
from shmlint.report.json import rendering
from shmlint.results import RenderRecord, Report
from shmlint.severity import Severity

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: the key of our fingerprint in ``partialFingerprints``; a new fingerprint algorithm gets a new key
FINGERPRINT_KEY = "shmlint/v2"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_location(path: str) -> dict[str, str]:
    """Relative paths stay relative to the checkout (``%SRCROOT%``); absolute ones become ``file:`` URIs."""
    uri, relative = uri_reference(path)
    return {"uri": uri, "uriBaseId": "%SRCROOT%"} if relative else {"uri": uri}


def _rule(rule: CatalogEntry) -> dict[str, Any]:
    entry = {
        "id": rule.code,
        "name": "".join(word.capitalize() for word in rule.slug.split("-")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": rule.how_to_fix, "markdown": rule.how_to_fix},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": _LEVELS[rule.severity]},
    }
    return {key: value for key, value in entry.items() if value is not None}  # no URLs when not installed


def _region(finding: Finding) -> dict[str, int]:
    where = extent(finding.span)
    region = {"startLine": where.line, "startColumn": where.column, "endLine": where.end_line}
    if where.end_column is not None:  # absent means "to the end of endLine" in SARIF
        region["endColumn"] = where.end_column
    return region


def _result(finding: Finding, rule_index: int, mark: str) -> dict[str, Any]:
    return {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(finding.span.path),
                    "region": _region(finding),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: mark},
        **({"properties": {"detail": finding.detail}} if finding.detail else {}),
    }


def _notification(notice: Notice) -> dict[str, Any]:
    return {
        "level": "note",
        "message": {"text": notice.message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(notice.path)}}],
    }


def _unrendered(record: RenderRecord) -> dict[str, Any]:
    level = _LEVELS[record.severity] if record.severity is not None else "note"
    return {
        "level": level,
        "message": {"text": record.describe()},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(record.path)}}],
    }


def format_report(report: Report) -> str:
    rules = list(load_catalog().values())
    index = {rule.code: position for position, rule in enumerate(rules)}
    findings = report.findings
    run = {
        "tool": {
            "driver": {
                "name": "shmlint",
                "version": __version__,
                "semanticVersion": __version__,
                **({"informationUri": homepage()} if homepage() else {}),
                "rules": [_rule(rule) for rule in rules],
            }
        },
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [_notification(n) for n in report.notices]
                + [_unrendered(r) for r in report.unrendered]
                + [{"level": "note", "message": {"text": note}} for note in filter(None, [report.undecided_note()])],
            }
        ],
        "properties": {"rendering": rendering(report)},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index[f.code], mark) for f, mark in zip(findings, fingerprints(findings), strict=True)],
    }
    document = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"
