"""What a file and a run produced: each file's ``FileResult`` (findings, notices, the settings that judged it), what
became of a kustomization or chart (``RenderRecord``), and the run's ``Report`` that reporters and the exit code
read. The stages' own values (workloads, findings, fixes) are in ``shmlint.model``.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from shmlint.model import Finding, Notice, Suppression, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.severity import Severity
from shmlint.source import SourceText

if TYPE_CHECKING:
    from typing import Protocol


class RenderStatus(StrEnum):
    """What became of a kustomization or chart; only NOT_RENDERED leaves something unchecked without a finding."""

    RENDERED = "rendered"
    NOT_RENDERED = "not-rendered"  # a kustomization's files are then checked one by one; a chart's templates not
    FAILED = "failed"  # the renderer ran and failed: an SHM000 finding says so


class RenderRecord(NamedTuple):
    """What happened to one kustomization or Helm chart, so the report can say which renderers ran (with versions)
    and which units were not rendered and why: the difference a missing renderer makes is visible, not silent."""

    path: str  # the kustomization folder or the chart folder
    unit: str  # "kustomization" or "Helm chart"
    renderer: str  # "kubectl kustomize" or "helm template"
    status: RenderStatus
    version: str = ""  # the renderer's version when it ran
    reason: str = ""  # why it was not rendered, or the renderer's first error line
    severity: Severity | None = None  # NOT_RENDERED: how much it counts (``unrendered``); None is a note
    #: a chart left unrendered whose files name an accelerator resource (``nvidia.com/gpu``): where a workload
    #: this run could not judge most likely runs
    accelerators: bool = False

    def describe(self) -> str:
        """For a unit not rendered, one line for people: 'Helm chart not rendered: helm is not on PATH; its
        templates are not checked (...)' (a rendered unit is counted in the summary, a failed one is an SHM000)."""
        if self.unit == "kustomization":
            return f"{self.unit} not rendered: {self.reason}; its files are checked one by one"
        asking = ", which ask for accelerators," if self.accelerators else ""
        return (
            f"{self.unit} not rendered: {self.reason}; its templates{asking} are not checked but for plain YAML ones "
            f"(lint its output with `helm template {self.path} | shmlint check - --stdin-filename rendered.yaml`)"
        )


if TYPE_CHECKING:

    class JudgedWith(Protocol):
        """What a result says of the settings that judged it (``shmlint.settings.Settings``, one layer up)."""

        @property
        def fail_on(self) -> Severity: ...
        @property
        def show_source(self) -> bool: ...
        @property
        def max_file_size(self) -> int: ...


class FileResult(NamedTuple):
    """Everything one file produced; ``slim()`` drops the text before results are kept or sent between processes."""

    path: str
    findings: tuple[Finding, ...] = ()
    notices: tuple[Notice, ...] = ()
    workloads: tuple[Workload, ...] = ()
    source: SourceText | None = None  # not compared: the text the rest was found in
    unused_suppressions: tuple[Suppression, ...] = ()
    render: RenderRecord | None = None  # set on the result that stands for a kustomization or chart
    # findings about an accelerator whose software's /dev/shm need is not known, kept out of ``findings`` by the
    # ``undecided: summary`` setting: counted in the summary, listed by ``--undecided=show``
    undecided: tuple[Finding, ...] = ()
    # the settings that judged the file (set by ``shmlint.runner`` and ``shmlint.session``): its fail-on, how it is shown; not compared
    settings: JudgedWith | None = None
    checked: bool = True  # False for what a folder walk says (a .gitignore's note): no file was read, none counted

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileResult) and self._compared() == other._compared()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._compared())

    def _compared(self) -> tuple[Any, ...]:
        return (*self[:4], *self[5:8])

    def says_nothing(self) -> bool:
        """No finding, notice, unused suppression, render record or undecided finding: the result of a file that
        is only counted."""
        return not (self.findings or self.notices or self.unused_suppressions or self.render or self.undecided)

    def slim(self, settings: JudgedWith | None = None) -> FileResult:
        """Without the file text and the workloads: what reporters need, cheap to keep and to pickle; with the
        settings that judged it when they are given (one new result, not a second for ``_replace``)."""
        return FileResult(
            self.path,
            self.findings,
            self.notices,
            (),
            None,
            self.unused_suppressions,
            self.render,
            self.undecided,
            self.settings if settings is None else settings,
            self.checked,
        )


class Report:
    """The results of a run in discovery order, with findings sorted for reporters."""

    def __init__(self, files: tuple[FileResult, ...], baselined: int = 0) -> None:
        self.files = files
        self.baselined = baselined  # findings a baseline accepted, left out of ``files``: the summary says so

    # each worked out when first asked: a run's report is often only the files of a larger one (``session``)

    @cached_property
    def checked(self) -> int:
        """How many files were checked: the results, less the notes a folder walk gave (no file was read for them)."""
        return sum(1 for r in self.files if r.checked)

    @cached_property
    def findings(self) -> list[Finding]:
        """Each finding once: one place said alike from several files (a compose service's ``ipc: host`` that four
        files ``extends``, audit76d) is one line, at its most severe."""
        found = sorted((f for r in self.files for f in r.findings), key=lambda f: (f.sort_key(), -f.severity))
        return [f for at, f in enumerate(found) if at == 0 or found[at - 1].sort_key() != f.sort_key()]

    @cached_property
    def notices(self) -> list[Notice]:
        unique = {(n.path, n.message): n for r in self.files for n in r.notices}
        return [unique[key] for key in sorted(unique)]

    @cached_property
    def unused_suppressions(self) -> list[tuple[str, Suppression]]:
        return [(r.path, s) for r in self.files for s in r.unused_suppressions]

    @cached_property
    def renders(self) -> list[RenderRecord]:
        return [r.render for r in self.files if r.render is not None]

    @cached_property
    def undecided(self) -> int:
        """Not listed: the summary counts them."""
        return sum(len(r.undecided) for r in self.files)

    def undecided_note(self) -> str | None:
        """One line for the findings the ``undecided: summary`` setting kept out of the list, for every format:
        never silent, never a failure (a GPU alone is no evidence that the software uses /dev/shm)."""
        if not self.undecided:
            return None
        return (
            f"{self.undecided} finding(s) not listed: their software's /dev/shm need is undecided (`--undecided=show`)"
        )

    @property
    def unrendered(self) -> list[RenderRecord]:
        return [r for r in self.renders if r.status is RenderStatus.NOT_RENDERED]

    def failed(self, fail_on: Severity) -> bool:
        return any(f.severity >= fail_on for f in self.findings) or any(
            r.severity is not None and r.severity >= fail_on for r in self.unrendered
        )

    def failed_by_file(self, default: Severity = Severity.WARNING) -> bool:
        """Each file judged by the ``fail-on`` of the settings that judged it (the configuration that applies to
        it; ``default`` for a result without them), so the answer does not depend on the order the paths were given
        in. A unit left unrendered counts when ``unrendered`` (or ``render: always``) gave it a severity."""

        def failing(result: FileResult, severity: Severity) -> bool:
            return severity >= (result.settings.fail_on if result.settings is not None else default)

        return any(failing(r, f.severity) for r in self.files for f in r.findings) or any(
            failing(r, r.render.severity)
            for r in self.files
            if r.render is not None and r.render.status is RenderStatus.NOT_RENDERED and r.render.severity is not None
        )
