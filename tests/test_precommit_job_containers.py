"""The real pre-commit passes dev containers, GitLab runner configurations and Jenkinsfiles to the shmlint hook
(its ``types_or`` and ``files`` filters), and no other JSON or TOML file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import FIXTURES, git, pre_commit_env, pre_commit_work_tree, try_repo

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


@pytest.mark.slow
def test_pre_commit_passes_the_new_kinds_and_no_other_json_or_toml(tmp_path: Path) -> None:
    work = pre_commit_work_tree(tmp_path)
    (work / ".shmlint.yaml").write_text("undecided: strict\n")  # the fixtures' software is not all known
    for name, (fixture, _) in FILES.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(fixture.read_text(encoding="utf-8") if fixture else OTHER[name], encoding="utf-8")
    git(work, "add", ".")
    run = try_repo(work, pre_commit_env(tmp_path), "shmlint", "--all-files")
    assert run.returncode == 1, run.stdout + run.stderr
    for name, (_, reported) in FILES.items():
        assert (f"{name}:" in run.stdout) is reported, (name, run.stdout)
    assert "SHM000" not in run.stdout
