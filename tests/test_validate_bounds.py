"""What ``shmlint validate`` takes from a manifest is bounded, and what it cannot reproduce it does not probe
(issue 18 item 11): host IPC and the host's /dev/shm are "not probed", loader numbers and sizes have upper bounds,
the probes running at once stay within one memory limit, and a ``kill -9`` leaves no disk-backed /dev/shm folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.model import DataLoaderHint
from shmlint.settings import Settings
from shmlint.sizes import GIB, MIB
from shmlint.validate import backends as backends_module
from shmlint.validate.backends import NamespaceBackend, Provision, Reaper, RunOutput, ShmSpec, podman_shm_flags
from shmlint.validate.commands import validate
from shmlint.validate.harness import Case, MemoryBudget, ProbeLimits, cases_for, render, run_cases
from shmlint.validate.probe import Outcome, ProbeResult
from tests.support import FIXTURES, ROOT

HOST_IPC_FIXTURES = [
    FIXTURES / "runtime" / "k8s" / "good-pod-host-ipc.yaml",
    FIXTURES / "runtime" / "markdown" / "good-readme-host-ipc.md",
]
DISK_FIXTURE = FIXTURES / "runtime" / "k8s" / "good-pod-disk-backed.yaml"
HOST_SHM_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
  - name: main
    image: pytorch/pytorch
    resources: {limits: {nvidia.com/gpu: 1}}
    volumeMounts: [{name: dshm, mountPath: /dev/shm}]
  volumes:
  - name: dshm
    hostPath: {path: /dev/shm}
"""


def _compose(hint: str, shm_size: str = "1gb") -> str:
    return (
        "services:\n"
        "  trainer:\n"
        "    image: pytorch/pytorch\n"
        f"    shm_size: {shm_size}\n"
        "    labels:\n"
        f'      shmlint.io/dataloader: "{hint}"\n'
    )


def _cases(path: Path, limits: ProbeLimits | None = None) -> list[Case]:
    engine = Engine(Settings(undecided="show"))
    limits = limits or ProbeLimits()
    return [case for candidate in discover([path]) for case in cases_for(engine, candidate, limits)]


class RecordingBackend:
    """Runs nothing: records what it was asked to probe and how much memory the budget held meanwhile."""

    name = "recording"

    def __init__(self, budget: MemoryBudget | None = None, seconds: float = 0.0) -> None:
        self.asked: list[ShmSpec] = []
        self.held: list[int] = []
        self._budget, self._seconds = budget, seconds
        self._lock = threading.Lock()

    def check(self) -> None:
        return None

    def run(self, command: Sequence[str], shm: ShmSpec, limit: float) -> RunOutput:
        with self._lock:
            self.asked.append(shm)
            if self._budget is not None:
                self.held.append(self._budget.held)
        time.sleep(self._seconds)
        return RunOutput(0, ProbeResult(Outcome.OK).line(), "", self._seconds, False)


# -- (a) what cannot be reproduced is not probed ------------------------------------------------------------------


@pytest.mark.parametrize("path", HOST_IPC_FIXTURES, ids=lambda p: p.name)
def test_host_ipc_is_not_probed(path: Path) -> None:
    """The probe would run in this machine's IPC namespace and measure this machine's /dev/shm."""
    (case,) = _cases(path)
    assert isinstance(case.shm, str) and case.shm.startswith("not probed: host IPC"), case.shm
    backend = RecordingBackend()
    (row,) = run_cases([case], [backend], Reaper())
    assert backend.asked == [] and row.verdict == "n/a"
    assert "not probed: host IPC" in render([row])


def test_the_hosts_dev_shm_is_not_probed(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(HOST_SHM_POD)
    (case, *_) = _cases(tmp_path / "pod.yaml")
    assert isinstance(case.shm, str) and case.shm.startswith("not probed: the host's /dev/shm"), case.shm


def test_no_probe_is_ever_given_the_host() -> None:
    """The backends have no way left to hand a probe the host's IPC namespace or /dev/shm."""
    assert {p.value for p in Provision} == {"default", "shm-size", "tmpfs", "mount-tmpfs", "disk"}


# -- (b) bounds on what a manifest declares -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "bound"),
    [
        ("workers=1000 batch=1 sample=1 dtype=uint8", "workers=1,000 is above the probe's bound of 32"),
        ("workers=2 batch=1000000 sample=1 dtype=uint8", "batch=1,000,000 is above the probe's bound of 65,536"),
        ("workers=2 batch=1 sample=1 dtype=uint8 procs=100", "procs=100 is above the probe's bound of 8"),
        ("workers=2 batch=1 sample=1 dtype=uint8 prefetch=500", "prefetch=500 is above the probe's bound of 16"),
    ],
)
def test_loader_numbers_have_upper_bounds(tmp_path: Path, hint: str, bound: str) -> None:
    (tmp_path / "compose.yaml").write_text(_compose(hint))
    (case,) = _cases(tmp_path / "compose.yaml")
    assert case.shm == f"not probed: {bound}"


def test_a_loader_above_the_memory_limit_is_reported_not_run(tmp_path: Path) -> None:
    """1 GiB samples in batches of 64: a hint accepts it, a probe must not try it."""
    (tmp_path / "compose.yaml").write_text(_compose("workers=2 batch=64 sample=1073741824 dtype=uint8", "100g"))
    case, fixed = _cases(tmp_path / "compose.yaml")  # SHM005 (100g is too small), then as the fix leaves it
    assert fixed.fixed and fixed.shm == case.shm
    assert isinstance(case.shm, str)
    assert "more than the probes' memory limit of 2 GiB (--max-memory)" in case.shm, case.shm
    backend = RecordingBackend()
    (row,) = run_cases([case], [backend], Reaper())
    assert backend.asked == [] and row.verdict == "n/a"


def test_the_memory_limit_is_an_option(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(_compose("workers=2 batch=8 sample=1048576 dtype=uint8", "1gb"))
    (small,) = _cases(tmp_path / "compose.yaml", ProbeLimits(max_memory=16 * MIB))
    assert isinstance(small.shm, str) and "memory limit of 16 MiB" in small.shm
    (fits,) = _cases(tmp_path / "compose.yaml")
    assert isinstance(fits.shm, ShmSpec)
    result = CliRunner().invoke(validate, [str(tmp_path), "--max-memory", "nonsense"])
    assert result.exit_code == 2 and "'nonsense' is not a size" in result.output


def test_sizes_have_an_upper_bound(tmp_path: Path) -> None:
    """A petabyte /dev/shm is mounted at the memory limit: an admitted loader never fills that, same outcome."""
    (tmp_path / "compose.yaml").write_text(_compose("workers=2 batch=8 sample=1024 dtype=uint8", "1024t"))
    (case,) = _cases(tmp_path / "compose.yaml")
    assert isinstance(case.shm, ShmSpec) and case.shm.bytes == 1024**5
    assert case.shm.tmpfs_bytes == 2 * GIB
    assert case.shm.label == "1024 TiB, probed at 2 GiB"
    assert podman_shm_flags(case.shm, None) == ["--shm-size=2g"]
    argv = NamespaceBackend(Reaper()).argv(["true"], case.shm, 10, None)
    assert f"nosuid,nodev,mode=1777,size={2 * GIB}" in argv


def test_an_unsized_tmpfs_is_mounted_at_the_limit_not_at_half_this_machines_memory() -> None:
    limits = ProbeLimits(max_memory=GIB)
    admitted = limits.admit(DataLoaderHint(2, 8, 1024), ShmSpec(Provision.MOUNT_TMPFS, None))
    assert isinstance(admitted, ShmSpec) and admitted.tmpfs_bytes == GIB
    assert admitted.label == "tmpfs, no size, probed at 1 GiB"
    disk = limits.admit(DataLoaderHint(2, 8, 1024), ShmSpec(Provision.DISK))
    assert isinstance(disk, ShmSpec) and disk.tmpfs_bytes is None


def test_probes_running_at_once_stay_within_the_memory_limit() -> None:
    """Six probes of ~0.6 GiB each with four jobs: never more than the limit (1 GiB) held at once."""
    hint = DataLoaderHint(workers=4, batch_size=8, sample_bytes=8 * MIB)
    limits = ProbeLimits(max_memory=GIB)
    spec = limits.admit(hint, ShmSpec(Provision.IPC_SIZE, GIB))
    assert isinstance(spec, ShmSpec)
    each = limits.memory(hint, spec)
    assert GIB // 2 < each <= GIB
    cases = [Case(f"f{i}.yaml", "w", None, False, (), hint, True, spec) for i in range(6)]  # type: ignore[arg-type]
    budget = MemoryBudget(GIB)
    backend = RecordingBackend(budget, seconds=0.05)
    rows = run_cases(cases, [backend], Reaper(), jobs=4, limits=limits, budget=budget)
    assert len(backend.asked) == 6 and all(row.verdict == "yes" for row in rows)
    assert budget.peak == each and max(backend.held) == each and budget.held == 0


# -- (c) kill -9 leaves no disk-backed /dev/shm folder ------------------------------------------------------------


def _disk_folders(pid: int) -> list[str]:
    prefix = f"{backends_module.DISK_PREFIX}{pid}-"
    return [name for name in os.listdir(backends_module.DISK_PARENT) if name.startswith(prefix)]


@pytest.mark.validation
def test_kill_9_of_validate_leaves_no_disk_folder(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_bytes(DISK_FIXTURE.read_bytes())
    code = "from shmlint.validate.commands import validate; validate()"
    run = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path), "--backend", "namespace"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not _disk_folders(run.pid) and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        folders = _disk_folders(run.pid)
        assert folders, f"no disk folder appeared (exit {run.poll()}): {run.stderr.read() if run.poll() else ''}"
        (folder,) = folders
        mode = os.stat(os.path.join(backends_module.DISK_PARENT, folder)).st_mode & 0o7777
        assert mode == 0o1777
        os.kill(run.pid, signal.SIGKILL)
        run.wait(10)
        deadline = time.monotonic() + 20
        while _disk_folders(run.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _disk_folders(run.pid) == [], "kill -9 left the disk-backed /dev/shm folder behind"
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        assert run.stderr is not None
        run.stderr.close()
