"""The real pre-commit hands Terraform and Python files to shmlint (``types_or`` names ``terraform`` and
``python``), and an ordinary Python module or a ``.tfvars`` file passes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import FIXTURES, ROOT


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.slow
def test_pre_commit_passes_terraform_and_python(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    (work / "main.tf").write_text((FIXTURES / "terraform" / "SHM001-docker-container.tf").read_text())
    (work / "flow.py").write_text((FIXTURES / "python" / "SHM001-metaflow-batch.py").read_text())
    (work / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (work / "prod.tfvars").write_text('region = "eu-west-1"\n')
    git(work, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    def try_repo(*files: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "shmlint", "--files", *files]
        return subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)

    flagged = try_repo("main.tf", "flow.py")
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "main.tf:5:1: SHM001" in flagged.stdout
    assert "flow.py:9:6: SHM001" in flagged.stdout
    clean = try_repo("util.py", "prod.tfvars")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
