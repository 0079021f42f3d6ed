"""The real pre-commit, installing this repository as a hook repo, in a throwaway git repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import FIXTURES, git, pre_commit_env, pre_commit_work_tree, try_repo

FLAGGED = (FIXTURES / "examples" / "trainer-deployment.yaml").read_text()
CLEAN = (FIXTURES / "k8s" / "good-sized.yaml").read_text()


@pytest.mark.slow
def test_pre_commit_try_repo(tmp_path: Path) -> None:
    work = pre_commit_work_tree(tmp_path)
    (work / "flagged.yaml").write_text(FLAGGED)
    (work / "clean.yaml").write_text(CLEAN)
    git(work, "add", ".")
    env = pre_commit_env(tmp_path)

    flagged = try_repo(work, env, "shmlint", "--files", "flagged.yaml")
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "flagged.yaml:17:11: SHM001" in flagged.stdout
    clean = try_repo(work, env, "shmlint", "--files", "clean.yaml")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
