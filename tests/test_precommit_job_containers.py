"""The real pre-commit passes dev containers, GitLab runner configurations and Jenkinsfiles to the shmlint hook
(its ``types_or`` and ``files`` filters), and no other JSON or TOML file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import FIXTURES, ROOT

#: changed files and whether the hook must report them (a JSON or TOML file of another tool must not reach it)
FILES = {
    ".devcontainer/devcontainer.json": (FIXTURES / "devcontainer" / "SHM001-gpus-no-shm.devcontainer.json", True),
    ".devcontainer/gpu/devcontainer.json": (
        FIXTURES / "devcontainer" / "SHM001-host-requirements.devcontainer.json",
        True,
    ),
    "runner/config.toml": (FIXTURES / "gitlab-runner" / "SHM001-gpus-no-shm.config.toml", True),
    "Jenkinsfile": (FIXTURES / "ci-job" / "SHM001-gpus-no-shm.jenkinsfile", True),
    "ci/Jenkinsfile.gpu": (FIXTURES / "ci-job" / "SHM001-agent-without-args.jenkinsfile", True),
    # JSONC and TOML that shmlint would misread as YAML if pre-commit passed them
    "tsconfig.json": (None, False),
    "pyproject.toml": (None, False),
}
OTHER = {
    "tsconfig.json": '{\n  // comments\n  "compilerOptions": {},\n}\n',
    "pyproject.toml": '[project]\nname = "x"\n',
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.slow
def test_pre_commit_passes_the_new_kinds_and_no_other_json_or_toml(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    for name, (fixture, _) in FILES.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fixture.read_text(encoding="utf-8") if fixture else OTHER[name], encoding="utf-8")
    git(work, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "shmlint", "--all-files"]
    run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    for name, (_, reported) in FILES.items():
        assert (f"{name}:" in run.stdout) is reported, (name, run.stdout)
    assert "SHM000" not in run.stdout
