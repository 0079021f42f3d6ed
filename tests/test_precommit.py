"""The real pre-commit, installing this repository as a hook repo, in a throwaway git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import FIXTURES, ROOT

FLAGGED = (FIXTURES / "examples" / "trainer-deployment.yaml").read_text()
CLEAN = (FIXTURES / "k8s" / "good-sized.yaml").read_text()


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.slow
def test_pre_commit_try_repo(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    git(work, "config", "user.email", "ci@example.com")
    git(work, "config", "user.name", "ci")
    (work / "flagged.yaml").write_text(FLAGGED)
    (work / "clean.yaml").write_text(CLEAN)
    git(work, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    def try_repo(*files: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "shmlint", "--files", *files]
        return subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)

    flagged = try_repo("flagged.yaml")
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "flagged.yaml:17:11: SHM001" in flagged.stdout
    clean = try_repo("clean.yaml")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
