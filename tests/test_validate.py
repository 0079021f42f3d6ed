"""The validation suite: shmlint's findings against a real torch DataLoader in the /dev/shm each workload gets.

Every runtime fixture runs on the namespace backend, one fixture per format also in a podman container; each test
probes its own fixture, so pytest-xdist spreads them over the cores. Tests that run the real thing are marked
``validation``. A backend that cannot run fails the tests that need it, unless SHMLINT_VALIDATE_BACKENDS leaves it
out (an explicit choice, reported as a skip with that reason). Where podman is not installed its tests skip with that
reason (a test never installs anything; ``.ci/run`` installs podman before the suite).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.sizes import DEFAULT_SHM_BYTES, MIB
from shmlint.source import SourceText
from shmlint.validate import backends as backends_module
from shmlint.validate.backends import (
    BackendUnavailable,
    NamespaceBackend,
    PodmanBackend,
    Provision,
    Reaper,
    ShmSpec,
    backends_from_env,
    make_backend,
    podman_shm_flags,
)
from shmlint.validate.commands import validate
from shmlint.validate.harness import (
    DEFAULT_PROFILE,
    HEADER,
    Case,
    Row,
    cases_for,
    render,
    require_torch,
    run_cases,
    shm_spec,
)
from shmlint.validate.probe import SIGNATURES, Outcome, ProbeResult, Profile, classify, interpret
from tests.support import FIXTURES as FIXTURES_ROOT
from tests.support import ROOT

RUNTIME = FIXTURES_ROOT / "runtime"
FIXTURES = sorted(p for p in RUNTIME.rglob("*") if p.is_file())
#: one fixture per format for the podman backend (test_backend_gives_the_exact_shm covers every flag cheaply)
PODMAN_FIXTURES = [
    RUNTIME / "k8s" / "SHM005-deployment-too-small.yaml",  # --mount type=tmpfs, raised by the fix
    RUNTIME / "compose" / "SHM009-build-only.compose.yaml",  # the 64 MiB default, then shm_size: --shm-size
    RUNTIME / "shell" / "good-run-shm-size.sh",  # --shm-size
    RUNTIME / "markdown" / "SHM001-readme.md",  # the 64 MiB default, then --shm-size
]
_EXPECT = re.compile(r"expect:\s*(ok|shm-error|not-probed)((?:\s+SHM\d{3})*)")


def _rel(path: Path) -> str:
    return path.relative_to(RUNTIME).as_posix()


def _backend(name: str, reaper: Reaper):
    """The backend, checked; FAILS (never skips) when it cannot run, unless the user turned it off."""
    enabled = backends_from_env(("namespace", "podman"))
    if name not in enabled:
        pytest.skip(f"{name} backend turned off by {backends_module.BACKENDS_ENV}={','.join(enabled)}")
    if name == "podman" and shutil.which("podman") is None:
        pytest.skip(
            "podman is not installed (`.ci/run` installs it; or set "
            f"{backends_module.BACKENDS_ENV}=namespace to turn the podman backend off)"
        )
    try:
        require_torch()
        backend = make_backend(name, reaper)
        backend.check()
    except BackendUnavailable as exc:
        pytest.fail(f"{name} backend cannot run: {exc}", pytrace=False)
    return backend


@pytest.fixture(scope="module")
def reaper():
    reaper = Reaper()
    yield reaper
    reaper.kill_all()


@pytest.fixture(scope="module")
def namespace(reaper):
    return _backend("namespace", reaper)


@pytest.fixture(scope="module")
def podman(reaper):
    return _backend("podman", reaper)


def _cases(engine: Engine, paths: list[Path]) -> list[Case]:
    return [case for path in paths for candidate in discover([path]) for case in cases_for(engine, candidate)]


# -- the fixtures themselves ----------------------------------------------------------------------------------


def test_fixtures_cover_every_format_and_outcome(engine) -> None:
    cases = [c for c in _cases(engine, FIXTURES) if not c.fixed]
    kinds = {Path(c.path).parent.name for c in cases}
    assert kinds == {"k8s", "compose", "shell", "markdown"}
    names = " ".join(c.workload for c in cases)
    assert all(kind in names for kind in ("Pod/", "Deployment/", "PyTorchJob/"))
    flagged = {code for c in cases for code in c.codes}
    assert {"SHM001", "SHM002", "SHM005", "SHM009"} <= flagged
    fine = {c.shm.provision for c in cases if not c.flagged and isinstance(c.shm, ShmSpec)}
    assert {Provision.MOUNT_TMPFS, Provision.IPC_SIZE, Provision.DISK} <= fine
    host = [c for c in cases if isinstance(c.shm, str)]  # the host's IPC namespace: not reproducible here
    assert {Path(c.path).name for c in host} == {"good-pod-host-ipc.yaml", "good-readme-host-ipc.md"}
    sized_by = {
        Path(c.path).parent.name
        for c in cases
        if not c.flagged and isinstance(c.shm, ShmSpec) and c.shm.provision is Provision.IPC_SIZE
    }
    assert sized_by == {"compose", "shell"}  # shm_size and --shm-size
    assert all(c.declared for c in cases), "every runtime fixture declares its DataLoader profile"


@pytest.mark.validation
@pytest.mark.parametrize("path", FIXTURES, ids=_rel)
def test_namespace_probe_agrees_with_findings(path: Path, engine, namespace, reaper) -> None:
    rows = run_cases(_cases(engine, [path]), [namespace], reaper, jobs=2)
    written = [row for row in rows if not row.case.fixed]
    assert len(written) == 1, "one torch workload per runtime fixture"
    (row,) = written
    outcome, codes = _expected(path)
    assert set(codes) <= set(row.case.codes), row.case.codes
    if outcome == "not-probed":
        assert row.result is None and row.verdict == "n/a", render(rows)
        return
    assert row.result is not None and row.result.outcome.value == outcome, render(rows)
    assert row.verdict == "yes", render(rows)
    fixed = [r for r in rows if r.case.fixed]
    assert len(fixed) == (1 if row.case.flagged else 0)
    for after in fixed:
        assert after.result.outcome is Outcome.OK and not after.case.flagged, render([after])


def _expected(path: Path) -> tuple[str, list[str]]:
    match = _EXPECT.search(path.read_text())
    assert match, f"{path} has no '# expect: ok|shm-error|not-probed [CODES]' line"
    return match.group(1), match.group(2).split()


@pytest.mark.validation
@pytest.mark.parametrize("path", PODMAN_FIXTURES, ids=_rel)
def test_podman_probe_agrees_with_findings(path: Path, engine, podman, reaper) -> None:
    rows = run_cases(_cases(engine, [path]), [podman], reaper, jobs=2)
    assert rows and all(row.verdict == "yes" for row in rows), render(rows)
    outcome, _ = _expected(path)
    assert rows[0].result.outcome.value == outcome, render(rows)
    assert all(row.result.outcome is Outcome.OK for row in rows if row.case.fixed), render(rows)


# -- the backends give exactly the /dev/shm asked for, no network, a time limit ------------------------------

SPECS = [
    (ShmSpec(Provision.DEFAULT), DEFAULT_SHM_BYTES),
    (ShmSpec(Provision.IPC_SIZE, 96 * MIB), 96 * MIB),
    (ShmSpec(Provision.TMPFS, 80 * MIB), 80 * MIB),
    (ShmSpec(Provision.MOUNT_TMPFS, 72 * MIB), 72 * MIB),
    (ShmSpec(Provision.DISK), "disk"),
]
_SHOW_SHM = "stat -f -c '%T %b %S' /dev/shm"


@pytest.mark.validation
@pytest.mark.parametrize("name", ["namespace", "podman"])
def test_backend_gives_the_exact_shm(name: str, reaper: Reaper, request) -> None:
    backend = request.getfixturevalue(name)
    for spec, want in SPECS:
        output = backend.run(["sh", "-c", _SHOW_SHM], spec, 30)
        assert output.returncode == 0, (spec, output.stderr)
        fstype, blocks, block_size = output.stdout.split()
        if want == "disk":
            assert fstype != "tmpfs", spec
        else:
            assert (fstype, int(blocks) * int(block_size)) == ("tmpfs", want), spec


@pytest.mark.validation
@pytest.mark.parametrize("name", ["namespace", "podman"])
def test_backend_has_no_network_and_a_time_limit(name: str, request) -> None:
    backend = request.getfixturevalue(name)
    connect = "import socket; socket.create_connection(('192.0.2.1', 53), timeout=3)"
    output = backend.run([sys.executable, "-c", connect], ShmSpec(Provision.DEFAULT), 30)
    assert output.returncode != 0 and "Network is unreachable" in output.stderr, output.stderr
    started = time.monotonic()
    output = backend.run(["sleep", "60"], ShmSpec(Provision.DEFAULT), 1)
    assert output.timed_out and time.monotonic() - started < 15


@pytest.mark.validation
def test_namespace_backend_works_without_root(namespace: NamespaceBackend, monkeypatch) -> None:
    """Not root: a user namespace maps the caller to root, which may mount a tmpfs in its own mount namespace."""
    monkeypatch.setattr(backends_module.os, "geteuid", lambda: 65534)
    argv = namespace.argv(["sh", "-c", f"{_SHOW_SHM}; id -u"], ShmSpec(Provision.IPC_SIZE, 96 * MIB), 30, None)
    assert "--map-root-user" in argv
    monkeypatch.undo()
    drop = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"] if os.geteuid() == 0 else []
    done = subprocess.run([*drop, *argv], capture_output=True, text=True, timeout=30, cwd="/", check=False)
    assert done.returncode == 0, done.stderr
    shm, uid = done.stdout.splitlines()
    assert shm == f"tmpfs {96 * MIB // 4096} 4096" and uid == "0"


def test_podman_flags_follow_the_manifest() -> None:
    assert podman_shm_flags(ShmSpec(Provision.DEFAULT), None) == ["--shm-size=64m"]
    assert podman_shm_flags(ShmSpec(Provision.IPC_SIZE, 2 * 1024 * MIB), None) == ["--shm-size=2g"]
    assert podman_shm_flags(ShmSpec(Provision.TMPFS, 96 * MIB), None) == ["--tmpfs", "/dev/shm:size=96m"]
    assert podman_shm_flags(ShmSpec(Provision.MOUNT_TMPFS, 64 * MIB), None) == [
        "--mount",
        f"type=tmpfs,destination=/dev/shm,tmpfs-size={64 * MIB}",
    ]
    assert podman_shm_flags(ShmSpec(Provision.DISK), "/var/tmp/x") == [
        "--mount",
        "type=bind,source=/var/tmp/x,destination=/dev/shm",
    ]


def test_podman_extra_arguments_are_configurable(monkeypatch) -> None:
    monkeypatch.setenv("SHMLINT_PODMAN_ARGS", "--cgroups=disabled --ulimit 'nofile=512:512'")
    backend = PodmanBackend(Reaper())
    argv = backend.run_argv(["true"], ShmSpec(Provision.DEFAULT), 10, "n", "/tmp/root", None)
    assert argv[argv.index("--cgroups=disabled") + 1 : argv.index("--cgroups=disabled") + 3] == [
        "--ulimit",
        "nofile=512:512",
    ]
    monkeypatch.setenv("SHMLINT_PODMAN_ARGS", "")
    assert PodmanBackend(Reaper()).run_args == ()


@pytest.mark.validation
def test_reaper_kills_running_probes(namespace: NamespaceBackend) -> None:
    reaper = Reaper()
    backend = NamespaceBackend(reaper)
    outputs = []
    sleep = ["sleep", "60"]
    thread = threading.Thread(target=lambda: outputs.append(backend.run(sleep, ShmSpec(Provision.DEFAULT), 60)))
    thread.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(
        _cmdline(pid) == b"sleep\x0060\x00" for pid in _descendants(os.getpid())
    ):
        time.sleep(0.05)
    started = time.monotonic()
    reaper.kill_all()
    thread.join(15)
    assert not thread.is_alive() and time.monotonic() - started < 10
    assert outputs[0].returncode == -signal.SIGKILL
    with pytest.raises(BackendUnavailable):
        backend.run(["true"], ShmSpec(Provision.DEFAULT), 10)


@pytest.mark.validation
def test_a_killed_probe_leaves_no_process_and_no_mount(namespace: NamespaceBackend) -> None:
    """SIGKILL the probe itself: its workers and its tmpfs go with its PID and mount namespaces."""
    size = 333 * MIB + 4096  # a size nothing else mounts, to find the tmpfs in /proc/*/mountinfo
    long_run = Profile(workers=2, batch_size=2, sample_bytes=MIB, batches=10_000, step_seconds=0.05)
    outputs: list = []
    thread = threading.Thread(
        target=lambda: outputs.append(
            namespace.run(long_run.argv(sys.executable), ShmSpec(Provision.IPC_SIZE, size), 120)
        )
    )
    thread.start()
    mine: set[int] = set()
    deadline = time.monotonic() + 60
    while len(mine) < 3 and time.monotonic() < deadline:  # the probe and its two workers
        mine = {pid for pid in _descendants(os.getpid()) if b"shmlint.validate.probe" in _cmdline(pid)}
        time.sleep(0.05)
    assert len(mine) == 3, mine
    assert _mounted(size)
    parents = _parents()
    (main,) = [pid for pid in mine if parents.get(pid) not in mine]
    os.kill(main, signal.SIGKILL)
    thread.join(30)
    assert not thread.is_alive() and outputs[0].returncode != 0
    assert not [pid for pid in mine if _cmdline(pid)] and not _mounted(size)


def _mounted(size: int) -> bool:
    wanted = f"size={size // 1024}k"
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if wanted in (entry / "mountinfo").read_text():
                    return True
            except OSError:
                continue
    return False


# -- the probe recognises every shm failure ---------------------------------------------------------------------


def test_every_signature_is_recognised() -> None:
    texts = {
        "allocate": "RuntimeError: unable to allocate shared memory(shm) for file </torch_1_2_3>: "
        "No space left on device (28)",
        "write": "RuntimeError: unable to write to file </torch_18693_1954>: No space left on device (28)",
        "worker-bus-error": "ERROR: Unexpected bus error encountered in worker. This might be caused by "
        "insufficient shared memory (shm).",
        "worker-killed-bus-error": "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.",
    }
    assert {name for name, _ in SIGNATURES} == set(texts)
    assert {name: classify(text) for name, text in texts.items()} == {name: name for name in texts}
    assert classify("RuntimeError: CUDA out of memory") is None
    assert interpret(-signal.SIGBUS, "", "").signature == "sigbus"
    assert interpret(128 + signal.SIGBUS, "", "").outcome is Outcome.SHM_ERROR
    assert interpret(124, "", "").detail == "timed out"
    assert interpret(1, "", "Traceback\nImportError: no torch").outcome is Outcome.OTHER_ERROR
    crashed = ProbeResult(Outcome.OTHER_ERROR, None, "RuntimeError: DataLoader worker (pid(s) 7) exited unexpectedly")
    assert interpret(4, crashed.line(), texts["worker-bus-error"]).signature == "worker-bus-error"


_SPARSE = """
import mmap, os
def fill():
    fd = os.open("/dev/shm/sparse", os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, 64 << 20)  # sparse: pages are found missing only when touched
    view = mmap.mmap(fd, 64 << 20)
    for offset in range(0, 64 << 20, 4096):
        view[offset] = 1
    return 0
"""
_IN_WORKER = (
    _SPARSE
    + """
import torch
from torch.utils.data import DataLoader, Dataset
class Touch(Dataset):
    def __len__(self): return 2
    def __getitem__(self, index): return fill()
for _ in DataLoader(Touch(), num_workers=1): pass
"""
)


@pytest.mark.validation
def test_real_bus_errors_are_shm_errors(namespace: NamespaceBackend) -> None:
    """A partly full tmpfs and a sparse file, as torch meets it: in a worker, then in the main process."""
    small = ShmSpec(Provision.IPC_SIZE, 4 * MIB)
    worker = namespace.run([sys.executable, "-c", _IN_WORKER], small, 60)
    assert "Unexpected bus error encountered in worker" in worker.stderr, worker.stderr
    assert "is killed by signal: Bus error" in worker.stderr, worker.stderr
    assert interpret(worker.returncode, worker.stdout, worker.stderr).outcome is Outcome.SHM_ERROR
    main = namespace.run([sys.executable, "-c", _SPARSE + "fill()"], small, 60)
    assert interpret(main.returncode, main.stdout, main.stderr).signature == "sigbus", main


# -- hints, the model, the command ----------------------------------------------------------------------------


def test_each_workload_is_probed_with_its_own_loader(engine: Engine, tmp_path: Path) -> None:
    """The profile is the one shmlint's extractors read for the workload; without one, the default loader,
    said so in the table."""
    path = tmp_path / "compose.yaml"
    path.write_text(
        "services:\n"
        "  hinted:\n"
        "    image: pytorch/pytorch\n"
        "    labels:\n"
        '      shmlint.io/dataloader: "workers=5 batch=6 sample=32 dtype=uint8"\n'
        "  plain:\n"
        "    image: pytorch/pytorch\n"
        "    gpus: all\n"  # torch on the CPU without a loader is not claimed to need /dev/shm, so not probed
        "    shm_size: 1gb\n"
    )
    hinted, plain = (c for c in _cases(engine, [path]) if not c.fixed)
    assert (hinted.profile.workers, hinted.profile.batch_size, hinted.profile.sample_bytes) == (5, 6, 32)
    assert hinted.declared and not plain.declared and plain.profile == DEFAULT_PROFILE
    assert "[default loader]" in render([Row(plain, "namespace", None, 0.0)])


def discover_kind(name: str):
    from shmlint.discover import kind_by_name

    return kind_by_name(Path(name))


def test_unknown_shm_is_not_probed(engine: Engine) -> None:
    text = "docker run --gpus all --ipc=container:other pytorch/pytorch python train.py\n"
    result = engine.check_source(SourceText("run.sh", text), discover_kind("run.sh"), Path("run.sh"))
    (workload,) = result.workloads
    assert isinstance(shm_spec(workload), str)


def _table(output: str) -> list[list[str]]:
    lines = [line for line in output.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]


@pytest.mark.validation
def test_validate_command_prints_the_table_and_its_exit_status(namespace) -> None:
    fixture = str(RUNTIME / "shell" / "good-run-shm-size.sh")
    agreed = CliRunner().invoke(validate, [fixture, "--backend", "namespace"])
    header, _, row = _table(agreed.output)
    assert header == list(HEADER)
    assert row[0] == f"{fixture}: docker run (line 5)" and row[1:6] == ["namespace", "1 GiB", "-", "ok", "yes"]
    assert row[7] == "#1" and agreed.exit_code == 0
    # the last line: rows, distinct probes, wall time, disagreements
    assert re.search(r"^1 row\(s\), 1 distinct probe\(s\) in 0 min \d+ s, 0 disagreement\(s\)\.$", agreed.output, re.M)
    # a probe that cannot finish is no evidence either way: never an agreement
    cut_short = CliRunner().invoke(validate, [fixture, "--backend", "namespace", "--timeout", "1"])
    assert _table(cut_short.output)[2][4:6] == ["other-error", "NO"]
    assert cut_short.exit_code == 1


def test_validate_reports_a_backend_it_cannot_run(tmp_path: Path, monkeypatch) -> None:
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (`.ci/run` installs it): a podman that cannot run needs a podman")
    monkeypatch.setenv("SHMLINT_PODMAN_ARGS", "--no-such-podman-option")
    result = CliRunner().invoke(validate, [str(tmp_path), "--backend", "podman"])
    assert result.exit_code == 2 and "podman cannot run a container here" in result.output


def test_validate_names_what_provides_a_missing_tool(tmp_path: Path, monkeypatch) -> None:
    real_which = shutil.which
    monkeypatch.setattr(backends_module.shutil, "which", lambda tool: None if tool == "podman" else real_which(tool))
    result = CliRunner().invoke(validate, [str(tmp_path), "--backend", "podman"])
    assert result.exit_code == 2 and "missing podman (install podman)" in result.output


@pytest.mark.validation
def test_sigterm_kills_every_probe(tmp_path: Path, namespace) -> None:
    shutil.copy(RUNTIME / "shell" / "SHM001-run-no-shm.sh", tmp_path / "run.sh")
    code = "from shmlint.validate.commands import validate; validate()"
    run = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    probes: set[int] = set()
    deadline = time.monotonic() + 60
    while not probes and time.monotonic() < deadline:
        probes = {pid for pid in _descendants(run.pid) if b"shmlint.validate.probe" in _cmdline(pid)}
        time.sleep(0.05)
    assert probes, "no probe started"
    run.send_signal(signal.SIGTERM)
    run.communicate(timeout=30)
    assert run.returncode == 128 + signal.SIGTERM
    time.sleep(0.5)
    assert not [pid for pid in probes if _cmdline(pid)], "probe processes outlived a terminated validate"


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _parents() -> dict[int, int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return parents


def _descendants(root: int) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found
