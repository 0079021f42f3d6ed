"""One file in, findings out: read -> parse -> extract workloads -> checks -> suppressions.

The engine is the only stage that knows every other stage; each of them stays ignorant of the rest.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint.discover import (
    COMPOSE_DEFAULT_FILES,
    COMPOSE_OVERRIDE_FILES,
    KUSTOMIZATION_NAMES,
    Candidate,
    FileKind,
    chart_root,
    discover,
    has_helm_actions,
    has_template_marks,
    may_be_compose,
)
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.signals import Signals
from shmlint.source import InputError, SourceText, Span

if TYPE_CHECKING:  # a file with no workload never loads the model
    from shmlint.checks.context import CheckContext
    from shmlint.model import Evidence, Finding, Workload
    from shmlint.render import Rendered
    from shmlint.suppress import Suppression

#: lower-case words that every built-in GPU/torch/shm signal contains; a file with none of them cannot hold a
#: workload finding, so it is parsed for syntax only. Signals added by configuration are searched as patterns.
PREFILTER_WORDS = (
    "gpu",
    "nvidia",
    "torch",
    "shm",
    "ipc",
    "kfd",
    "/dev/dri",
    "gaudi",
    "neuron",
    "/tpu",
    "vllm",
    "sglang",
    "triton",
    "text-generation",
    "deepspeed",
    "accelerate",
    "nemo",
    "ray-",
    "verl",
    "comfyui",
    "invokeai",
    "build",
    "extends",
    "nccl",
    "num_workers",
    "num-workers",
    "shmlint",
)


@dataclass(frozen=True)
class Notice:
    """Something worth saying that is not a finding and never changes the exit status."""

    path: str
    message: str


@dataclass(frozen=True)
class FileResult:
    """Everything one file produced; ``slim()`` drops the text and nodes before results are kept."""

    path: str
    findings: tuple[Finding, ...] = ()
    notices: tuple[Notice, ...] = ()
    workloads: tuple[Workload, ...] = ()
    source: SourceText | None = field(default=None, compare=False)
    unused_suppressions: tuple[Suppression, ...] = ()

    def slim(self) -> FileResult:
        """Without the file text and parser nodes: what reporters need, cheap to keep and to pickle."""
        findings = tuple(
            replace(f, workload=replace(f.workload, target=None)) if f.workload and f.workload.target else f
            for f in self.findings
        )
        return FileResult(self.path, findings, self.notices, (), None, self.unused_suppressions)


@dataclass(frozen=True)
class Report:
    """The results of a run in discovery order, with findings sorted for reporters."""

    files: tuple[FileResult, ...]

    @cached_property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=lambda finding: finding.sort_key())

    @cached_property
    def notices(self) -> list[Notice]:
        unique = {(n.path, n.message): n for r in self.files for n in r.notices}
        return [unique[key] for key in sorted(unique)]

    @cached_property
    def unused_suppressions(self) -> list[tuple[str, Suppression]]:
        return [(r.path, s) for r in self.files for s in r.unused_suppressions]

    def failed(self, fail_on: Severity) -> bool:
        return any(f.severity >= fail_on for f in self.findings)


_NO_KUBECTL = (
    "kustomization: kubectl is not on PATH, so the rendered output is not checked; its files are checked one by one"
)
_REMOTE_KUSTOMIZATION = (
    "kustomization: names remote resources, which shmlint never fetches, so the rendered output is not checked; "
    "its files are checked one by one"
)
#: files per worker process: below this, starting a second process costs more than it saves
PARALLEL_MIN_FILES = 400
#: keys that hold shell in GitHub Actions and GitLab CI; a file without any is not CI YAML
_CI_KEYS = re.compile(r"^[ \t-]*(run|script|before_script|after_script)[ \t]*:", re.MULTILINE)


class Engine:
    """Checks files with one set of settings; holds no state between files."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._extra_signals = _configured_signal_pattern(settings.signals)

    @cached_property
    def context(self) -> CheckContext:
        """The rules' view of the settings and catalog, built on the first file with a workload or a problem."""
        from shmlint.checks.context import CheckContext

        return CheckContext(self.settings)

    # -- entry points ----------------------------------------------------------------------------------------

    def check_paths(self, paths: Iterable[Path], jobs: int | None = None) -> Report:
        """Check everything below ``paths``; results keep discovery order whatever the parallelism.

        Results are slimmed (no file text, no parser nodes) so that memory stays flat on large trees and results
        cross process boundaries cheaply. Processes are used only when there are enough files to pay for them.
        """
        candidates, rendered = self.render(list(discover(paths, self.settings.exclude)))
        workers = min(jobs or os.cpu_count() or 1, max(1, len(candidates) // PARALLEL_MIN_FILES))
        if workers <= 1:
            return Report(tuple(self.check_candidate(c).slim() for c in candidates) + rendered)
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        chunk = max(16, len(candidates) // (workers * 8))
        with ProcessPoolExecutor(workers, get_context("fork"), initializer=die_with_parent) as pool:
            task = functools.partial(_check_in_worker, self.settings)
            return Report(tuple(pool.map(task, candidates, chunksize=chunk)) + rendered)

    # -- renderers -------------------------------------------------------------------------------------------

    def render(self, candidates: list[Candidate]) -> tuple[list[Candidate], tuple[FileResult, ...]]:
        """Kustomizations and Helm charts whose renderer is installed are checked as rendered output instead of
        file by file; without the renderer their files are checked (or noted) as they are."""
        folders = sorted({c.path.parent for c in candidates if c.path.name in KUSTOMIZATION_NAMES})
        charts = sorted({c.path.parent for c in candidates if c.path.name == "Chart.yaml"})
        if not folders and not charts:
            return candidates, ()
        from shmlint import render

        results: list[FileResult] = []
        taken: set[Path] = set()
        for folder in folders:
            if not render.kustomize_available():
                results.append(FileResult(str(folder), notices=(Notice(str(folder), _NO_KUBECTL),)))
            elif render.remote_resources(folder):
                results.append(FileResult(str(folder), notices=(Notice(str(folder), _REMOTE_KUSTOMIZATION),)))
            else:
                members = [c for c in candidates if c.path.parent == folder and c.kind is FileKind.YAML]
                rendered = render.render_kustomization(folder)
                if rendered.text is not None:  # when rendering fails, its files are still checked one by one
                    taken.update(c.path for c in members)
                results.append(self.check_rendered(rendered, members))
        if charts and render.helm_available():
            for chart in charts:
                members = [c for c in candidates if chart in c.path.parents]
                taken.update(c.path for c in members)
                results.append(self.check_rendered(render.render_chart(chart), []))
        return [c for c in candidates if c.path not in taken], tuple(r.slim() for r in results)

    def check_rendered(self, rendered: Rendered, members: list[Candidate]) -> FileResult:
        if rendered.text is None:
            return self.invalid(rendered.label, f"could not be rendered: {rendered.error}")
        result = self.check_source(SourceText(rendered.label, rendered.text), FileKind.YAML, Path(rendered.label))
        originals = {
            w.name: w
            for member in members
            for w in sorted(self.check_candidate(member).workloads, key=lambda w: w.is_gpu_or_torch)
        }
        renderer = "helm template" if rendered.label.endswith("Chart.yaml") else "kubectl kustomize"
        findings = []
        for finding in result.findings:
            span = self.rendered_span(rendered, finding, originals)
            message = f"{finding.message} (found in the output of `{renderer} {rendered.root}`)"
            workload = replace(finding.workload, target=None) if finding.workload else None
            findings.append(replace(finding, span=span, message=message, workload=workload, fix=None))
        return FileResult(rendered.label, tuple(findings), result.notices)

    def rendered_span(self, rendered: Rendered, finding: Finding, originals: dict[str, Workload]) -> Span:
        """Where a person fixes what the rendered output shows: the same workload in the folder's own files, or
        the template Helm names; the kustomization (or Chart.yaml) itself when neither is known."""
        from shmlint import render

        name = finding.workload.name if finding.workload else ""
        if name in originals:
            return originals[name].span
        template = render.helm_source_at(rendered.text or "", finding.span.start, rendered.root)
        container = re.search(r'container "([^"]+)"', name)
        if template is not None and template.is_file():
            source = self.read_source(template)
            if source is not None and container is not None:
                pattern = rf"^\s*-?\s*(name:\s*[\"']?{re.escape(container.group(1))}\b)"
                match = re.search(pattern, source.text, re.MULTILINE)
                if match:
                    return source.span(match.start(1), match.end(1))
            return Span(str(template), 1, 1, 1, 1, 0, 0)
        return Span(rendered.label, 1, 1, 1, 1, 0, 0)

    def check_candidate(self, candidate: Candidate) -> FileResult:
        display = str(candidate.path)
        if candidate.error is not None:
            return self.invalid(display, candidate.error)
        try:
            data = self.read(candidate.path)
            source = SourceText.from_bytes(display, data)
        except InputError as exc:
            return self.invalid(display, str(exc))
        return self.check_source(source, candidate.kind, candidate.path)

    def check_source(self, source: SourceText, kind: FileKind, path: Path) -> FileResult:
        """Check text already in memory (also used for stdin and by the fixer to re-check its output)."""
        if kind is FileKind.DOCKERFILE or _ignores_file(source.text):
            return FileResult(source.path, source=source)
        try:
            workloads, notices = self.extract(source, kind, path)
        except _Invalid as exc:
            result = self.invalid(source.path, exc.message, exc.line, exc.column, exc.offset, source)
            findings, unused = self.suppress(list(result.findings), source)
            return FileResult(source.path, tuple(findings), source=source, unused_suppressions=tuple(unused))
        raw: list[Finding] = []
        if workloads:  # most files hold none: they never load the rules, the catalog or the hint reader
            from shmlint.checks import run_checks
            from shmlint.hints import with_hints

            workloads, hint_errors = with_hints(source, workloads)
            raw = [self.invalid_hint(evidence, why) for evidence, why in hint_errors if self.settings.enabled("SHM000")]
            raw += [f for w in workloads for f in run_checks(w, self.context) if not _ignored_by(w, f)]
        findings, unused = self.suppress(self.path_ignores(raw, path), source)
        findings = _only_applicable_fixes(findings, source)
        return FileResult(source.path, tuple(findings), tuple(notices), tuple(workloads), source, tuple(unused))

    def invalid_hint(self, evidence: Evidence, why: str) -> Finding:
        return self.context.finding("SHM000", f"unreadable dataloader hint: {why}", evidence.span, None)

    def suppress(self, findings: list[Finding], source: SourceText) -> tuple[list[Finding], list[Suppression]]:
        """(findings the file's ``shmlint: ignore[...]`` comments leave, comments that matched nothing)."""
        if "shmlint:" not in source.text:  # most files: the suppression reader is never loaded
            return findings, []
        from shmlint.catalog import lookup
        from shmlint.suppress import apply_suppressions, find_suppressions

        found = find_suppressions(source, lambda word: rule.code if (rule := lookup(word)) else None)
        return apply_suppressions(findings, found)

    def path_ignores(self, findings: list[Finding], path: Path) -> list[Finding]:
        ignored = self.settings.ignored_for(path)
        return [f for f in findings if f.code not in ignored] if ignored else findings

    # -- reading ---------------------------------------------------------------------------------------------

    def read(self, path: Path) -> bytes:
        try:
            info = os.stat(path)
            if stat.S_ISDIR(info.st_mode):
                raise InputError("is a folder, not a file")
            if not stat.S_ISREG(info.st_mode):
                raise InputError("not a regular file (a FIFO, socket or device is never read)")
            if info.st_size > self.settings.max_file_bytes:
                raise InputError(
                    f"file is {info.st_size:,} bytes, above the limit of {self.settings.max_file_bytes:,} "
                    f"(max-file-size)"
                )
            with open(path, "rb") as handle:
                return handle.read(self.settings.max_file_bytes + 1)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}") from None

    def invalid(
        self, path: str, message: str, line: int = 1, column: int = 1, offset: int = 0, source: SourceText | None = None
    ) -> FileResult:
        if not self.settings.enabled("SHM000"):
            return FileResult(path, source=source)
        end = offset
        span = Span(path, line, column, line, column, offset, end)
        finding = self.context.finding("SHM000", message, span, None)
        return FileResult(path, (finding,), source=source)

    # -- parsing and extraction ------------------------------------------------------------------------------

    def interesting(self, text: str) -> bool:
        if not self.settings.prefilter:
            return True
        lowered = text.lower()
        if any(word in lowered for word in PREFILTER_WORDS):
            return True
        return self._extra_signals is not None and self._extra_signals.search(text) is not None

    def extract(self, source: SourceText, kind: FileKind, path: Path) -> tuple[list[Workload], list[Notice]]:
        if kind is FileKind.YAML:
            return self.extract_yaml(source, path)
        if not self.interesting(source.text):
            return [], []
        from shmlint.extract.commandline import extract_commands
        from shmlint.parsers import embedded

        masks: dict[FileKind, Callable[[str], str]] = {
            FileKind.SHELL: lambda text: text,
            FileKind.MAKEFILE: embedded.mask_makefile,
            FileKind.MARKDOWN: embedded.mask_markdown,
        }
        return extract_commands(source, masks[kind](source.text), self.settings.signals), []

    def extract_yaml(self, source: SourceText, path: Path) -> tuple[list[Workload], list[Notice]]:
        from shmlint.parsers.yamlnodes import YamlError, check_syntax, compose

        if has_helm_actions(source.text):
            return [], [self.template_notice(source, path)]
        wanted = self.interesting(source.text) or self.has_override(path)
        try:
            if not wanted:  # no signal: the syntax is all that can be reported
                check_syntax(source)
                return [], []
            documents = compose(source)
        except YamlError as exc:
            if has_template_marks(source.text):
                return [], [self.template_notice(source, path)]
            raise _Invalid(f"invalid YAML: {exc.message}", exc.line, exc.column, exc.offset) from None
        return self.workloads_from_yaml(source, path, documents), []

    def workloads_from_yaml(self, source: SourceText, path: Path, documents: list) -> list[Workload]:
        signals = self.settings.signals
        if may_be_compose(path.name, source.text):
            from shmlint.extract import compose as compose_files

            if compose_files.is_compose(source.path, documents):
                return compose_files.extract_compose(
                    source, documents, signals, base_dir=path.parent, read_file=self.read_source
                )
        if _CI_KEYS.search(source.text):
            from shmlint.parsers.embedded import mask_ci_yaml

            ci_mask = mask_ci_yaml(source, documents)
            if ci_mask is not None:
                from shmlint.extract.commandline import extract_commands

                return extract_commands(source, ci_mask, signals)
        from shmlint.extract.kubernetes import extract_kubernetes

        return extract_kubernetes(source, documents, signals)

    def has_override(self, path: Path) -> bool:
        """A default compose file with an override beside it: the override may hold the signals."""
        return path.name in COMPOSE_DEFAULT_FILES and any((path.parent / n).is_file() for n in COMPOSE_OVERRIDE_FILES)

    def read_source(self, path: Path) -> SourceText | None:
        try:
            return SourceText.from_bytes(str(path), self.read(path))
        except InputError:
            return None

    def template_notice(self, source: SourceText, path: Path) -> Notice:
        chart = chart_root(path)
        if chart is not None:
            return Notice(
                str(chart),
                "Helm chart: its templates are not plain YAML, so they are not checked; lint the rendered output "
                f"with `helm template {chart} | shmlint check - --stdin-filename rendered.yaml`",
            )
        return Notice(
            source.path,
            "template (Helm/Jinja markers): not plain YAML, not checked; lint its rendered output instead",
        )


def _ignores_file(text: str) -> bool:
    if "shmlint:" not in text:
        return False
    from shmlint.suppress import ignores_file

    return ignores_file(text)


def _ignored_by(workload: Workload, finding: Finding) -> bool:
    """The workload's own ``shmlint.io/ignore`` annotation or label names the rule (code, any case, or slug)."""
    names = {name.upper() for name in workload.ignored_codes} | set(workload.ignored_codes)
    return finding.code in names or finding.slug in names


def _only_applicable_fixes(findings: list[Finding], source: SourceText) -> list[Finding]:
    """A finding is fixable only when its fixer can write the fix in this file (not for a TrainJob's trainer, a
    compose service that joins another's IPC namespace, a mapping other services merge in...)."""
    if not any(f.fix for f in findings):
        return findings
    from shmlint.fix.edits import edits_for

    return [f if f.fix is None or edits_for(f, source) else replace(f, fix=None) for f in findings]


def parse_error(source: SourceText, kind: FileKind, *, strict: bool = False) -> str | None:
    """Why the text does not parse, whatever rules are selected (the fixer's guard); None when it does.

    ``strict`` also refuses what kubectl and docker compose reject although YAML composes it (a duplicate key)."""
    if kind is not FileKind.YAML:
        return None  # shell, Makefile and Markdown text is tokenised, never rejected
    from shmlint.parsers.yamlnodes import YamlError, compose, key_problem

    try:
        documents = compose(source)
        problem = key_problem(documents) if strict else None
    except YamlError as exc:
        problem = exc
    return f"line {problem.line}, column {problem.column}: {problem.message}" if problem else None


def _configured_signal_pattern(signals: Signals) -> re.Pattern[str] | None:
    """What configuration added to the built-in signals, as one pattern for the prefilter."""
    defaults = Signals()
    extra = [p for p in signals.torch_images if p not in defaults.torch_images]
    extra += [p for p in signals.torch_commands if p not in defaults.torch_commands]
    extra += [
        fnmatch.translate(g).removesuffix(r"\Z") for g in signals.gpu_resources if g not in defaults.gpu_resources
    ]
    return re.compile("|".join(f"(?:{p})" for p in extra), re.IGNORECASE | re.MULTILINE) if extra else None


def die_with_parent() -> None:
    """Pool workers end when the main process does, even by SIGKILL: no orphan goes on writing files."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent was already gone before the request took effect
        os._exit(1)


@functools.lru_cache(maxsize=1)
def _worker_engine(settings: Settings) -> Engine:
    """One engine per worker process, built on its first task (compiled patterns are reused)."""
    return Engine(settings)


def _check_in_worker(settings: Settings, candidate: Candidate) -> FileResult:
    return _worker_engine(settings).check_candidate(candidate).slim()


class _Invalid(Exception):
    def __init__(self, message: str, line: int, column: int, offset: int) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.offset = message, line, column, offset
