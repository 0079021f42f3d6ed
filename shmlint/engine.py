"""One file in, findings out: extract workloads -> hints -> rules -> suppress -> fixability.

The engine knows every stage below it and nothing above it: discovery, rendering and processes are the runner's
(``shmlint.runner``), fixing is ``shmlint.fix``'s.
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import TYPE_CHECKING

from shmlint.configured_patterns import PatternTimeout, file_budget
from shmlint.discover import Candidate, FileKind, StrPath
from shmlint.extract.dispatch import Extraction, UnparsableInput, extract_file, not_text
from shmlint.model import Notice
from shmlint.prefilter import Prefilter
from shmlint.results import FileResult
from shmlint.settings import Settings
from shmlint.source import InputError, SourceText, Span, read_bytes

if TYPE_CHECKING:  # a file with no workload never loads the rules
    from shmlint.model import Evidence, Finding, Workload
    from shmlint.need import Knowledge
    from shmlint.project.index import ProjectIndex
    from shmlint.rules.rule import RuleContext

#: what the report says of a file on which shmlint itself failed (the red-team bench counts it as an internal error)
DEFECT = "shmlint could not check this file: internal error"
MAX_DEFECT_CHARS = 200


class Engine:
    """Checks files with one set of settings; holds no state between files."""

    def __init__(self, settings: Settings, project: ProjectIndex | None = None) -> None:
        """``project``: the run's cross-file facts (``runner.project_for``): the KServe runtimes, the kustomize
        fragments, the tree a container's code is followed in and the files beside each checked one (None: the
        file alone, as for stdin, with the files beside it read as they are)."""
        self.settings, self.project = settings, project
        self.runtimes = project.runtimes if project is not None else None
        self.project_texts: dict[str, str | None] = {}  # files read for containers, shared by this engine's files
        self.prefilter = Prefilter(settings.signals, enabled=settings.prefilter)

    @cached_property
    def extraction(self) -> Extraction:
        from shmlint.project.index import ProjectFiles  # the runner has imported it

        max_bytes = self.settings.max_file_size
        files = self.project.tree(max_bytes) if self.project is not None else ProjectFiles(None, max_bytes)
        starts = self.project.starts if self.project is not None else ()  # a file alone: nothing else starts it
        return Extraction(self.settings.signals, self.prefilter, files, self.runtimes, starts=starts)

    @cached_property
    def context(self) -> RuleContext:
        """The rules' view of the settings and catalog, built on the first file with a workload or a problem."""
        from shmlint.rules.rule import RuleContext

        return RuleContext(self.settings)

    def check_candidate(self, candidate: Candidate) -> FileResult:
        display = str(candidate.path)
        if candidate.error is not None:  # a walk's notice (no file read), or SHM000: a folder not read, a link out
            said = FileResult(display, notices=(Notice(display, candidate.error),), checked=False)
            return said if candidate.notice else self.invalid(display, candidate.error)
        data = None
        try:
            data = read_bytes(candidate.path, self.settings.max_file_size)
            source = SourceText.from_bytes(display, data)
        except InputError as exc:  # a template that is not text is not checked, as one that does not parse
            return not_text(candidate.kind, display, data, str(exc)) or self.invalid(display, str(exc))
        try:
            return self.check_source(source, candidate.kind, candidate.path)
        except Exception as exc:  # noqa: BLE001 - one file's defect must not drop a tree's whole report
            # the file's SHM000 (the command line also says so on stderr and exits 2); every other file is still
            # checked and reported, and --output written. check_source itself raises: fuzzing sees every defect
            why = f"{type(exc).__name__}: {str(exc)[:MAX_DEFECT_CHARS]}"
            return self.invalid(display, f"{DEFECT} ({why}); please report it", source=source)

    def check_source(self, source: SourceText, kind: FileKind, path: StrPath) -> FileResult:
        """Check text already in memory (also used for stdin and by the fixer to re-check its output)."""
        try:
            with file_budget():
                return self._check_source(source, kind, path)
        except PatternTimeout as exc:  # in a rule: the file is reported, as for one in extraction
            return self.invalid(source.path, str(exc), source=source)

    def _check_source(self, source: SourceText, kind: FileKind, path: StrPath) -> FileResult:
        if _ignores_file(source.text):
            return FileResult(source.path, source=source)
        fragments = self.project.fragments if self.project is not None else None
        if fragments is not None and (note := fragments.note(os.fspath(path))) is not None:  # judged in its overlay
            return FileResult(source.path, notices=(Notice(source.path, note),), source=source)
        raw: list[Finding] = []
        workloads: list[Workload] = []
        notices: list[Notice] = []
        hint_findings: list[Finding] = []
        try:
            workloads, notices = extract_file(source, kind, path, self.extraction)
            if workloads:  # most files hold none: they never load the rules, the catalog or the hint reader
                workloads, hint_findings = self.hints(source, workloads)
                workloads = self.needs(workloads)
        except UnparsableInput as exc:
            raw = list(self.invalid(source.path, exc.message, exc.line, exc.column, exc.offset).findings)
        except PatternTimeout as exc:  # a configured pattern (signals or the tier model's data) ran out of time
            workloads, hint_findings = [], []
            raw = list(self.invalid(source.path, str(exc)).findings)
        if workloads:
            raw += hint_findings + self.rules(workloads)
        findings, unused = self.suppress(raw, source, path)
        undecided: tuple[Finding, ...] = ()
        if self.settings.undecided == "summary" and any(f.undecided for f in findings):
            undecided = tuple(f for f in findings if f.undecided)  # counted in the summary, never listed or fixed
            findings = [f for f in findings if not f.undecided]
        findings = _fixable_only(findings, source)
        return FileResult(
            source.path, tuple(findings), tuple(notices), tuple(workloads), source, tuple(unused), None, undecided
        )

    def hints(self, source: SourceText, workloads: list[Workload]) -> tuple[list[Workload], list[Finding]]:
        """Workloads with their declared DataLoader attached; an unreadable hint is an SHM000 finding."""
        from shmlint.hints import with_hints
        from shmlint.rules.shm000_invalid_input import RULE as INVALID_INPUT

        workloads, errors = with_hints(source, workloads)
        if not self.settings.enabled(INVALID_INPUT.code):
            return workloads, []
        return workloads, [self.invalid_hint(evidence, why) for evidence, why in errors]

    @cached_property
    def knowledge(self) -> Knowledge:
        """The tier model's data with what configuration adds, read on the first file with a workload."""
        from shmlint.need import builtin, configured

        s = self.settings
        return configured(
            builtin(),
            needs_images=s.shm_images,
            needs_commands=s.shm_commands,
            free_images=s.shm_free_images,
            free_commands=s.shm_free_commands,
        )

    def needs(self, workloads: list[Workload]) -> list[Workload]:
        """Each workload with its need for /dev/shm, decided from its evidence (and the files it runs, where names
        leave it undecided) before any rule reads it."""
        from shmlint.project.decide import with_needs

        return with_needs(workloads, self.knowledge, self.project, self.project_texts, self.settings.signals)

    def rules(self, workloads: list[Workload]) -> list[Finding]:
        from shmlint.rules.registry import run_rules

        return [finding for workload in workloads for finding in run_rules(workload, self.context)]

    def suppress(self, findings: list[Finding], source: SourceText, path: StrPath) -> tuple[list[Finding], list]:
        """Annotations, per-file-ignores and comments, in one stage (loaded only when one of them can apply)."""
        path_ignores = self.settings.ignored_for(path)
        annotated = any(f.workload is not None and f.workload.ignored_codes for f in findings)
        if "shmlint:" not in source.text and not path_ignores and not annotated:
            return findings, []
        from shmlint.catalog import lookup
        from shmlint.suppress import suppress

        return suppress(findings, source, path_ignores, lambda w: r.code if (r := lookup(w)) else None)

    def invalid_hint(self, evidence: Evidence, why: str) -> Finding:
        from shmlint.rules.shm000_invalid_input import RULE as INVALID_INPUT

        return self.context.report(INVALID_INPUT, f"unreadable dataloader hint: {why}", evidence.span, None)

    def invalid(
        self, path: str, message: str, line: int = 1, column: int = 1, offset: int = 0, source: SourceText | None = None
    ) -> FileResult:
        """A file's own problem as an SHM000 finding (unless SHM000 is switched off)."""
        from shmlint.rules.shm000_invalid_input import RULE as INVALID_INPUT

        if not self.settings.enabled(INVALID_INPUT.code):
            return FileResult(path, source=source)
        span = Span(path, line, column, line, column, offset, offset)
        return FileResult(path, (self.context.report(INVALID_INPUT, message, span, None),), source=source)


def _ignores_file(text: str) -> bool:
    if "shmlint:" not in text:
        return False
    from shmlint.suppress import ignores_file

    return ignores_file(text)


def _fixable_only(findings: list[Finding], source: SourceText) -> list[Finding]:
    """A fix is offered only when its format's fixer can write it in this file (not for a TrainJob's trainer, a
    compose service that joins another's IPC namespace, a mapping other services merge in...)."""
    if not any(f.fix for f in findings):
        return findings
    from shmlint.edits import can_write

    return [f if f.fix is None or can_write(f, source) else f._replace(fix=None) for f in findings]
