"""The command line as a user meets it: exit codes, options, configuration, suppressions, stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GPU_POD = (ROOT / "fixtures" / "k8s" / "SHM001-crlf.yaml").read_bytes().decode().replace("\r\n", "\n")
SMALL_SHM = (ROOT / "fixtures" / "k8s" / "SHM005-too-small.yaml").read_text()


def run(*args: str, cwd: Path | None = None, stdin: str | None = None, env: dict | None = None):
    environment = {**os.environ, **(env or {})}
    environment.pop("NO_COLOR", None) if env is None else None
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *args],
        cwd=cwd or ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def test_version_and_rules() -> None:
    assert run("--version").stdout.startswith("shmlint, version")
    rules = run("rules").stdout.splitlines()
    assert [line.split()[0] for line in rules] == [f"SHM{n:03d}" for n in range(13)]


def test_explain_by_code_and_slug() -> None:
    by_code, by_slug = run("explain", "SHM001"), run("explain", "missing-shm")
    assert by_code.returncode == 0 and by_code.stdout == by_slug.stdout
    assert "# SHM001 missing-shm" in by_code.stdout and "```" in by_code.stdout
    assert run("explain", "SHM999").returncode == 2


def test_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    flagged = run("check", str(tmp_path))
    assert flagged.returncode == 1
    assert f"{tmp_path / 'pod.yaml'}:7:5: SHM001 [error]" in flagged.stdout
    assert run("check", str(tmp_path), "--exit-zero").returncode == 0
    assert run("check", str(tmp_path), "--ignore", "missing-shm").returncode == 0
    assert run("check", str(tmp_path), "--select", "SHM999").returncode == 2
    assert run("check", str(tmp_path / "missing.yaml")).returncode == 2  # a usage error, before any work


def test_info_findings_pass_by_default(tmp_path: Path) -> None:
    pod = (ROOT / "fixtures" / "k8s" / "SHM012-nccl-disabled.yaml").read_text()
    (tmp_path / "pod.yaml").write_text(pod)
    assert run("check", str(tmp_path)).returncode == 0
    assert run("check", str(tmp_path), "--fail-on", "info").returncode == 1


def test_json_output(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    result = run("check", "--format", "json", str(tmp_path))
    document = json.loads(result.stdout)
    assert document["schema_version"] == 1
    (finding,) = document["findings"]
    assert finding["code"] == "SHM001" and finding["slug"] == "missing-shm" and finding["fixable"] is True
    assert (finding["line"], finding["column"]) == (7, 5) and finding["end_line"] >= finding["line"]


def test_colour_only_on_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    assert "\x1b[" not in run("check", str(tmp_path)).stdout


def test_stdin_uses_the_given_name() -> None:
    result = run("check", "-", "--stdin-filename", "deploy/pod.yaml", stdin=GPU_POD)
    assert result.returncode == 1 and result.stdout.startswith("deploy/pod.yaml:7:5: SHM001")
    markdown = "```sh\ndocker run --gpus all pytorch/pytorch python train.py\n```\n"
    result = run("check", "-", "--stdin-filename", "README.md", stdin=markdown)
    assert "README.md:2:1: SHM001" in result.stdout


def test_configuration_nearest_wins_and_errors_exit_2(tmp_path: Path) -> None:
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "pod.yaml").write_text(SMALL_SHM)
    assert run("check", str(tmp_path)).returncode == 1
    (tmp_path / ".shmlint.yaml").write_text("min-shm-size: 128Mi\n")
    assert run("check", str(tmp_path)).returncode == 0
    (tmp_path / "team" / "pyproject.toml").write_text('[tool.shmlint]\nmin-shm-size = "2Gi"\n')
    assert run("check", str(tmp_path / "team")).returncode == 1  # the nearer file wins
    (tmp_path / "team" / "pyproject.toml").write_text('[tool.shmlint]\nseverity = {SHM005 = "fatal"}\n')
    broken = run("check", str(tmp_path / "team"))
    assert broken.returncode == 2 and "severity.SHM005" in broken.stderr and "Traceback" not in broken.stderr
    described = run("config", str(tmp_path), "--config", str(tmp_path / ".shmlint.yaml"))
    assert 'min-shm-size: "128Mi"' in described.stdout and str(tmp_path / ".shmlint.yaml") in described.stdout


def test_per_file_ignores_and_extra_signals(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD.replace("nvidia.com/gpu", "example.com/accelerator"))
    assert run("check", str(tmp_path)).returncode == 0
    (tmp_path / ".shmlint.yaml").write_text("gpu-resources: [example.com/*]\n")
    assert run("check", str(tmp_path)).returncode == 1
    (tmp_path / ".shmlint.yaml").write_text(
        "gpu-resources: [example.com/*]\nper-file-ignores: {'pod.yaml': [SHM001]}\n"
    )
    assert run("check", str(tmp_path)).returncode == 0


@pytest.mark.parametrize(
    "text",
    [
        GPU_POD.replace("  - name: gpu", "  # shmlint: ignore[SHM001]\n  - name: gpu"),
        GPU_POD.replace("  - name: gpu", "  - name: gpu  # shmlint: ignore[missing-shm]"),
        "# shmlint: ignore-file\n" + GPU_POD,
    ],
    ids=["line-above", "same-line-slug", "ignore-file"],
)
def test_suppression_comments(tmp_path: Path, text: str) -> None:
    (tmp_path / "pod.yaml").write_text(text)
    result = run("check", str(tmp_path), "--report-unused-suppressions")
    assert result.returncode == 0, result.stdout


def test_unused_suppressions_are_reported(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(GPU_POD.replace("kind: Pod", "kind: Pod  # shmlint: ignore[SHM007]"))
    plain = run("check", str(tmp_path), "--ignore", "SHM001")
    assert plain.returncode == 0
    reported = run("check", str(tmp_path), "--ignore", "SHM001", "--report-unused-suppressions")
    assert reported.returncode == 1 and "pod.yaml:2:12: unused suppression" in reported.stdout


def test_markdown_block_suppression(tmp_path: Path) -> None:
    block = "```sh\ndocker run --gpus all \\\n  pytorch/pytorch python train.py\n```\n"
    (tmp_path / "README.md").write_text("# Train\n\n<!-- shmlint: ignore[SHM001] -->\n" + block + "\n" + block)
    result = run("check", str(tmp_path))
    assert result.stdout.count("SHM001") == 1 and "README.md:10:1: SHM001" in result.stdout


def test_annotation_on_the_pod_template_suppresses(tmp_path: Path) -> None:
    deployment = (ROOT / "fixtures" / "examples" / "trainer-deployment.yaml").read_text()
    annotated = deployment.replace(
        "      labels:\n        app: trainer\n    spec:",
        "      labels:\n        app: trainer\n      annotations:\n        shmlint.io/ignore: SHM001\n    spec:",
    )
    assert annotated != deployment
    (tmp_path / "d.yaml").write_text(annotated)
    assert run("check", str(tmp_path)).returncode == 0


def test_the_entry_point_pauses_the_collector_only_while_loading(monkeypatch) -> None:
    """``shmlint`` loads its command line with the cycle collector off (start-up speed), and runs with it on."""
    import gc

    from shmlint import __main__ as entry
    from shmlint import cli

    seen: list[str] = []
    real_disable, real_freeze = gc.disable, gc.freeze
    monkeypatch.setattr(gc, "disable", lambda: (seen.append("disable"), real_disable()))
    monkeypatch.setattr(gc, "freeze", lambda: (seen.append("freeze"), real_freeze()))
    monkeypatch.setattr(cli, "main", lambda: seen.append(f"run, collecting: {gc.isenabled()}"))
    try:
        entry.main()
    finally:
        gc.unfreeze()  # the test process keeps collecting what it built
    assert seen == ["disable", "freeze", "run, collecting: True"] and gc.isenabled()
