"""Rendering kustomizations (``kubectl kustomize``) and Helm charts (``helm template``) so their output is checked,
and mapping the findings in the output back to the files a person edits.

Renderers run with argument lists, no shell, a time limit and no standard input; a failure is a message, never a
crash. Rendered findings are mapped back to the file a person edits: Helm marks each document with
``# Source: chart/templates/x.yaml``; for kustomize the resource with the same kind and name is looked up in the
folder's own files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint.discover import KUSTOMIZATION_NAMES, Candidate, FileKind
from shmlint.model import FileResult, Notice
from shmlint.source import InputError, SourceText, Span, read_bytes

if TYPE_CHECKING:
    from shmlint.engine import Engine
    from shmlint.model import Finding, Workload, WorkloadId

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


_NO_KUBECTL = (
    "kustomization: kubectl is not on PATH, so the rendered output is not checked; its files are checked one by one"
)
_REMOTE_KUSTOMIZATION = (
    "kustomization: names remote resources, which shmlint never fetches, so the rendered output is not checked; "
    "its files are checked one by one"
)


def render_units(engine: Engine, candidates: list[Candidate]) -> tuple[list[Candidate], tuple[FileResult, ...]]:
    """Kustomizations and Helm charts whose renderer is installed are checked as rendered output instead of file by
    file (the candidates they take are left out of the list returned); without the renderer their files are
    checked (or noted) as they are."""
    folders = sorted({c.path.parent for c in candidates if c.path.name in KUSTOMIZATION_NAMES})
    charts = sorted({c.path.parent for c in candidates if c.path.name == "Chart.yaml"})
    if not folders and not charts:
        return candidates, ()
    results: list[FileResult] = []
    taken: set[Path] = set()
    for folder in folders:
        if not kustomize_available():
            results.append(FileResult(str(folder), notices=(Notice(str(folder), _NO_KUBECTL),)))
        elif remote_resources(folder):
            results.append(FileResult(str(folder), notices=(Notice(str(folder), _REMOTE_KUSTOMIZATION),)))
        else:
            members = [c for c in candidates if c.path.parent == folder and c.kind is FileKind.YAML]
            rendered = render_kustomization(folder)
            if rendered.text is not None:  # when rendering fails, its files are still checked one by one
                taken.update(c.path for c in members)
            results.append(check_rendered(engine, rendered, members))
    if charts and helm_available():
        for chart in charts:
            members = [c for c in candidates if chart in c.path.parents]
            taken.update(c.path for c in members)
            results.append(check_rendered(engine, render_chart(chart), []))
    return [c for c in candidates if c.path not in taken], tuple(r.slim() for r in results)


def check_rendered(engine: Engine, rendered: Rendered, members: list[Candidate]) -> FileResult:
    """Findings in the rendered output, each pointing where a person fixes it; no fix is offered (the output is
    not a file anyone edits)."""
    if rendered.text is None:
        return engine.invalid(rendered.label, f"could not be rendered: {rendered.error}")
    result = engine.check_source(SourceText(rendered.label, rendered.text), FileKind.YAML, Path(rendered.label))
    originals = {
        w.id: w
        for member in members
        for w in sorted(engine.check_candidate(member).workloads, key=lambda w: w.is_gpu_or_torch)
    }
    renderer = "helm template" if rendered.label.endswith("Chart.yaml") else "kubectl kustomize"
    findings = []
    for finding in result.findings:
        span = _rendered_span(engine, rendered, finding, originals)
        message = f"{finding.message} (found in the output of `{renderer} {rendered.root}`)"
        findings.append(replace(finding, span=span, message=message, fix=None))
    return FileResult(rendered.label, tuple(findings), result.notices)


def _rendered_span(engine: Engine, rendered: Rendered, finding: Finding, originals: dict[WorkloadId, Workload]) -> Span:
    """Where a person fixes what the rendered output shows: the same workload in the folder's own files, or the
    container in the template Helm names; the kustomization (or Chart.yaml) itself when neither is known."""
    workload = finding.workload
    if workload is not None and workload.id in originals:
        return originals[workload.id].span
    template = helm_source_at(rendered.text or "", finding.span.start, rendered.root)
    if template is not None and template.is_file():
        container = workload.id.container if workload is not None else ""
        located = _container_in(template, container, engine.settings.max_file_bytes) if container else None
        return located or Span(str(template), 1, 1, 1, 1, 0, 0)
    return Span(rendered.label, 1, 1, 1, 1, 0, 0)


def _container_in(template: Path, container: str, limit: int) -> Span | None:
    """The ``name: <container>`` line of a template, found as text (templates are not YAML until rendered)."""
    try:
        source = SourceText.from_bytes(str(template), read_bytes(template, limit))
    except InputError:
        return None
    pattern = rf"^\s*-?\s*(name:\s*[\"']?{re.escape(container)}\b)"
    match = re.search(pattern, source.text, re.MULTILINE)
    return source.span(match.start(1), match.end(1)) if match else None
