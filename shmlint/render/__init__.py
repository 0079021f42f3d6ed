"""Rendering kustomizations (``kubectl kustomize``) and Helm charts (``helm template``) so their output is checked,
and mapping the findings in the output back to the files a person edits.

The ``render`` setting decides: ``never`` checks every unit file by file (the same answer on every machine),
``auto`` renders what the installed renderers can render offline, ``always`` makes every unit that cannot be
rendered an error. Every unit gets a ``RenderRecord`` (rendered with which version, or not and why), so the
difference a renderer makes is in the report. Nothing is ever fetched: ``graph`` refuses a kustomization whose
graph names anything remote, ``links`` refuses a chart with a link out of the repository (Helm would read it),
and ``process`` runs the renderer without network, environment or flags from the input. Rendered findings point where a person fixes them: Helm marks each document with
``# Source: chart/templates/x.yaml``; for kustomize the workload with the same identity (or renamed by a
``namePrefix``/``nameSuffix``) is looked up in the folder's own files and the resource files its graph names. A
base rendered under several overlays is one finding at the base, naming every output that showed it.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint.discover import KUSTOMIZATION_NAMES, Candidate, FileKind
from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.render.graph import walk
from shmlint.render.links import chart_blocker
from shmlint.render.process import Sandbox, find_program, find_sandbox
from shmlint.results import FileResult, RenderRecord, RenderStatus
from shmlint.severity import Severity
from shmlint.source import InputError, SourceText, Span, read_bytes
from shmlint.visible import quoted

if TYPE_CHECKING:
    from shmlint.engine import Engine
    from shmlint.extract.dispatch import Extraction
    from shmlint.model import Finding, Workload, WorkloadId

KUSTOMIZE, HELM = "kubectl kustomize", "helm template"
_HELM_SOURCE = LazyRegex(r"^# Source: (\S+)", re.MULTILINE)
_UNRENDERED = {"note": None, "warning": Severity.WARNING, "error": Severity.ERROR}


@dataclass(frozen=True)
class Unit:
    """A kustomization folder or a Helm chart, as discovered (``root`` keeps the path the user gave)."""

    root: Path
    unit: str  # "kustomization" or "Helm chart"
    renderer: str
    members: tuple[Candidate, ...]  # the candidates its rendered output stands for

    @property
    def label(self) -> str:
        """The path findings name when no better file is known: the kustomization file or Chart.yaml."""
        if self.renderer == HELM:
            return str(self.root / "Chart.yaml")
        return str(next((self.root / n for n in KUSTOMIZATION_NAMES if (self.root / n).is_file()), self.root))


@dataclass(frozen=True)
class Rendered:
    """A renderer's output for one unit, or why there is none."""

    unit: Unit
    text: str | None
    error: str | None = None
    sources: tuple[Path, ...] = ()  # resource files outside the unit's folder its output comes from (kustomize)


class Tool(NamedTuple):
    """A renderer that can run here: its command (absolute program path first), version and sandbox."""

    command: tuple[str, ...]
    version: str
    sandbox: Sandbox

    def render(self, unit: Unit, sources: tuple[Path, ...] = ()) -> Rendered:
        # ``--`` ends the options and the path is absolute: a folder named ``--load-restrictor=...`` stays a path
        outcome = self.sandbox.run([*self.command, "--", str(unit.root.absolute())])
        if outcome.error is not None:
            return Rendered(unit, None, f"`{unit.renderer} {unit.root}` failed: {outcome.error}")
        return Rendered(unit, outcome.text, None, sources)


class Renderers:
    """The renderers of one run, found and asked for their version once, run in one sandbox; holds no state
    beyond what it found, and lives only as long as ``render_units``."""

    def __init__(self, home: Path, max_bytes: int) -> None:
        self._home, self._max_bytes = home, max_bytes
        self._found: dict[str, Tool | str] = {}

    @cached_property
    def sandbox(self) -> Sandbox | None:
        """Probed on the first unit that needs a renderer, once."""
        prefix = find_sandbox()
        return Sandbox(prefix, self._home, self._max_bytes) if prefix is not None else None

    def find(self, renderer: str) -> Tool | str:
        """The renderer, or why it cannot run here."""
        if renderer not in self._found:
            self._found[renderer] = self._probe(renderer)
        return self._found[renderer]

    def _probe(self, renderer: str) -> Tool | str:
        program_name, subcommand = renderer.split()
        program = find_program(program_name)
        if program is None:
            return f"{program_name} is not on PATH"
        sandbox = self.sandbox
        if sandbox is None:
            return "the network cannot be cut off here (no `unshare --net`), and shmlint never runs a renderer online"
        if program_name == "kubectl":
            answer = sandbox.run([program, "version", "--client", "-o", "json"])
            version = _kustomize_version(answer.text or "")
        else:
            answer = sandbox.run([program, "version", "--short"])
            version = (answer.text or "").strip().splitlines()[0] if (answer.text or "").strip() else ""
        return Tool((program, subcommand), version or "(version unknown)", sandbox)


def _kustomize_version(text: str) -> str:
    try:
        data = json.loads(text)
        return f"{data['kustomizeVersion']} (kubectl {data['clientVersion']['gitVersion']})"
    except (ValueError, KeyError, TypeError):
        return ""


def find_units(candidates: list[Candidate], components: frozenset[str] = frozenset()) -> list[Unit]:
    """Kustomization folders named by a kustomization file among the candidates (not ``components``, which are
    rendered only through the kustomizations that name them), and Helm charts named by their Chart.yaml or by any
    template below them (a pre-commit hook passes only the changed template). A chart inside another chart's
    ``charts/`` folder is rendered as part of that chart."""
    from shmlint.discover import chart_root

    paths = {c.path: Path(c.path) for c in candidates}  # candidates carry strings; units are found with Paths
    folders = sorted(
        {
            paths[c.path].parent
            for c in candidates
            if paths[c.path].name in KUSTOMIZATION_NAMES and os.path.normpath(paths[c.path].parent) not in components
        }
    )
    roots = {paths[c.path].parent for c in candidates if paths[c.path].name == "Chart.yaml"}
    roots |= {
        Path(root)
        for c in candidates
        if "templates" in paths[c.path].parts and (root := chart_root(c.path)) is not None
    }
    charts = sorted(r for r in roots if not any(p in roots for p in r.parents))
    units = [
        Unit(
            f,
            "kustomization",
            KUSTOMIZE,
            tuple(c for c in candidates if paths[c.path].parent == f and c.kind is FileKind.YAML),
        )
        for f in folders
    ]
    units += [Unit(r, "Helm chart", HELM, tuple(c for c in candidates if r in paths[c.path].parents)) for r in charts]
    return units


def render_units(
    engine: Engine, candidates: list[Candidate], components: frozenset[str] = frozenset()
) -> tuple[list[Candidate], tuple[FileResult, ...]]:
    """Units that render are checked as rendered output instead of file by file (the candidates they stand for are
    left out of the list returned); every unit gets a result with its ``RenderRecord``. ``components``: kustomize
    component folders, never rendered alone."""
    units = find_units(candidates, components)
    checked = frozenset(os.path.realpath(c.path) for c in candidates if c.error is None)  # what the run reads
    if not units:
        return candidates, ()
    settings = engine.settings
    results: list[tuple[Unit, FileResult, RenderStatus]] = []
    taken: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="shmlint-render-") as home:
        renderers = Renderers(Path(home), settings.max_file_size)
        for unit in units:
            result, status = _render_unit(engine, renderers, unit, checked)
            # a kustomization that did not render is checked file by file; a chart's templates never can be
            if status is RenderStatus.RENDERED or (status is RenderStatus.FAILED and unit.renderer == HELM):
                taken.update(c.path for c in unit.members)
            results.append((unit, result, status))
    return [c for c in candidates if c.path not in taken], tuple(r.slim() for r in _one_per_location(results))


def _one_per_location(results: list[tuple[Unit, FileResult, RenderStatus]]) -> list[FileResult]:
    """A file reached through several rendered units (a base under its overlays) gives one finding per place and
    message, whose detail names every unit whose output showed it; it stays with the first unit's result."""
    shown_by: dict[tuple[str, str, int, int, str], list[Unit]] = {}
    for unit, result, status in results:
        if status is RenderStatus.RENDERED:
            for finding in result.findings:
                shown_by.setdefault(_location(finding), []).append(unit)
    merged = []
    for _, result, status in results:
        if status is not RenderStatus.RENDERED:
            merged.append(result)
            continue
        findings = []
        for finding in result.findings:
            units = shown_by.pop(_location(finding), None)
            if units is None:  # said already, by the first unit that showed it
                continue
            found = "found in the output of " + ", ".join(f"`{u.renderer} {u.root}`" for u in units)
            # in the detail, not the one-line message: three overlays' paths made it hundreds of characters long
            detail = f"{finding.detail} ({found})" if finding.detail else found[0].upper() + found[1:]
            findings.append(finding._replace(detail=detail))
        merged.append(result._replace(findings=tuple(findings)))
    return merged


def _location(finding: Finding) -> tuple[str, str, int, int, str]:
    return (finding.code, finding.span.path, finding.span.line, finding.span.column, finding.message)


def said_once(
    results: tuple[FileResult, ...], rendered: tuple[FileResult, ...]
) -> tuple[tuple[FileResult, ...], tuple[FileResult, ...]]:
    """Every problem said once. A rendered finding that points where a file checked on its own has a finding of
    the same rule is dropped: the file's own finding stands, and it carries the fix. A chart left unrendered is
    said by its record: the note each of its templates gives is dropped."""
    own = {_place(f) for r in results for f in r.findings}
    if own:
        rendered = tuple(
            r._replace(findings=tuple(f for f in r.findings if _place(f) not in own)) if r.findings else r
            for r in rendered
        )
    charts = {
        r.render.path
        for r in rendered
        if r.render is not None and r.render.renderer == HELM and r.render.status is RenderStatus.NOT_RENDERED
    }
    if charts:
        results = tuple(
            r._replace(notices=tuple(n for n in r.notices if n.path not in charts)) if r.notices else r for r in results
        )
    return results, rendered


def _place(finding: Finding) -> tuple[str, str, int, int]:
    return (finding.code, finding.span.path, finding.span.line, finding.span.column)


def _render_unit(
    engine: Engine, renderers: Renderers, unit: Unit, checked: frozenset[str]
) -> tuple[FileResult, RenderStatus]:
    settings = engine.settings
    graph = (
        walk(unit.root, settings.max_file_size) if unit.renderer == KUSTOMIZE and settings.render != "never" else None
    )
    blocker = graph.blocker if graph else None
    if unit.renderer == HELM and settings.render != "never":
        blocker = chart_blocker(unit.root)
    tool = _why_not(renderers, unit, settings.render, blocker)
    path, unit_kind, renderer = str(unit.root), unit.unit, unit.renderer
    level = Severity.ERROR if settings.render == "always" else _UNRENDERED[settings.unrendered]
    if isinstance(tool, str):
        asks = unit.renderer == HELM and _asks_for_accelerators(unit, engine)
        record = RenderRecord(path, unit_kind, renderer, RenderStatus.NOT_RENDERED, "", tool, level, asks)
        return FileResult(path, render=record, checked=False), record.status  # a unit, not a file
    rendered = tool.render(unit, graph.files if graph else ())
    broken = None
    if graph and rendered.text is None:
        broken = _broken_file(graph.files, checked, settings.max_file_size, engine.extraction)
    if broken is not None:  # the file's own check says it (SHM000 or a note); a second SHM000 would repeat it
        named = quoted(os.path.relpath(broken, unit.root))
        why = f"{unit.label}: reads {named}, which is not valid YAML (its own check says where)"
        record = RenderRecord(path, unit_kind, renderer, RenderStatus.NOT_RENDERED, "", why, level)
        return FileResult(path, render=record, checked=False), record.status
    if rendered.text is None:
        record = RenderRecord(path, unit_kind, renderer, RenderStatus.FAILED, tool.version, rendered.error or "")
        result = engine.invalid(unit.label, f"could not be rendered: {rendered.error}")
        return result._replace(render=record, checked=False), record.status
    record = RenderRecord(path, unit_kind, renderer, RenderStatus.RENDERED, tool.version)
    return check_rendered(engine, rendered)._replace(render=record), record.status


def _asks_for_accelerators(unit: Unit, engine: Engine) -> bool:
    """Whether a chart's YAML files (its templates and values, as discovered) write an accelerator resource the
    signal data knows (``nvidia.com/gpu``, a configured one too) as a key, as a request or limit does: said of a
    chart left unrendered, so a clean run is not read as one that judged its GPU workloads. A comment, a README or
    a node label (``nvidia.com/gpu.present``) is no request. Each file is read up to the size limit."""
    keys = _resource_keys(engine.extraction.signals.gpu_resources)
    for member in unit.members:
        if not member.path.endswith((".yaml", ".yml", ".tpl")):
            continue
        try:
            text = read_bytes(member.path, engine.settings.max_file_size).decode("utf-8", "replace")
        except InputError:
            continue
        if keys.search(text) is not None:
            return True
    return False


def _resource_keys(globs: tuple[str, ...]) -> re.Pattern[str]:
    """A YAML key at the start of a line (after its indent or a list dash, maybe quoted) that is one of the
    resource names (``nvidia.com/mig-*`` globs: the name's characters where the star is)."""
    names = "|".join(
        re.escape(glob.split("*", 1)[0]) + (r"[\w./-]{0,64}" if "*" in glob else "") for glob in globs if glob
    )
    return re.compile(rf"^[ \t-]{{0,64}}[\"']?(?:{names})[\"']?[ \t]*:", re.MULTILINE | re.IGNORECASE)


def _broken_file(files: tuple[Path, ...], checked: frozenset[str], max_bytes: int, run: Extraction) -> Path | None:
    """The first resource or patch file of a kustomization graph that is not YAML, when a render failed, that this
    run checks (``checked``: real paths) and whose check is SHM000 (``dispatch.broken_is_shm000``): that is why, and
    that file's own finding says it. Any other (outside the run, a note of its own, only too large to read here)
    leaves the failure SHM000, so the unit's workloads are never left unjudged in silence."""
    from shmlint.extract.dispatch import broken_is_shm000
    from shmlint.parsers.yamlnodes import YamlError, check_syntax

    for file in files:
        if os.path.realpath(file) not in checked:
            continue
        try:
            text = read_bytes(file, max_bytes).decode("utf-8")
        except (InputError, UnicodeDecodeError):
            continue  # too large, unreadable or not UTF-8: its own check says so, and kustomize may say otherwise
        source = SourceText(str(file), text)
        if not broken_is_shm000(source, file, run):
            continue  # its own check is a note, which does not fail the gate: the failed render must
        try:
            check_syntax(source)
        except YamlError:
            return file
    return None


def _why_not(renderers: Renderers, unit: Unit, mode: str, blocker: str | None) -> Tool | str:
    """The renderer to run, or why this unit is not rendered (``blocker``: why its kustomization graph must not)."""
    if mode == "never":
        return "render is set to never"
    if blocker is not None:
        return blocker
    return renderers.find(unit.renderer)


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


def check_rendered(engine: Engine, rendered: Rendered) -> FileResult:
    """Findings in the rendered output, each pointing where a person fixes it; no fix is offered (the output is
    not a file anyone edits). The unit that showed a finding is named later, by ``_one_per_location``."""
    unit = rendered.unit
    text = rendered.text or ""
    result = engine.check_source(SourceText(unit.label, text), FileKind.YAML, Path(unit.label))
    members = unit.members if unit.renderer == KUSTOMIZE else ()
    known = {c.path for c in members}
    sources = (*members, *(Candidate(str(p), FileKind.YAML, True) for p in rendered.sources if str(p) not in known))
    originals = {
        w.id: w
        for source in sources
        for w in sorted(engine.check_candidate(source).workloads, key=lambda w: w.is_gpu_or_torch)
    }
    findings = []
    for finding in result.findings:
        origin = _origin(finding.workload, originals)
        if origin is not None and finding.workload is not None:
            message = finding.message.replace(finding.workload.name, origin.name, 1)
            detail = finding.detail.replace(finding.workload.name, origin.name, 1)
            findings.append(
                finding._replace(span=origin.span, message=message, detail=detail, workload=origin, fix=None)
            )
        else:
            findings.append(finding._replace(span=_rendered_span(engine, rendered, finding), fix=None))
    return FileResult(unit.label, tuple(findings), result.notices, undecided=result.undecided)


def _origin(workload: Workload | None, originals: dict[WorkloadId, Workload]) -> Workload | None:
    """The workload in the unit's files (its folder and the resource files its graph names) that a rendered one
    comes from: the same identity, or the only one that differs just by a name the rendered name contains
    (kustomize's ``namePrefix`` and ``nameSuffix``)."""
    if workload is None:
        return None
    if workload.id in originals:
        return originals[workload.id]
    rendered = workload.id
    renamed = [
        w
        for i, w in originals.items()
        if i.name and i.name in rendered.name and i._replace(name=rendered.name) == rendered
    ]
    return renamed[0] if len(renamed) == 1 else None


def _rendered_span(engine: Engine, rendered: Rendered, finding: Finding) -> Span:
    """Where a person fixes what the rendered output shows when no file of the unit has the workload: the container
    in the template Helm names, else the kustomization (or Chart.yaml) itself."""
    workload = finding.workload
    template = helm_source_at(rendered.text or "", finding.span.start, rendered.unit.root)
    if template is not None and template.is_file():
        container = workload.id.container if workload is not None else ""
        located = _container_in(template, container, engine.settings.max_file_size) if container else None
        return located or Span(str(template), 1, 1, 1, 1, 0, 0)
    return Span(rendered.unit.label, 1, 1, 1, 1, 0, 0)


def _container_in(template: Path, container: str, limit: int) -> Span | None:
    """The ``name: <container>`` line of a template, found as text (templates are not YAML until rendered)."""
    try:
        source = SourceText.from_bytes(str(template), read_bytes(template, limit))
    except InputError:
        return None
    pattern = rf"^\s*-?\s*(name:\s*[\"']?{re.escape(container)}\b)"
    match = re.search(pattern, source.text, re.MULTILINE)
    return source.span(match.start(1), match.end(1)) if match else None
