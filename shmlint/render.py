"""Rendering kustomizations (``kubectl kustomize``) and Helm charts (``helm template``) so their output is checked.

Renderers run with argument lists, no shell, a time limit and no standard input; a failure is a message, never a
crash. Rendered findings are mapped back to the file a person edits: Helm marks each document with
``# Source: chart/templates/x.yaml``; for kustomize the resource with the same kind and name is looked up in the
folder's own files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from shmlint.discover import KUSTOMIZATION_NAMES

RENDER_TIMEOUT_SECONDS = 60
_HELM_SOURCE = re.compile(r"^# Source: (\S+)", re.MULTILINE)
_REMOTE = re.compile(r"\b(https?|git|ssh|file)://|\bgit@|\bgithub\.com/|\bgitlab\.com/")
#: klog's prefix (``E1202 20:58:47.164021   27158 run.go:72] ``): time and pid make two runs print differently
_LOG_PREFIX = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ [^\]]+\] ")


@dataclass(frozen=True)
class Rendered:
    """A renderer's output for one kustomization or chart, or why there is none."""

    root: Path  # the kustomization folder or the chart
    label: str  # the path findings name when no better file is known
    text: str | None
    error: str | None = None


def _run(command: list[str], cwd: Path | None = None) -> tuple[str | None, str | None]:
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=RENDER_TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"`{' '.join(command)}` did not finish within {RENDER_TIMEOUT_SECONDS} s"
    except OSError as exc:
        return None, f"`{command[0]}` could not run: {exc.strerror or exc}"
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        last = _LOG_PREFIX.sub("", detail[-1]) if detail else f"exit code {done.returncode}"
        return None, f"`{' '.join(command)}` failed: {last}"
    return done.stdout, None


def kustomize_available() -> bool:
    return shutil.which("kubectl") is not None


def helm_available() -> bool:
    return shutil.which("helm") is not None


def remote_resources(folder: Path) -> bool:
    """A kustomization that names a URL or git repository: kustomize would fetch it, and a linter run on an
    untrusted change must not make network requests the change chooses."""
    for name in KUSTOMIZATION_NAMES:
        try:
            text = (folder / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if _REMOTE.search(text):
            return True
    return False


def render_kustomization(folder: Path) -> Rendered:
    label = str(next((folder / n for n in KUSTOMIZATION_NAMES if (folder / n).is_file()), folder))
    text, error = _run(["kubectl", "kustomize", str(folder)])
    return Rendered(folder, label, text, error)


def render_chart(chart: Path) -> Rendered:
    text, error = _run(["helm", "template", str(chart)])
    return Rendered(chart, str(chart / "Chart.yaml"), text, error)


def helm_source_at(text: str, offset: int, chart: Path) -> Path | None:
    """The template a rendered document came from, from Helm's ``# Source:`` comment above ``offset``."""
    found = None
    for match in _HELM_SOURCE.finditer(text):
        if match.start() > offset:
            break
        found = match.group(1)
    if found is None:
        return None
    _, _, relative = found.partition("/")  # "mychart/templates/x.yaml" -> "templates/x.yaml"
    return chart / relative
