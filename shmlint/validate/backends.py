"""Where a probe runs with exactly the /dev/shm a workload would get.

``namespace``: a private mount, PID and network namespace (``unshare``) with a tmpfs of the size at /dev/shm, the
same kernel mechanism container runtimes use; as root, or through a user namespace otherwise. ``podman``: a real
OCI container given ``--shm-size``, ``--ipc``, ``--tmpfs`` or ``--mount`` as the manifest implies, with the host as
its root filesystem (no image pulls).

Cleanup does not depend on this process ending well: mounts live only in namespaces that vanish with their last
process; ``setpriv --pdeathsig`` and ``unshare --kill-child`` kill the probe's PID namespace when this process dies,
``timeout`` and ``podman run --timeout`` bound it even then, and ``Reaper`` kills what is still running when a run
ends or is terminated. Every command is an argument list; values reach the shell scripts as positional
parameters, never spliced into their text.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol

import shmlint
from shmlint.runtime.shm import SHM_PATH
from shmlint.sizes import DEFAULT_SHM_BYTES, format_docker, human

#: where the probe's ``shmlint`` package is imported from, inside a namespace or a container
PACKAGE_PARENT = str(Path(shmlint.__file__).resolve().parent.parent)
#: ``podman run`` arguments for hosts like the test machines (rootless, hybrid cgroups), used unless SHMLINT_PODMAN_ARGS says otherwise
DEFAULT_PODMAN_ARGS = ("--cgroups=disabled", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024")
PODMAN_ARGS_ENV = "SHMLINT_PODMAN_ARGS"
KILL_GRACE_SECONDS = 5

# $1: tmpfs | bind   $2: tmpfs options or the folder to bind   $3: time limit   then the command
_NAMESPACE_SCRIPT = f"""set -e
case "$1" in
  tmpfs) mount -t tmpfs -o "$2" shm /dev/shm ;;
  bind) mount --bind "$2" /dev/shm ;;
esac
limit="$3"
shift 3
exec timeout -k {KILL_GRACE_SECONDS} "$limit" "$@"
"""

# $1: folder to bind the host's / on ('-' for none), then the podman command. A hybrid cgroup v1/v2 host makes
# crun refuse to start ("cgroups in hybrid mode not supported"): the cgroup2 mount is dropped, in this namespace only.
_PODMAN_SCRIPT = """set -e
if [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then umount /sys/fs/cgroup/unified; fi
if [ "$1" != - ]; then mount --bind / "$1"; fi
shift
exec "$@"
"""


class Provision(StrEnum):
    """How the container gets its /dev/shm, which decides the namespace mount and the podman flag."""

    DEFAULT = "default"  # the runtime's own 64 MiB: no flag
    IPC_SIZE = "shm-size"  # the IPC namespace's /dev/shm, sized: --shm-size, compose shm_size
    TMPFS = "tmpfs"  # --tmpfs /dev/shm:size=...
    MOUNT_TMPFS = "mount-tmpfs"  # --mount type=tmpfs: a Memory emptyDir, a compose tmpfs volume
    DISK = "disk"  # a folder on disk mounted at /dev/shm


@dataclass(frozen=True)
class ShmSpec:
    """The /dev/shm a probe runs with, as a fixture's workload would get it."""

    provision: Provision
    bytes: int | None = None  # the size the manifest gives; None for disk, or a tmpfs with no size
    cap: int | None = None  # the most the probe mounts (ProbeLimits): a larger or unsized tmpfs is mounted at this

    @property
    def tmpfs_bytes(self) -> int | None:
        """The size of the tmpfs the probe mounts; None: a folder on disk, or the kernel's default size."""
        if self.provision is Provision.DISK:
            return None
        size = DEFAULT_SHM_BYTES if self.provision is Provision.DEFAULT else self.bytes
        return self.cap if self.cap is not None and (size is None or size > self.cap) else size

    @property
    def label(self) -> str:
        if self.provision is Provision.DISK:
            return "disk folder"
        declared = DEFAULT_SHM_BYTES if self.provision is Provision.DEFAULT else self.bytes
        written = "tmpfs, no size" if declared is None else human(declared)
        if self.provision is Provision.DEFAULT:
            written += " (default)"
        mounted = self.tmpfs_bytes
        return written if mounted is None or mounted == declared else f"{written}, probed at {human(mounted)}"


@dataclass(frozen=True)
class RunOutput:
    """How a probe process ended, whatever backend ran it."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool


class BackendUnavailable(Exception):
    """A backend that cannot run here; the message says what is missing."""


class Reaper:
    """The process groups of one validation run, so a terminated run kills them all (threads cannot be
    interrupted, their children can). Created per run: no module state."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[int, subprocess.Popen[str]] = {}
        self._closed = False

    @contextmanager
    def spawn(self, argv: Sequence[str], env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
        with self._lock:
            if self._closed:
                raise BackendUnavailable("the validation run is being stopped")
            process = subprocess.Popen(
                list(argv),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
                env=env,
                start_new_session=True,
            )
            self._live[process.pid] = process
        try:
            yield process
        finally:
            _kill_group(process)
            with self._lock:
                self._live.pop(process.pid, None)

    def kill_all(self) -> None:
        with self._lock:
            self._closed = True
            live = list(self._live.values())
        for process in live:
            _kill_group(process)


def _kill_group(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _communicate(process: subprocess.Popen[str], limit: float) -> RunOutput:
    started = time.monotonic()
    try:
        stdout, stderr = process.communicate(timeout=limit + 4 * KILL_GRACE_SECONDS)
        timed_out = process.returncode == 124
    except subprocess.TimeoutExpired:
        _kill_group(process)
        stdout, stderr = process.communicate()
        timed_out = True
    return RunOutput(process.returncode, stdout, stderr, time.monotonic() - started, timed_out)


class Backend(Protocol):
    @property
    def name(self) -> str: ...

    def check(self) -> None:
        """Raise BackendUnavailable unless this backend can run probes here."""

    def run(self, command: Sequence[str], shm: ShmSpec, limit: float) -> RunOutput:
        """Run ``command`` with ``shm`` at /dev/shm, no network, at most ``limit`` seconds."""

    def probe_key(self, shm: ShmSpec) -> tuple[str, ...]:
        """What this backend's run depends on in ``shm``: two specs with one key run the same probe, so
        ``validate`` runs it once for all the workloads that share it."""


def _require(*tools: str, provider: str = "util-linux and coreutils provide them") -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise BackendUnavailable(f"missing {', '.join(missing)} ({provider})")


DISK_PARENT = "/var/tmp"
DISK_PREFIX = "shmlint-disk-shm-"


def _remove_stale_disk_folders() -> None:
    """Folders a killed run left (``shmlint-disk-shm-<pid>-*``, mode 1777): removed once their run is gone, when
    they are ours; another user's and a live run's are left alone."""
    try:
        names = os.listdir(DISK_PARENT)
    except OSError:
        return
    for name in names:
        pid = name.removeprefix(DISK_PREFIX).split("-", 1)[0]
        if not name.startswith(DISK_PREFIX) or not pid.isdigit() or _alive(int(pid)):
            continue
        path = os.path.join(DISK_PARENT, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# $1: the folder. Reads its stdin (a pipe whose only writer is the validate process) to the end, which comes when
# that process ends however it ends, SIGKILL included; then removes the folder, again while a dying probe still writes
_DISK_WATCH = """cat >/dev/null
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  rm -rf -- "$1"
  [ -e "$1" ] || exit 0
  sleep 1
done
"""


@contextmanager
def _disk_folder(shm: ShmSpec) -> Iterator[str | None]:
    """A fresh folder on disk for a disk-backed /dev/shm (under /var/tmp, which is on disk by convention). A
    watcher in its own session removes it when this process ends, even by SIGKILL; it is started before the folder
    exists, so no moment leaves a folder nobody will remove."""
    if shm.provision is not Provision.DISK:
        yield None
        return
    _remove_stale_disk_folders()
    folder = os.path.join(DISK_PARENT, f"{DISK_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}")
    read_end, write_end = os.pipe()
    try:
        watcher = subprocess.Popen(
            ["sh", "-c", _DISK_WATCH, "shmlint-disk-watch", folder],
            stdin=read_end,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a signal to this process group (Ctrl-C, a CI timeout) does not reach it
        )
    finally:
        os.close(read_end)
    try:
        os.mkdir(folder, 0o700)  # never an existing path: mkdir fails on one, a planted link included
        os.chmod(folder, 0o1777)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(write_end)
        watcher.wait()


def _probe_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (PACKAGE_PARENT, os.environ.get("PYTHONPATH"))))}


@dataclass(frozen=True)
class NamespaceBackend:
    """Runs a probe in a private mount namespace with a tmpfs of exactly the size under test."""

    reaper: Reaper
    name: str = "namespace"

    def argv(self, command: Sequence[str], shm: ShmSpec, limit: float, disk: str | None) -> list[str]:
        user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
        if shm.provision is Provision.DISK:
            mode, argument = "bind", disk or ""
        else:
            size = shm.tmpfs_bytes
            mode, argument = "tmpfs", "nosuid,nodev,mode=1777" + (f",size={size}" if size is not None else "")
        return [
            "setpriv",
            "--pdeathsig",
            "KILL",
            "unshare",
            *user,
            "--mount",
            "--propagation",
            "private",
            "--net",
            "--pid",
            "--kill-child",
            "--mount-proc",
            "sh",
            "-c",
            _NAMESPACE_SCRIPT,
            "shmlint-namespace",
            mode,
            argument,
            f"{limit:g}",
            *command,
        ]

    def probe_key(self, shm: ShmSpec) -> tuple[str, ...]:
        """A folder on disk, or a tmpfs of a size: how the manifest asked for it does not change the mount."""
        return ("disk",) if shm.provision is Provision.DISK else ("tmpfs", str(shm.tmpfs_bytes))

    def check(self) -> None:
        _require("setpriv", "unshare", "timeout")
        output = self.run(["true"], ShmSpec(Provision.DEFAULT), 30)
        if output.returncode != 0:
            raise BackendUnavailable(
                f"cannot make a private mount namespace with a tmpfs at /dev/shm (exit {output.returncode}): "
                f"{output.stderr.strip() or 'no message'}; run as root or allow unprivileged user namespaces"
            )

    def run(self, command: Sequence[str], shm: ShmSpec, limit: float) -> RunOutput:
        with _disk_folder(shm) as disk, self.reaper.spawn(self.argv(command, shm, limit, disk), _probe_env()) as p:
            return _communicate(p, limit)


def podman_args_from_env() -> tuple[str, ...]:
    """Extra ``podman run`` arguments: SHMLINT_PODMAN_ARGS (shell words; empty for none) or the defaults."""
    value = os.environ.get(PODMAN_ARGS_ENV)
    return DEFAULT_PODMAN_ARGS if value is None else tuple(shlex.split(value))


def podman_shm_flags(shm: ShmSpec, disk: str | None) -> list[str]:
    """The flags a ``docker run``/``podman run`` line would carry for this /dev/shm."""
    size = shm.tmpfs_bytes
    if shm.provision in (Provision.DEFAULT, Provision.IPC_SIZE):
        # podman's own default is 65,536,000 B (it reads its "65536k" in decimal), docker's and containerd's
        # 64 MiB: the model says 64 MiB, so the default is written out
        return [f"--shm-size={format_docker(size or DEFAULT_SHM_BYTES)}"]
    if shm.provision is Provision.TMPFS:
        return ["--tmpfs", SHM_PATH + (f":size={format_docker(size)}" if size is not None else "")]
    if shm.provision is Provision.MOUNT_TMPFS:
        return ["--mount", f"type=tmpfs,destination={SHM_PATH}" + (f",tmpfs-size={size}" if size is not None else "")]
    return ["--mount", f"type=bind,source={disk},destination={SHM_PATH}"]


@dataclass(frozen=True)
class PodmanBackend:
    """Runs a probe in a real podman container, sized like the workload (with this host's quirks as arguments)."""

    reaper: Reaper
    run_args: tuple[str, ...] = field(default_factory=podman_args_from_env)
    podman: str = "podman"
    name: str = "podman"

    def wrap(self, hostroot: str, podman_args: Sequence[str]) -> list[str]:
        """Podman inside a private mount namespace where the host's / is bound at ``hostroot``."""
        return [
            "setpriv",
            "--pdeathsig",
            "KILL",
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "--kill-child",
            "sh",
            "-c",
            _PODMAN_SCRIPT,
            "shmlint-podman",
            hostroot,
            self.podman,
            *podman_args,
        ]

    def run_argv(
        self, command: Sequence[str], shm: ShmSpec, limit: float, name: str, hostroot: str, disk: str | None
    ) -> list[str]:
        return self.wrap(
            hostroot,
            [
                "run",
                "--rm",
                "--name",
                name,
                "--network",
                "none",
                "--timeout",
                str(math.ceil(limit) + KILL_GRACE_SECONDS),
                # the container writes straight to our pipes: through conmon, podman 4.3 lost the whole output of about
                # one short run in fifty when several ran at once
                "--log-driver",
                "passthrough",
                *self.run_args,
                *podman_shm_flags(shm, disk),
                "--mount",
                f"type=bind,source={PACKAGE_PARENT},destination={PACKAGE_PARENT},ro",
                "--env",
                f"PYTHONPATH={PACKAGE_PARENT}",
                "--workdir",
                "/",
                "--rootfs",
                hostroot,
                "timeout",
                "-k",
                str(KILL_GRACE_SECONDS),
                f"{limit:g}",
                *command,
            ],
        )

    def probe_key(self, shm: ShmSpec) -> tuple[str, ...]:
        """The flags the container gets (a disk folder is a fresh one each run, the same kind of mount)."""
        return tuple(podman_shm_flags(shm, "<folder on disk>"))

    def check(self) -> None:
        _require("setpriv", "unshare")
        _require(self.podman, provider="install podman")
        output = self.run(["true"], ShmSpec(Provision.DEFAULT), 60)
        if output.returncode != 0:
            raise BackendUnavailable(
                f"podman cannot run a container here (exit {output.returncode}): "
                f"{output.stderr.strip() or 'no message'}; set {PODMAN_ARGS_ENV} to the extra `podman run` "
                f"arguments this host needs (now: {shlex.join(self.run_args) or 'none'})"
            )

    def run(self, command: Sequence[str], shm: ShmSpec, limit: float) -> RunOutput:
        name = f"shmlint-probe-{uuid.uuid4().hex[:12]}"
        hostroot = tempfile.mkdtemp(prefix="shmlint-hostroot-")
        finished = False
        try:
            with _disk_folder(shm) as disk:
                argv = self.run_argv(command, shm, limit, name, hostroot, disk)
                with self.reaper.spawn(argv) as process:
                    output = _communicate(process, limit)
                    finished = not output.timed_out  # `run --rm` removed it
                    return output
        finally:
            if not finished:
                self._remove(name)
            os.rmdir(hostroot)

    def _remove(self, name: str) -> None:
        """The container outlives a killed ``podman run`` client (conmon runs it): remove it by name."""
        subprocess.run(
            self.wrap("-", ["rm", "--force", "--ignore", "--time", "0", name]),
            capture_output=True,
            timeout=60,
            check=False,
        )


BACKENDS = ("namespace", "podman")
BACKENDS_ENV = "SHMLINT_VALIDATE_BACKENDS"


def backends_from_env(default: tuple[str, ...]) -> tuple[str, ...]:
    """The backends SHMLINT_VALIDATE_BACKENDS names (comma-separated), or ``default`` when it is unset: turning a
    backend off is always an explicit choice."""
    value = os.environ.get(BACKENDS_ENV)
    if value is None:
        return default
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    unknown = [name for name in names if name not in BACKENDS]
    if unknown:
        raise ValueError(f"{BACKENDS_ENV}: unknown backend {', '.join(unknown)} (one of {', '.join(BACKENDS)})")
    return names


def make_backend(name: str, reaper: Reaper, podman_args: tuple[str, ...] | None = None) -> Backend:
    if name == "namespace":
        return NamespaceBackend(reaper)
    if name == "podman":
        return PodmanBackend(reaper) if podman_args is None else PodmanBackend(reaper, podman_args)
    raise ValueError(f"unknown backend '{name}' (one of {', '.join(BACKENDS)})")
