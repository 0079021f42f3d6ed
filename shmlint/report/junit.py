"""JUnit XML, for CI services that only read test reports (GitLab, Jenkins, Azure Pipelines, CircleCI).

One ``<testsuite name="shmlint">`` with one ``<testcase>`` per finding: ``classname`` is the file, ``name`` is
``CODE line:col``. Errors and warnings are ``<failure type="CODE">``; info findings do not fail the run by default
(``--fail-on warning``), so they are passing testcases whose ``<system-out>`` carries the message: listed, not red.
A run without findings is one passing testcase, so the CI still shows that shmlint ran. Notices go to the suite's
``<system-out>``. CI logs show the file: every field is made visible (a line break in a file name would start a
forged ``::add-mask::`` line), and no line of text begins with a file name or a value.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from shmlint.lazy_regex import LazyRegex
from shmlint.model import Finding
from shmlint.report.common import posix_path, rule_url, title
from shmlint.report.text import format_unrendered
from shmlint.results import Report
from shmlint.severity import Severity
from shmlint.visible import visible

#: characters XML 1.0 cannot carry at all (control characters, lone surrogates from undecodable bytes)
_NOT_XML = LazyRegex("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(text: str) -> str:
    """One field on one line: control characters escaped, then what XML cannot carry replaced."""
    return _NOT_XML.sub("\ufffd", visible(text))


def _details(finding: Finding) -> str:
    span = finding.span
    where = f"{posix_path(span.path)}:{span.line}:{span.column}"
    url = rule_url(finding.code)
    first = f"{title(finding)} [{finding.severity.label}] at {_text(where)}: {_text(finding.message)}"
    return first + (f"\nsee {url}" if url else "")


def _testcase(suite: ET.Element, finding: Finding) -> None:
    span = finding.span
    case = ET.SubElement(
        suite, "testcase", classname=_text(posix_path(span.path)), name=f"{finding.code} {span.line}:{span.column}"
    )
    if finding.severity >= Severity.WARNING:
        failure = ET.SubElement(case, "failure", type=finding.code, message=_text(finding.message))
        failure.text = _details(finding)
    else:
        ET.SubElement(case, "system-out").text = _details(finding)


def format_report(report: Report) -> str:
    findings = report.findings
    failures = sum(1 for f in findings if f.severity >= Severity.WARNING)
    attributes = {"name": "shmlint", "tests": str(max(len(findings), 1)), "failures": str(failures), "errors": "0"}
    root = ET.Element("testsuites", attributes)
    suite = ET.SubElement(root, "testsuite", attributes)
    for finding in findings:
        _testcase(suite, finding)
    if not findings:
        ET.SubElement(suite, "testcase", classname="shmlint", name=f"no findings in {report.checked} file(s)")
    notes = [f"{posix_path(n.path)}: note: {n.message}" for n in report.notices]
    notes += [format_unrendered(r) for r in report.unrendered]
    notes += filter(None, [report.undecided_note()])
    if notes:  # each line begins with "shmlint:", never with a file name
        ET.SubElement(suite, "system-out").text = "\n".join(f"shmlint: {_text(note)}" for note in notes)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
