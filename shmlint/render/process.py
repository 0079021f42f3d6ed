"""Running a renderer as hostile input cannot steer it: an argument list (no shell) with ``--`` before the one path,
which is absolute; a time limit after which the whole process group is killed; a minimal environment; no standard
input; output capped at ``max-file-size``; and no network.

No network is the second line of defence (the first is ``graph.walk``, which never lets kustomize see a remote
reference): the renderer runs in a new, empty network namespace with ``unshare --net`` (as root) or
``unshare --map-root-user --net`` (a user namespace, for everyone else). Where neither works (not Linux, or
namespaces are forbidden), nothing is rendered: an environment without proxies or DNS servers would not stop a
program that connects to an address directly, so it is not offered as a substitute.

The environment holds only ``PATH`` (the system folders), ``HOME`` and ``TMPDIR`` (a private, empty folder, so no
kubeconfig, Helm repository list, plugin or cache of the user's is read), ``LC_ALL=C`` (messages in one language)
and ``HELM_NO_PLUGINS=1``. Nothing is inherited: no ``KUBECONFIG``, ``HELM_*``, ``*_proxy``, ``GIT_*`` or
credentials.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

RENDER_TIMEOUT_SECONDS = 60
#: klog's prefix (``E1202 20:58:47.164021   27158 run.go:72] ``): time and pid make two runs print differently
_LOG_PREFIX = LazyRegex(r"^[IWEF]\d{4} [\d:.]+\s+\d+ [^\]]+\] ")
_WARNING = LazyRegex(r"^(#\s*)?warning\b", re.IGNORECASE)
_ERROR = LazyRegex(r"^(error|fatal)\b", re.IGNORECASE)
#: klog's structured form, ``"command failed" err="accumulating resources: ..."``: the error is the message
_KLOG_ERR = LazyRegex(r'^"[^"]*"\s+err="(.*)"$')
MAX_MESSAGE = 300


class Outcome(NamedTuple):
    """A renderer's standard output, or the reason there is none (its own first error line)."""

    text: str | None
    error: str | None = None


class Sandbox(NamedTuple):
    """How renderers are run here: the command prefix that cuts the network off, and the private home folder."""

    prefix: tuple[str, ...]
    home: Path
    max_bytes: int
    timeout: float = RENDER_TIMEOUT_SECONDS

    def environment(self) -> dict[str, str]:
        home = str(self.home)
        return {"PATH": os.defpath, "HOME": home, "TMPDIR": home, "LC_ALL": "C", "HELM_NO_PLUGINS": "1"}

    def run(self, argv: list[str]) -> Outcome:
        """Run ``argv`` (an absolute program path first) offline; never raises for anything the program does. Its
        output goes to files in the private home (the next run truncates them; the home is removed after the run)."""
        out_path, err_path = self.home / "stdout", self.home / "stderr"
        try:
            with out_path.open("wb") as out, err_path.open("wb") as err:
                process = subprocess.Popen(
                    [*self.prefix, *argv],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    cwd=self.home,
                    env=self.environment(),
                    start_new_session=True,  # one process group: a timeout kills whatever it started too
                    preexec_fn=self._limit_output,  # before exec: one rlimit, nothing else
                )
                try:
                    returncode = process.wait(timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    _kill_group(process)
                    return Outcome(None, f"did not finish within {self.timeout:g} s")
            output = _read_capped(out_path, self.max_bytes)
            errors = _read_capped(err_path, 64 * 1024)
        except OSError as exc:
            return Outcome(None, f"could not run: {exc.strerror or exc}")
        if output is None:
            return Outcome(None, f"its output is larger than {self.max_bytes:,} bytes (max-file-size)")
        if returncode != 0:
            return Outcome(None, first_error(errors or "", returncode))
        return Outcome(output)

    def _limit_output(self) -> None:
        """In the child: a file (its standard output) may not grow beyond the limit, so output is bounded on disk
        rather than in this process's memory."""
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (self.max_bytes + 1, self.max_bytes + 1))


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        process.kill()
    process.wait()


def _read_capped(path: Path, limit: int) -> str | None:
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    return None if len(data) > limit else data.decode("utf-8", "replace")


def first_error(stderr: str, returncode: int) -> str:
    """The renderer's own first error line (not its deprecation warnings, not klog's time and pid prefix), shortened
    to one line a person reads; the exit code when it printed nothing."""
    lines = [_LOG_PREFIX.sub("", line).strip() for line in stderr.splitlines()]
    lines = [line for line in lines if line and not _WARNING.match(line)]
    if not lines:
        return f"exit code {returncode}"
    line = next((line for line in lines if _ERROR.match(line) or _KLOG_ERR.match(line)), lines[0])
    if structured := _KLOG_ERR.match(line):
        line = structured.group(1).replace('\\"', '"')
    line = "".join(c if c.isprintable() else " " for c in line)
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 3] + "..."


def find_sandbox() -> tuple[str, ...] | None:
    """The prefix that runs a program in an empty network namespace, or None where none can be made. Probed by
    running ``true`` through it once."""
    if not sys.platform.startswith("linux"):
        return None
    unshare, true = shutil.which("unshare"), shutil.which("true")
    if unshare is None or true is None:
        return None
    flags = ("--net",) if os.geteuid() == 0 else ("--map-root-user", "--net")
    prefix = (unshare, *flags, "--")
    try:
        probe = subprocess.run(
            [*prefix, true], stdin=subprocess.DEVNULL, capture_output=True, timeout=10, env={}, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if probe.returncode == 0 else None


def find_program(name: str) -> str | None:
    """The renderer found on the user's PATH, as an absolute path (the sandbox's PATH does not hold it)."""
    found = shutil.which(name)
    return os.path.abspath(found) if found else None
