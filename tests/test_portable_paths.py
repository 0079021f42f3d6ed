"""Machine-readable reports name files the same way on every system: the same tree checked on Windows (backslashes,
drive letters, UNC shares) gives the same JSON, SARIF, GitHub, GitLab and JUnit output and the same baseline
fingerprints as on Linux. Windows is simulated by giving the reporters Windows path rules (``PureWindowsPath``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath
from urllib.parse import unquote, urlsplit

import jsonschema
import pytest

from shmlint.baseline import write_baseline
from shmlint.model import Finding, Notice
from shmlint.report import common, github, gitlab, junit, sarif
from shmlint.report import json as json_report
from shmlint.report.fingerprint import fingerprints
from shmlint.results import FileResult, Report
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.source import Span
from tests.support import ROOT

SARIF_SCHEMA = Path("/work/shared/schemas/sarif-schema-2.1.0.json")
FOLDERS = ("fixtures/k8s", "fixtures/shell", "fixtures/compose", "fixtures/markdown", "fixtures/make")
REPORTERS = {
    "json": json_report.format_report,
    "sarif": sarif.format_report,
    "github": github.format_report,
    "gitlab": gitlab.format_report,
}
REPORTERS["junit"] = junit.format_report


@pytest.fixture(scope="module")
def linux_report() -> Iterator[Report]:
    """The fixtures checked as ``shmlint check fixtures/...`` from the repository root, with one notice added."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        report = check_paths(Settings(undecided="show"), [Path(p) for p in FOLDERS])
    notice = FileResult("charts/train", notices=(Notice("charts/train", "Helm chart: not checked"),))
    yield Report((*report.files, notice))


def as_on_windows(report: Report) -> Report:
    """The same findings as Windows reports them: every path with backslashes."""

    def windows(path: str) -> str:
        return path.replace("/", "\\")

    def finding(f: Finding) -> Finding:
        return f._replace(span=f.span._replace(path=windows(f.span.path)))

    return Report(
        tuple(
            FileResult(
                windows(r.path),
                tuple(finding(f) for f in r.findings),
                tuple(Notice(windows(n.path), n.message) for n in r.notices),
            )
            for r in report.files
        )
    )


@pytest.fixture
def windows_paths(monkeypatch) -> None:
    monkeypatch.setattr(common, "PurePath", PureWindowsPath)


def test_the_fixtures_have_paths_with_folders(linux_report: Report) -> None:
    assert len(linux_report.findings) > 20
    assert all("/" in f.span.path for f in linux_report.findings)
    assert {f.span.path.split("/")[1] for f in linux_report.findings} >= {"k8s", "shell", "compose", "markdown"}


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_windows_paths_render_as_on_linux(linux_report: Report, windows_paths, name: str) -> None:
    windows_report = as_on_windows(linux_report)
    assert any("\\" in f.span.path for f in windows_report.findings)
    on_windows = REPORTERS[name](windows_report)
    assert "\\\\" not in on_windows and "%5C" not in on_windows
    assert on_windows == REPORTERS[name](linux_report)


def test_without_windows_path_rules_the_backslashes_would_show(linux_report: Report) -> None:
    """The comparison above is not vacuous: read with POSIX rules, the Windows paths differ."""
    assert json_report.format_report(as_on_windows(linux_report)) != json_report.format_report(linux_report)


def test_fingerprints_and_baselines_are_the_same_on_every_system(
    linux_report: Report, windows_paths, tmp_path: Path
) -> None:
    windows_report = as_on_windows(linux_report)
    assert fingerprints(windows_report.findings) == fingerprints(linux_report.findings)
    write_baseline(tmp_path / "linux.json", linux_report.findings)
    write_baseline(tmp_path / "windows.json", windows_report.findings)
    assert (tmp_path / "windows.json").read_bytes() == (tmp_path / "linux.json").read_bytes()


def one_finding(path: str) -> Report:
    finding = Finding("SHM001", "missing-shm", Severity.ERROR, "m", Span(path, 3, 5, 3, 9, 20, 24))
    return Report((FileResult(path, (finding,)),))


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        (r"C:\work\repo\k8s\pod a.yaml", "file:///C:/work/repo/k8s/pod%20a.yaml"),
        ("D:/mixed\\slashes/pod.yaml", "file:///D:/mixed/slashes/pod.yaml"),
        (r"\\fileserver\share\ml\pod.yaml", "file://fileserver/share/ml/pod.yaml"),
        (r"\\fileserver\share\dir with space\pod#1.yaml", "file://fileserver/share/dir%20with%20space/pod%231.yaml"),
    ],
)
def test_sarif_uris_for_drive_letters_and_unc_shares(windows_paths, path: str, uri: str) -> None:
    document = json.loads(sarif.format_report(one_finding(path)))
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(document)
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": uri}
    parts = urlsplit(uri)
    assert parts.scheme == "file" and not parts.query and not parts.fragment
    assert PureWindowsPath(unquote(parts.path.lstrip("/") if not parts.netloc else uri[5:])) == PureWindowsPath(path)


def test_relative_windows_paths_stay_relative_to_the_checkout(windows_paths) -> None:
    document = json.loads(sarif.format_report(one_finding(r"k8s\train\pod 1.yaml")))
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "k8s/train/pod%201.yaml", "uriBaseId": "%SRCROOT%"}


def test_posix_absolute_paths_are_file_uris() -> None:
    assert common.uri_reference("/srv/repo/pod a.yaml") == ("file:///srv/repo/pod%20a.yaml", False)
    assert common.uri_reference("k8s/pod.yaml") == ("k8s/pod.yaml", True)
