"""A fix never lowers the /dev/shm a workload already gets, from its own spec or from anything merged into it
(a KServe runtime, an anchor, ``extends``, an override): over every fixture and every file of the real-world
corpus, each GPU/torch workload's usable /dev/shm after ``shmlint fix`` (safe fixes) is at least what it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.effective import ShmState, effective_shm
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.model import Workload, WorkloadId
from shmlint.source import SourceText
from tests.support import FIXTURES, corpus_dir, corpus_missing, run_shmlint

UNLIMITED = float("inf")


def _files() -> list[Path]:
    files = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.suffix not in (".expected", ".fixed")]
    if not corpus_missing():
        files += [p for p in sorted(corpus_dir().rglob("*")) if p.is_file() and p.suffix not in (".tsv", ".md")]
    return files


def usable(workload: Workload) -> float | None:
    """Bytes of /dev/shm the container can use: a size up to the memory limit, the host's or a disk's as
    unlimited, none at all as 0; None when shmlint cannot know (shared, unresolved)."""
    effective = effective_shm(workload)
    limit = workload.memory_limit.bytes if workload.memory_limit and workload.memory_limit.bytes else UNLIMITED
    if effective.state in (ShmState.HOST, ShmState.DISK):
        return UNLIMITED
    if effective.state is ShmState.UNBOUNDED:
        return limit
    if effective.state in (ShmState.DEFAULT, ShmState.SIZED, ShmState.NONE) and effective.bytes is not None:
        return min(effective.bytes, limit)
    return None


def _usable_by_identity(workloads: tuple[Workload, ...]) -> dict[WorkloadId, float | None]:
    return {w.id: usable(w) for w in workloads if w.is_gpu_or_torch}


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_fix_never_lowers_dev_shm(path: Path, tmp_path: Path, engine: Engine) -> None:
    copy = tmp_path / path.name
    shutil.copyfile(path, copy)
    (candidate,) = discover([copy])
    checked = engine.check_candidate(candidate)
    if checked.source is None or not any(f.fixable for f in checked.findings):
        return
    fixed = fix_source(engine, checked.source, candidate.kind, candidate.path, checked=checked)
    after = engine.check_source(SourceText(checked.source.path, fixed.text), candidate.kind, candidate.path)
    before_usable, after_usable = _usable_by_identity(checked.workloads), _usable_by_identity(after.workloads)
    for identity, old in before_usable.items():
        new = after_usable.get(identity)
        if old is not None:
            assert new is not None and new >= old, f"{identity}: /dev/shm usable {old} -> {new}\n{fixed.text}"


def test_the_corpus_is_part_of_the_property(corpus: Path) -> None:
    assert sum(1 for p in _files() if corpus in p.parents) >= 80


_EXPANDED_OPTIONS = {
    ".github/workflows/ci.yml": (
        "on: push\njobs:\n  m:\n    runs-on: [self-hosted, gpu]\n    container:\n      image: pytorch/pytorch\n"
        "      options: --gpus all {expansion}\n    steps:\n      - run: python train.py --num-workers 8\n",
        "${{ matrix.opts }}",
    ),
    "Jenkinsfile": (
        "pipeline {\n  agent { docker { image 'pytorch/pytorch'; args \"--gpus all {expansion}\" } }\n"
        "  stages { stage('t') { steps { sh 'python train.py --num-workers 8' } } }\n}\n",
        "${env.DOCKER_OPTS}",
    ),
    ".devcontainer/devcontainer.json": (
        '{\n  "image": "pytorch/pytorch",\n  "runArgs": ["--gpus", "all", "{expansion}"],\n'
        '  "postCreateCommand": "python train.py --num-workers 8"\n}\n',
        "${localEnv:DOCKER_SHM_OPTS}",
    ),
}


@pytest.mark.parametrize("name", sorted(_EXPANDED_OPTIONS))
def test_no_size_is_added_after_an_expansion_that_may_hold_one(tmp_path: Path, name: str) -> None:
    """A CI job's or dev container's options with an expansion the file does not resolve (``${{ matrix.opts }}``
    may be ``--shm-size=32g``): docker keeps the last ``--shm-size``, so one written after it could lower it; the
    finding stays and names the expansion, no fix is written. The control: the same options without it are fixed."""
    template, expansion = _EXPANDED_OPTIONS[name]
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    for written, fixed in ((expansion, False), ("--env A=1", True)):
        path.write_text(template.replace("{expansion}", written))
        done = run_shmlint("fix", "--write", "--undecided", "show", ".", cwd=tmp_path)
        assert ("--shm-size=8g" in path.read_text()) is fixed, done.stdout


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("run.sh", "docker run --gpus all -m 100m img python train.py --num-workers 8\n"),
        (
            "pod.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      image: img\n"
            "      command: [python, train.py, --num-workers, '8']\n"
            "      resources: {limits: {nvidia.com/gpu: 1, memory: 100Mi}}\n",
        ),
    ],
)
def test_no_size_under_the_default_is_written_for_a_missing_shm(tmp_path: Path, name: str, text: str) -> None:
    """Half a 100 MiB memory limit is 50 MiB, under the 64 MiB the container already has: the finding says to raise
    the limit first, and no fix writes a size that would lower /dev/shm."""
    (tmp_path / name).write_text(text)
    done = run_shmlint("fix", "--write", ".", cwd=tmp_path)
    assert (tmp_path / name).read_text() == text, done.stdout
    assert "raise its memory limit first" in run_shmlint("check", ".", cwd=tmp_path).stdout


def test_a_zero_size_limit_is_no_limit(tmp_path: Path) -> None:
    """The kubelet bounds a Memory emptyDir by its ``sizeLimit`` only above zero: ``sizeLimit: 0`` is the pod's
    memory limit (here 32Gi), not a 0-byte /dev/shm to raise to 8 GiB (that safe fix would have lowered it)."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n"
        "      image: vllm/vllm-openai:latest\n      resources: {limits: {nvidia.com/gpu: 1, memory: 32Gi}}\n"
        "      volumeMounts: [{name: dshm, mountPath: /dev/shm}]\n"
        "  volumes:\n    - name: dshm\n      emptyDir: {medium: Memory, sizeLimit: 0}\n"
    )
    (tmp_path / "pod.yaml").write_text(pod)
    said = run_shmlint("check", ".", cwd=tmp_path).stdout
    assert "SHM005" not in said and "SHM003 [info]" in said and "sizeLimit 0: no limit" in said, said
    run_shmlint("fix", "--write", ".", cwd=tmp_path)
    assert (tmp_path / "pod.yaml").read_text() == pod


def test_a_small_configured_fix_size_is_written_as_configured(tmp_path: Path) -> None:
    """The under-64 MiB guard is for a size a memory limit caps: a configured ``fix-size: 32Mi`` with no limit is
    the user's choice, written (the finding said to raise a memory limit the container does not have)."""
    (tmp_path / ".shmlint.yaml").write_text("fix-size: 32Mi\nmin-shm-size: 16Mi\n")
    (tmp_path / "run.sh").write_text("docker run --gpus all img python train.py --num-workers 8\n")
    done = run_shmlint("check", ".", cwd=tmp_path)
    assert "memory limit" not in done.stdout, done.stdout
    run_shmlint("fix", "--write", ".", cwd=tmp_path)
    assert "--shm-size=32m" in (tmp_path / "run.sh").read_text()
