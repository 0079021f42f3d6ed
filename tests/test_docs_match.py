"""What the documentation promises and the tool does, held together: the published JSON report schema, every
configuration key in ``shmlint config``, the dependency list of the platform section, shell completion, and a
CHANGELOG that names what landed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from shmlint.report import json as json_report
from shmlint.results import FileResult, RenderRecord, RenderStatus, Report
from shmlint.severity import Severity
from tests.support import FIXTURES, ROOT

SCHEMA_PATH = ROOT / "shmlint" / "report" / "report.schema.json"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.mark.parametrize("undecided", ["summary", "show"])
def test_real_json_reports_match_the_published_schema(invoke, undecided: str) -> None:
    """Every fixture folder checked, as the command line prints it (findings, notices, undecided counts)."""
    done = invoke(
        "check", "--format", "json", "--exit-zero", "--render", "never", "--undecided", undecided, str(FIXTURES)
    )
    document = json.loads(done.stdout)
    assert document["findings"] and document["notices"]  # the schema is tried on what it describes
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator().iter_errors(document)]
    assert not errors, errors[:5]


def test_rendering_records_match_the_published_schema() -> None:
    rendered = RenderRecord("k/prod", "kustomization", "kubectl kustomize", RenderStatus.RENDERED, "v5.5.0")
    skipped = RenderRecord(
        "charts/x", "Helm chart", "helm template", RenderStatus.NOT_RENDERED, "", "helm is not on PATH", Severity.ERROR
    )
    report = Report((FileResult("k/prod", render=rendered), FileResult("charts/x", render=skipped)))
    document = json.loads(json_report.format_report(report))
    assert len(document["rendering"]["units"]) == 2
    validator().validate(document)


def test_the_schema_refuses_what_the_format_never_writes() -> None:
    done = json.loads(json_report.format_report(Report(())))
    validator().validate(done)
    broken = {**done, "findings": [{"code": "SHM1", "severity": "fatal"}]}
    assert len(list(validator().iter_errors(broken))) >= 2
    assert list(validator().iter_errors({**done, "schema_version": 2}))


def test_the_readme_links_the_schema_and_its_version() -> None:
    section = README[README.index("## JSON output") :]
    assert "shmlint/report/report.schema.json" in section
    assert json.loads(SCHEMA_PATH.read_text())["properties"]["schema_version"]["const"] == json_report.SCHEMA_VERSION


def test_the_readmes_json_sample_is_valid_against_the_schema() -> None:
    """The sample a reader copies from (its summary once lacked keys the schema requires)."""
    section = README[README.index("## JSON output") :]
    sample = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert sample is not None
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator().iter_errors(json.loads(sample.group(1)))]
    assert not errors, errors


def test_shmlint_config_lists_every_key_with_its_origin(invoke, tmp_path: Path) -> None:
    schema = json.loads((ROOT / "shmlint" / "config_schema.json").read_text(encoding="utf-8"))
    (tmp_path / ".shmlint.yaml").write_text('shm-free-commands: ["^probe"]\nextend-exclude: ["vendor/"]\n')
    shown = invoke("config", str(tmp_path)).stdout
    keys = {line.split(":", 1)[0]: line for line in shown.splitlines() if not line.startswith("#")}
    assert set(keys) == set(schema["properties"])
    assert all(" # from " in line for line in keys.values())
    config = str(tmp_path / ".shmlint.yaml")
    assert keys["shm-free-commands"] == f'shm-free-commands: ["^probe"]  # from {config}'
    assert keys["extend-exclude"] == f'extend-exclude: ["vendor/"]  # from {config}'
    assert keys["exclude"].endswith("# from default") and '"vendor/"' not in keys["exclude"]


def test_the_readme_documents_every_configuration_key() -> None:
    schema = json.loads((ROOT / "shmlint" / "config_schema.json").read_text(encoding="utf-8"))
    section = README[README.index("## Configuration") :]
    example = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert example is not None
    written = {line.split(":", 1)[0] for line in example.group(1).splitlines() if re.match(r"[a-z-]+:", line)}
    assert written == set(schema["properties"])


def test_the_platform_section_names_every_runtime_dependency() -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        required = tomllib.load(handle)["project"]["dependencies"]
    names = {re.split(r"[<>=!\[ ;]", requirement, maxsplit=1)[0].lower() for requirement in required}
    section = README[README.index("## Supported platforms") :]
    listed = re.search(r"its dependencies \(([^)]*)\)", section)
    assert listed is not None
    assert {name.lower() for name in re.split(r",\s*|\s+and\s+", listed.group(1).strip())} == names


def _completion(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The console script as installed (prog name ``shmlint``), with click's completion variables."""
    script = "import sys; sys.argv = ['shmlint']; from shmlint.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_shell_completion_is_documented_and_works() -> None:
    for shell in ("bash", "zsh", "fish"):
        assert f"_SHMLINT_COMPLETE={shell}_source shmlint" in README, shell
    source = _completion({"_SHMLINT_COMPLETE": "bash_source"})
    assert source.returncode == 0 and "_shmlint_completion" in source.stdout, source.stderr
    words = _completion({"_SHMLINT_COMPLETE": "bash_complete", "COMP_WORDS": "shmlint ch", "COMP_CWORD": "1"})
    assert "plain,check" in words.stdout.splitlines(), words.stdout
    options = _completion(
        {"_SHMLINT_COMPLETE": "bash_complete", "COMP_WORDS": "shmlint check --force-e", "COMP_CWORD": "2"}
    )
    assert "plain,--force-exclude" in options.stdout.splitlines(), options.stdout


def test_the_changelog_names_what_landed_since_the_last_release() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    unreleased = text[text.index("## Unreleased") : text.index("\n## ", text.index("## Unreleased") + 1)]
    for words in ("undecided", "shmlint policy", "--force-exclude", "SHM013", "Terraform", "Quadlet", "Azure ML"):
        assert words in unreleased, words
