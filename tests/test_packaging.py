"""What a user installs and what a maintainer reviews: the wheel's metadata, licence and typing marker, the version
in one place, the project URLs reaching the reports, and no binaries in the repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import shmlint
from tests.support import ROOT, run_shmlint

MAX_BINARY_BYTES = 100 * 1024


def pyproject() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def wheel_metadata(wheel: Path) -> tuple[set[str], object]:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        return names, Parser().parsestr(archive.read(metadata).decode("utf-8"))


def test_the_version_is_written_once() -> None:
    project = pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert pyproject()["tool"]["hatch"]["version"]["path"] == "shmlint/__init__.py"


@pytest.mark.slow
def test_wheel_metadata_licence_and_typing_marker(wheel: Path) -> None:
    names, metadata = wheel_metadata(wheel)
    assert metadata["Version"] == shmlint.__version__
    assert metadata["License-Expression"] == pyproject()["project"]["license"] == "Apache-2.0"
    assert "shmlint/py.typed" in names
    (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read(licence) == (ROOT / "LICENSE").read_bytes()
    urls = dict(entry.split(", ", 1) for entry in metadata.get_all("Project-URL"))
    assert urls == pyproject()["project"]["urls"]


def test_licence_file_is_the_apache_2_text() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert (
        "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text and "END OF TERMS AND CONDITIONS" in text
    )


@pytest.mark.slow
def test_installed_reports_link_the_project_urls(wheel: Path, tmp_path: Path) -> None:
    """The SARIF report of an installed shmlint names the homepage and each rule's page from [project.urls]."""
    installed = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)
    done = run_shmlint(
        "check", "--format", "sarif", "--exit-zero", "fixtures/examples", cwd=ROOT, env={"PYTHONPATH": str(installed)}
    )
    assert done.returncode == 0, done.stderr
    driver = json.loads(done.stdout)["runs"][0]["tool"]["driver"]
    urls = pyproject()["project"]["urls"]
    assert driver["informationUri"] == urls["Homepage"]
    assert {rule["helpUri"] for rule in driver["rules"]} == {f"{urls['Rules']}/{r['id']}.md" for r in driver["rules"]}
    for rule in driver["rules"]:
        assert (ROOT / "docs" / "rules" / f"{rule['id']}.md").is_file()  # the page the link names exists


def test_no_binary_over_100_kb_is_tracked() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing is tracked")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    ).stdout.split(b"\0")
    too_big = []
    for name in filter(None, listed):
        path = ROOT / os.fsdecode(name)
        if path.is_file() and path.stat().st_size > MAX_BINARY_BYTES and b"\0" in path.read_bytes()[:8192]:
            too_big.append(f"{path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
    assert not too_big, too_big


def test_the_workflow_runs_the_suite_where_the_readme_says_shmlint_runs() -> None:
    """Python 3.11 or later on Linux, macOS and Windows (README, Supported platforms): the GitHub Actions workflow
    runs the suite on each supported Python for each system, installed with the README's own command."""
    import yaml

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text(encoding="utf-8"))
    test = workflow["jobs"]["test"]
    matrix = test["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-latest", "macos-latest", "windows-latest"}
    assert matrix["python"] == ["3.11", "3.12", "3.13"]
    assert pyproject()["project"]["requires-python"] == f">={matrix['python'][0]}"
    install, suite = (
        (ROOT / "README.md").read_text(encoding="utf-8").split("```sh\n", 1)[1].splitlines()[1].split(" && ")
    )
    runs = [step.get("run", "") for step in test["steps"]]
    assert install.replace("python3", "python") in runs
    assert suite.replace("python3", "python") in runs
