"""The ``undecided`` setting: a finding about an accelerator whose software's /dev/shm need is not known (the
``unknown`` tier) is a guess, so by default it never fails the gate; it is counted in every format's summary,
listed with ``--undecided=show`` (info, and hints in the editor), and a warning with ``undecided: strict``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shmlint.server.analysis import Analyzer

UNKNOWN = "docker run --gpus all registry.example/team/app:1 serve\n"  # an accelerator, software not known
#: eight torchrun processes: NCCL between them is evidence (torchrun with its default, one process, is not)
NEEDS = "docker run --gpus all registry.example/team/app:1 torchrun --nproc_per_node=8 train.py\n"


def _tree(tmp_path: Path, text: str = UNKNOWN) -> Path:
    (tmp_path / "run.sh").write_text(text)
    return tmp_path


def test_by_default_an_undecided_finding_is_counted_not_listed_and_never_fails(tmp_path: Path, invoke) -> None:
    result = invoke("check", str(_tree(tmp_path)))
    assert result.exit_code == 0, result.stdout
    assert "SHM001" not in result.stdout
    assert "1 finding(s) not listed: their software's /dev/shm need is undecided (`--undecided=show`)." in result.stdout
    assert "--undecided=show" in result.stdout


def test_evidence_still_fails_the_gate_by_default(tmp_path: Path, invoke) -> None:
    result = invoke("check", str(_tree(tmp_path, NEEDS)))
    assert result.exit_code == 1 and "SHM001 [error]" in result.stdout
    assert "undecided" not in result.stdout


def test_show_lists_them_as_info_and_still_passes(tmp_path: Path, invoke) -> None:
    result = invoke("check", "--undecided=show", str(_tree(tmp_path)))
    assert result.exit_code == 0 and "run.sh:1:1: SHM001 [info]" in result.stdout


@pytest.mark.parametrize("how", ["option", "configuration"])
def test_strict_makes_them_warnings_that_fail(tmp_path: Path, invoke, how: str) -> None:
    _tree(tmp_path)
    if how == "configuration":
        (tmp_path / ".shmlint.yaml").write_text("undecided: strict\n")
    options = ["--undecided=strict"] if how == "option" else []
    result = invoke("check", *options, str(tmp_path))
    assert result.exit_code == 1 and "SHM001 [warning]" in result.stdout


def test_a_bad_value_is_a_configuration_error(tmp_path: Path, invoke) -> None:
    _tree(tmp_path)
    (tmp_path / ".shmlint.yaml").write_text("undecided: sometimes\n")
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 2 and "undecided" in result.stderr


def test_config_shows_the_setting_and_its_origin(tmp_path: Path, invoke) -> None:
    (tmp_path / ".shmlint.yaml").write_text("undecided: show\n")
    described = invoke("config", str(tmp_path)).stdout
    assert f'undecided: "show"  # from {tmp_path / ".shmlint.yaml"}' in described


@pytest.mark.parametrize(
    ("output_format", "says"),
    [
        ("json", lambda text: json.loads(text)["summary"]["undecided"] == 1 and not json.loads(text)["findings"]),
        ("sarif", lambda text: "undecided" in json.dumps(json.loads(text)["runs"][0]["invocations"])),
        ("github", lambda text: text.startswith("::notice title=shmlint::1 finding(s)") and "::warning" not in text),
        ("junit", lambda text: "need is undecided" in text and 'failures="0"' in text),
    ],
)
def test_every_format_says_how_many_were_undecided(tmp_path: Path, invoke, output_format: str, says) -> None:
    result = invoke("check", "--format", output_format, str(_tree(tmp_path)))
    assert result.exit_code == 0 and says(result.stdout), result.stdout


def test_fix_leaves_undecided_workloads_alone_unless_asked(tmp_path: Path, invoke) -> None:
    _tree(tmp_path)
    assert invoke("fix", "--write", str(tmp_path)).exit_code == 0
    assert (tmp_path / "run.sh").read_text() == UNKNOWN
    assert invoke("fix", "--write", "--undecided=show", str(tmp_path)).exit_code == 0
    assert "--shm-size=8g" in (tmp_path / "run.sh").read_text()


def test_the_editor_shows_them_as_hints(tmp_path: Path) -> None:
    from lsprotocol import types

    from shmlint.server.protocol import View

    checked = Analyzer().check(tmp_path / "run.sh", UNKNOWN)
    (finding,) = checked.result.findings
    assert finding.undecided
    (diagnostic,) = View("file:///run.sh", 1, checked, "utf-16").diagnostics()
    assert diagnostic.severity is types.DiagnosticSeverity.Hint
