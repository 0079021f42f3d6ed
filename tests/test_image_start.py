"""An image's own start (``formats/dockerfile``): judged as ``docker run IMAGE`` in a repository that starts no
container anywhere (``project/start_marks``), reported only where its software's need is decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.project.start_marks import may_start
from shmlint.runner import check_paths
from shmlint.settings import Settings

_DOCKERFILE = "FROM pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime\nCOPY . /app\nWORKDIR /app\nCMD {}\n"
_LOADER = "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=8, num_workers=4)\n"


@pytest.mark.parametrize(
    ("kind", "text", "starts"),
    [
        (FileKind.MARKDOWN, "Run it:\n\n    docker run --gpus all acme/x\n", True),
        (FileKind.SHELL, "sudo podman container create acme/x\n", True),
        (FileKind.YAML, "services:\n  app:\n    build: .\n", True),
        (FileKind.YAML, "spec:\n  containers:\n    - image: acme/x\n", True),
        (FileKind.SHELL, "singularity exec --nv x.sif python t.py\n", True),
        (FileKind.SHELL, "srun --container-image=acme/x python t.py\n", True),
        (FileKind.MARKDOWN, "Build it with `docker build -t acme/x .` and push it.\n", False),
        (FileKind.YAML, "steps:\n  - uses: docker/build-push-action@v5\n", False),
        (FileKind.DEVCONTAINER, "{}", True),  # a dev container always starts one
    ],
)
def test_what_starts_a_container(kind: FileKind, text: str, starts: bool) -> None:
    assert may_start(kind, text.encode()) is starts


def _repository(tmp_path: Path, cmd: str, **files: str) -> Path:
    (tmp_path / "Dockerfile").write_text(_DOCKERFILE.format(cmd))
    (tmp_path / "train.py").write_text(_LOADER)
    for name, text in files.items():
        (tmp_path / name.replace("_", ".")).write_text(text)
    return tmp_path


def _said(folder: Path, *paths: Path) -> list[str]:
    report = check_paths(Settings(undecided="show"), list(paths) or [folder], jobs=1)
    return [f"{Path(f.span.path).name}:{f.span.line} {f.code} {f.severity.label}" for f in report.findings]


def test_an_images_own_start_is_judged_where_nothing_starts_a_container(tmp_path: Path) -> None:
    folder = _repository(tmp_path, '["python", "train.py"]')
    report = check_paths(Settings(undecided="show"), [folder], jobs=1)
    (finding,) = report.findings
    assert (finding.span.line, finding.code, finding.severity.label) == (4, "SHM001", "error")
    assert "train.py:2 DataLoader(num_workers=4)" in finding.message
    assert finding.fix is None and "cannot size /dev/shm" in finding.detail


@pytest.mark.parametrize(
    "start",
    [
        "README_md",  # a run written in the repository: judged there
        "compose_yaml",
    ],
)
def test_an_images_own_start_is_not_judged_where_the_repository_starts_containers(tmp_path: Path, start: str) -> None:
    text = {"README_md": "```\ndocker run --gpus all --shm-size=8g acme/x\n```\n", "compose_yaml": "services: {}\n"}
    folder = _repository(tmp_path, '["python", "train.py"]', **{start: text[start]})
    assert _said(folder) == []


@pytest.mark.parametrize("cmd", ['["bash"]', "/bin/bash", '["python", "serve.py"]', '["sleep", "infinity"]'])
def test_a_shell_or_an_undecided_start_says_nothing(tmp_path: Path, cmd: str) -> None:
    """A shell is where a person types; a start whose need is not decided is no container anyone is known to run,
    and is not even counted as undecided."""
    (tmp_path / "serve.py").write_text("import torch\nprint(torch.cuda.is_available())\n")
    folder = _repository(tmp_path, cmd)
    report = check_paths(Settings(), [folder], jobs=1)
    assert not report.findings and not any(result.undecided for result in report.files)


def test_a_hook_that_names_the_dockerfile_looks_for_starts_in_the_whole_repository(tmp_path: Path) -> None:
    """Same answer everywhere: a part of a git repository (what a pre-commit hook names) is judged as ``check .``
    at the top judges it."""
    folder = _repository(tmp_path, '["python", "train.py"]')
    (folder / ".git").mkdir()
    assert _said(folder, folder / "Dockerfile") == ["Dockerfile:4 SHM001 error"]
    (folder / "docs").mkdir()
    (folder / "docs" / "run.md").write_text("    docker run --gpus all --ipc=host acme/x\n")
    assert _said(folder, folder / "Dockerfile") == []  # the run is judged in its own file
    assert "Dockerfile" not in " ".join(_said(folder))
