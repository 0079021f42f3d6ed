"""Baselines: old findings stay accepted while files change around them, and every new one still fails."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from shmlint.baseline import (
    MAX_BASELINE_BYTES,
    BaselineError,
    filter_new,
    filter_report,
    load_baseline,
    write_baseline,
)
from shmlint.report.fingerprint import fingerprints
from shmlint.results import Report
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.severity import Severity
from tests.hostile import BIG, RUN_SCRIPT
from tests.support import ROOT, run_shmlint

#: one flagged file per format; the script's workloads are named after their line (``docker run (line 8)``)
FLAGGED = (
    "fixtures/k8s/SHM001-two-containers-and-list.yaml",
    "fixtures/shell/SHM001-missing-shm.sh",
    "fixtures/examples/compose.yaml",
)
GPU_RUN = "docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 train.py\n"


def check(root: Path) -> Report:
    """Check a folder with paths relative to it, as ``cd root && shmlint check .`` would."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        return check_paths(Settings(undecided="show"), [Path(".")])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in FLAGGED:
        target = tmp_path / "project" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, target)
    return tmp_path / "project"


def baseline_of(root: Path, tmp_path: Path) -> Path:
    path = tmp_path / "shmlint-baseline.json"
    write_baseline(path, check(root).findings)
    return path


def test_baseline_file_lists_every_finding(project: Path, tmp_path: Path) -> None:
    findings = check(project).findings
    document = json.loads(baseline_of(project, tmp_path).read_text(encoding="utf-8"))
    assert document["schema_version"] == 2
    assert [(e["code"], e["path"], e["message"]) for e in document["entries"]] == [
        (f.code, f.span.path, f.message) for f in findings
    ]
    assert [e["fingerprint"] for e in document["entries"]] == fingerprints(findings)


def test_only_new_findings_remain(project: Path, tmp_path: Path) -> None:
    baseline = load_baseline(baseline_of(project, tmp_path))
    assert len(check(project).findings) >= 4
    assert filter_new(check(project).findings, baseline) == []
    (project / "new.sh").write_text("#!/bin/sh\n" + GPU_RUN, encoding="utf-8")
    new = filter_new(check(project).findings, baseline)
    assert [(f.code, f.span.path) for f in new] == [("SHM001", "new.sh")]


def test_moved_lines_keep_findings_baselined(project: Path, tmp_path: Path) -> None:
    baseline = load_baseline(baseline_of(project, tmp_path))
    before = check(project).findings
    for name in FLAGGED:
        path = project / name
        path.write_bytes(b"\n\n" + path.read_bytes())
    after = check(project).findings
    assert [f.span.line for f in after] == [f.span.line + 2 for f in before]
    assert filter_new(after, baseline) == []


def test_duplicates_are_counted(tmp_path: Path) -> None:
    project = tmp_path / "dup"
    project.mkdir()
    script = project / "train.sh"
    script.write_text(GPU_RUN * 2, encoding="utf-8")
    baseline = load_baseline(baseline_of(project, tmp_path))
    script.write_text(GPU_RUN * 3, encoding="utf-8")
    findings = check(project).findings
    assert len(findings) == 3 and len(set(fingerprints(findings))) == 3
    assert [f.span.line for f in filter_new(findings, baseline)] == [3]
    script.write_text(GPU_RUN, encoding="utf-8")
    assert filter_new(check(project).findings, baseline) == []


def test_filter_report_keeps_only_new_findings(project: Path, tmp_path: Path) -> None:
    baseline = load_baseline(baseline_of(project, tmp_path))
    (project / "new.sh").write_text(GPU_RUN, encoding="utf-8")
    report = check(project)
    filtered = filter_report(report, baseline)
    assert [f.span.path for f in filtered.findings] == ["new.sh"]
    assert [r.path for r in filtered.files] == [r.path for r in report.files]
    assert filtered.failed(Severity.WARNING)
    assert not filter_report(check(project), load_baseline(baseline_of(project, tmp_path))).failed(Severity.INFO)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[]", "not a shmlint baseline"),
        (b'{"schema_version": 99, "entries": []}', "not a shmlint baseline"),
        (b'{"schema_version": 1, "entries": []}', "write it again with --write-baseline"),
        (b'{"schema_version": 2}', "'entries'"),
        (b'{"schema_version": 2, "entries": [{"fingerprint": "x"}]}', "entry 0"),
        (b'{"schema_version": 2, "entries": ["x"]}', "entry 0"),
    ],
)
def test_invalid_baseline_is_a_clear_error(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "baseline.json"
    path.write_bytes(content)
    with pytest.raises(BaselineError) as error:
        load_baseline(path)
    assert str(path) in str(error.value) and words in str(error.value)


def test_missing_baseline_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="cannot read baseline"):
        load_baseline(tmp_path / "absent.json")


def test_a_huge_number_in_the_baseline_is_a_baseline_error(tmp_path: Path) -> None:
    (tmp_path / "bl.json").write_text(f'{{"version": 2, "findings": [{{"count": {BIG}}}]}}', encoding="utf-8")
    (tmp_path / "a.sh").write_text("echo\n", encoding="utf-8")
    run = run_shmlint("check", "a.sh", "--baseline", "bl.json", cwd=tmp_path)
    assert run.returncode == 2 and "internal error" not in run.stderr, run.stderr
    assert "baseline holds a number too long" in run.stderr


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return path.name


def _sparse(path: Path) -> str:
    with path.open("wb") as handle:
        handle.truncate(MAX_BASELINE_BYTES + 1)  # no disk used: the size alone refuses it
    return path.name


def _deep(path: Path) -> str:
    path.write_text('{"schema_version": 2, "entries": ' + "[" * 200_000 + "]" * 200_000 + "}")
    return path.name


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (_fifo, "not a regular file"),
        (lambda _: "/dev/zero", "not a regular file"),
        (_sparse, f"above the limit of {MAX_BASELINE_BYTES:,} (for a baseline)"),
        (_deep, "nested too deeply"),
    ],
    ids=["fifo", "dev-zero", "too-large", "deep"],
)
def test_a_hostile_baseline_is_a_clear_error_at_once(tmp_path: Path, make: Callable[[Path], str], why: str) -> None:
    (tmp_path / "train.sh").write_text(RUN_SCRIPT)
    baseline = make(tmp_path / "baseline.json")
    run = run_shmlint("check", "train.sh", "--baseline", baseline, cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert "baseline" in run.stderr and why in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr


def test_a_baseline_still_accepts_what_it_recorded(tmp_path: Path) -> None:
    (tmp_path / "train.sh").write_text(RUN_SCRIPT)
    assert run_shmlint("check", "train.sh", "--write-baseline", "bl.json", cwd=tmp_path).returncode == 0
    assert run_shmlint("check", "train.sh", "--baseline", "bl.json", cwd=tmp_path).returncode == 0


def test_a_baseline_and_sarif_fingerprints_do_not_depend_on_how_the_path_is_spelled(tmp_path: Path) -> None:
    """Written for ``ex``, read for the absolute path and for ``.`` inside ``ex`` (a git work tree: paths are its
    top's): the same findings, and the same SARIF fingerprints, so code scanning sees no new alert."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "run.sh").write_text(
        "docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n"
    )
    run_shmlint("check", "--write-baseline", "bl.json", "ex", cwd=tmp_path)
    for cwd, path in ((tmp_path, str(tmp_path / "ex")), (tmp_path / "ex", ".")):
        done = run_shmlint("check", "--baseline", str(tmp_path / "bl.json"), path, cwd=cwd)
        assert done.returncode == 0, done.stdout
    prints = {
        json.dumps(
            json.loads(run_shmlint("check", "--format", "sarif", path, cwd=cwd).stdout)["runs"][0]["results"][0][
                "partialFingerprints"
            ]
        )
        for cwd, path in ((tmp_path, "ex"), (tmp_path, str(tmp_path / "ex")), (tmp_path / "ex", "."))
    }
    assert len(prints) == 1
