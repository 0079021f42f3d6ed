"""What ``shmlint validate`` takes from a manifest is bounded, and what it cannot reproduce it does not probe:
host IPC and the host's /dev/shm are "not probed", loader numbers and sizes have upper bounds,
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

    def probe_key(self, shm: ShmSpec) -> tuple[str, ...]:
        return (shm.provision.value, str(shm.tmpfs_bytes))

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
    specs = [limits.admit(hint, ShmSpec(Provision.IPC_SIZE, GIB - i * MIB)) for i in range(6)]  # six distinct probes
    assert all(isinstance(spec, ShmSpec) for spec in specs)
    each = limits.memory(hint, specs[0])  # type: ignore[arg-type]
    assert GIB // 2 < each <= GIB
    cases = [Case(f"f{i}.yaml", "w", None, False, (), hint, True, spec) for i, spec in enumerate(specs)]  # type: ignore[arg-type]
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
        path = os.path.join(backends_module.DISK_PARENT, folder)
        deadline = time.monotonic() + 10  # created 0o700, then opened to 1777: wait out the moment between
        while os.stat(path).st_mode & 0o7777 != 0o1777 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert os.stat(path).st_mode & 0o7777 == 0o1777
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


# -- (d) one probe per distinct (backend, /dev/shm, loader) ---------------------------------------------------------


def test_workloads_that_share_a_probe_run_it_once() -> None:
    """Same loader, same tmpfs size: however the manifest asked for it (default, --shm-size, a Memory emptyDir), the
    namespace backend mounts the same thing; every workload gets the shared outcome and the probe's number."""
    hint = DataLoaderHint(workers=2, batch_size=8, sample_bytes=MIB)
    same = [ShmSpec(Provision.DEFAULT), ShmSpec(Provision.IPC_SIZE, 64 * MIB), ShmSpec(Provision.MOUNT_TMPFS, 64 * MIB)]
    other = ShmSpec(Provision.IPC_SIZE, 128 * MIB)
    specs = [*same, other]
    cases = [Case(f"f{i}.yaml", "w", None, False, (), hint, True, s) for i, s in enumerate(specs)]  # type: ignore[arg-type]
    namespace = NamespaceBackend(Reaper())
    assert len({namespace.probe_key(spec) for spec in same}) == 1
    assert namespace.probe_key(other) != namespace.probe_key(same[0])

    class Keyed(RecordingBackend):
        probe_key = staticmethod(namespace.probe_key)

    backend = Keyed()
    rows = run_cases(cases, [backend], Reaper())
    assert backend.asked == [same[0], other]
    assert [row.probe for row in rows] == [1, 1, 1, 2]
    assert all(row.result == rows[0].result for row in rows)
    table = render(rows)
    assert table.count("| #1 ") == 3 and table.count("| #2 ") == 1, table


def test_a_flagged_workload_without_a_fix_gets_no_after_fix_probe() -> None:
    """An AWS Batch EKS job definition in CloudFormation: SHM001, and `shmlint fix` writes nothing there."""
    before, after = _cases(FIXTURES / "aws-eks" / "SHM001-cloudformation-eks.yaml")
    assert before.codes == ("SHM001",) and isinstance(before.shm, ShmSpec)
    assert after.fixed and after.shm == "no after-fix probe: `shmlint fix` has no fix for SHM001 here"
    backend = RecordingBackend()
    rows = run_cases([before, after], [backend], Reaper())
    assert backend.asked == [before.shm] and rows[1].verdict == "n/a" and rows[1].probe == 0


def test_podman_shares_a_probe_only_where_the_flags_are_the_same() -> None:
    """podman gets the flag the manifest implies: the default and --shm-size of 64 MiB write the same flag, a
    tmpfs mount of the same size another one."""
    podman = backends_module.PodmanBackend(Reaper(), ())
    default, sized = ShmSpec(Provision.DEFAULT), ShmSpec(Provision.IPC_SIZE, 64 * MIB)
    mounted = ShmSpec(Provision.MOUNT_TMPFS, 64 * MIB)
    assert podman.probe_key(default) == podman.probe_key(sized) == ("--shm-size=64m",)
    assert podman.probe_key(mounted) != podman.probe_key(sized)


def test_a_batch_eks_pod_in_json_is_probed_after_its_fix() -> None:
    """The JSON job definition's pod gets a Memory emptyDir at /dev/shm, which the after-fix probe mounts."""
    before, after = _cases(FIXTURES / "aws-eks" / "SHM001-batch-eks.json")
    assert before.codes == ("SHM001",) and after.fixed and not after.codes
    assert isinstance(after.shm, ShmSpec) and (after.shm.provision, after.shm.bytes) == (Provision.MOUNT_TMPFS, 8 * GIB)


def test_stale_disk_folders_of_killed_validate_runs_are_removed(tmp_path: Path, monkeypatch) -> None:
    """Found: ``kill -9`` of validate left a mode-1777 ``/var/tmp/shmlint-disk-shm-*`` folder forever."""
    from shmlint.validate import backends

    monkeypatch.setattr(backends, "DISK_PARENT", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    stale = tmp_path / f"{backends.DISK_PREFIX}{int(dead.stdout)}-abc"
    live = tmp_path / f"{backends.DISK_PREFIX}{os.getpid()}-def"
    other = tmp_path / "unrelated"
    for folder in (stale, live, other):
        folder.mkdir()
    with backends._disk_folder(backends.ShmSpec(backends.Provision.DISK)) as made:
        assert made is not None and Path(made).parent == tmp_path
    assert not stale.exists() and live.exists() and other.exists()
