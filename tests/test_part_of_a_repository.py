"""A run that checks a part of a repository (the files a pre-commit hook names, a folder below the top) gets the
answer ``check .`` gives for those files: an image a script runs is known by the build another file of the
repository writes. It was looked up only among the checked files' builds, so ``shmlint check run.sh`` (and the
hook on a commit that changed only run.sh) passed where ``check .`` failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.runner import check_paths
from shmlint.settings import Settings
from tests.support import git

RUN = "#!/bin/sh\ndocker run --gpus all acme/server\n"
BUILD = "#!/bin/sh\ndocker build -t acme/server -f docker/Dockerfile .\n"
DOCKERFILE = 'FROM nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\nCMD ["--model", "m"]\n'


def repository(tmp_path: Path, build_at: str = "scripts/build.sh") -> Path:
    top = tmp_path / "repo"
    for path, text in {"deploy/run.sh": RUN, build_at: BUILD, "docker/Dockerfile": DOCKERFILE}.items():
        (top / path).parent.mkdir(parents=True, exist_ok=True)
        (top / path).write_text(text, encoding="utf-8")
    git(top, "init", "-q")
    git(top, "add", ".")
    return top


def verdicts(settings: Settings, *paths: Path) -> list[tuple[str, int, str, str]]:
    report = check_paths(settings, list(paths), jobs=1)
    return [(Path(f.span.path).name, f.span.line, f.code, f.severity.label) for f in report.findings]


@pytest.mark.parametrize("part", ["deploy/run.sh", "deploy"], ids=["a file, as a hook names it", "a folder"])
def test_a_part_finds_the_build_another_file_writes(tmp_path: Path, part: str) -> None:
    top = repository(tmp_path)
    whole = verdicts(Settings(), top)
    assert whole == [("run.sh", 2, "SHM001", "error")]  # the control: the image is vLLM's, by its build
    assert verdicts(Settings(), top / part) == whole


def test_a_build_the_whole_run_excludes_is_not_the_parts_either(tmp_path: Path) -> None:
    """The repository is walked as the run walks it: what ``exclude`` leaves out of ``check .`` builds nothing."""
    top = repository(tmp_path, build_at="vendored/build.sh")
    settings = Settings(exclude=(*Settings().exclude, "vendored/"), pattern_root=str(top))
    assert verdicts(settings, top) == []  # undecided: counted in the summary, not listed
    assert verdicts(settings, top / "deploy" / "run.sh") == []
    assert verdicts(Settings(), top / "deploy" / "run.sh") == [("run.sh", 2, "SHM001", "error")]


def test_a_named_file_the_walk_leaves_out_keeps_its_own_build(tmp_path: Path) -> None:
    """A file named on the command line though ``.gitignore`` leaves it out of the walk (an untracked scratch
    script) still builds what it runs: its own builds count with the repository's (they were replaced by them)."""
    top = repository(tmp_path)
    (top / ".gitignore").write_text("scratch/\n", encoding="utf-8")
    (top / "scratch").mkdir()
    (top / "scratch" / "run.sh").write_text(BUILD + "docker run --gpus all acme/server\n", encoding="utf-8")
    (top / "scripts" / "build.sh").unlink()
    git(top, "add", "-A")
    assert verdicts(Settings(), top / "scratch" / "run.sh") == [("run.sh", 3, "SHM001", "error")]
    assert verdicts(Settings(), top / "scratch" / "run.sh", top / "deploy" / "run.sh") == [
        ("run.sh", 2, "SHM001", "error"),  # deploy/run.sh, by the build scratch/run.sh writes
        ("run.sh", 3, "SHM001", "error"),
    ]


def test_a_container_with_a_build_of_its_own_never_walks_the_repository(tmp_path: Path) -> None:
    """The repository is walked only for an image to look up: a compose service that names its build does not
    pay for it (nor does the editor, whose checks never walk: ``project_for(..., whole=False)``)."""
    from shmlint.project.index import ProjectFiles

    top = repository(tmp_path)
    (top / "svc").mkdir()
    (top / "svc" / "Dockerfile").write_text(DOCKERFILE, encoding="utf-8")
    (top / "svc" / "compose.yaml").write_text(
        "services:\n  a:\n    build: .\n    deploy: {resources: {reservations: {devices: [{capabilities: [gpu]}]}}}\n",
        encoding="utf-8",
    )
    asked: list[str] = []
    original = ProjectFiles.per_folder

    def spy(self, answer, folder):  # type: ignore[no-untyped-def]
        asked.append(getattr(answer, "__name__", ""))
        return original(self, answer, folder)

    ProjectFiles.per_folder = spy  # type: ignore[method-assign]
    try:
        assert verdicts(Settings(), top / "svc" / "compose.yaml") == [("compose.yaml", 2, "SHM001", "error")]
    finally:
        ProjectFiles.per_folder = original  # type: ignore[method-assign]
    assert "repository_builds" not in asked


def test_a_file_alone_in_a_folder_that_is_no_repository_reads_only_its_own_builds(tmp_path: Path) -> None:
    """Outside a git work tree there is no whole a part belongs to (the file's folder is only where it was found):
    a file checked alone is not walked around, as before, and the folder checked whole still finds the build."""
    top = repository(tmp_path)
    import shutil

    shutil.rmtree(top / ".git")
    assert verdicts(Settings(), top / "deploy" / "run.sh") == []  # undecided: counted, not listed
    assert verdicts(Settings(), top) == [("run.sh", 2, "SHM001", "error")]
