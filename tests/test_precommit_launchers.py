"""The real pre-commit hands Terraform and Python files to shmlint (``types_or`` names ``terraform`` and
``python``), and an ordinary Python module or a ``.tfvars`` file passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import FIXTURES, git, pre_commit_env, pre_commit_work_tree, try_repo


@pytest.mark.slow
def test_pre_commit_passes_terraform_and_python(tmp_path: Path) -> None:
    work = pre_commit_work_tree(tmp_path)
    (work / ".shmlint.yaml").write_text("undecided: strict\n")  # the fixtures' software is not all known
    (work / "main.tf").write_text((FIXTURES / "terraform" / "SHM001-docker-container.tf").read_text())
    (work / "flow.py").write_text((FIXTURES / "python" / "SHM001-metaflow-batch.py").read_text())
    (work / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (work / "prod.tfvars").write_text('region = "eu-west-1"\n')
    git(work, "add", ".")
    env = pre_commit_env(tmp_path)

    flagged = try_repo(work, env, "shmlint", "--files", "main.tf", "flow.py")
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "main.tf:5:1: SHM001" in flagged.stdout
    assert "flow.py:9:6: SHM001" in flagged.stdout
    clean = try_repo(work, env, "shmlint", "--files", "util.py", "prod.tfvars")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout
