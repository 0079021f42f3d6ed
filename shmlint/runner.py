"""A run over paths in two phases: discover the files and build the run's ``ProjectIndex`` (the cross-file facts:
KServe runtimes, kustomize fragments, where containers' code is), then render what renders and check each file
with the index as data (in worker processes for large trees).

Above the engine: it decides which files the engine sees and in how many processes, and keeps results in
discovery order whatever the parallelism.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from shmlint.discover import KUSTOMIZATION_NAMES, Candidate, FileKind, StrPath, discover, path_parts
from shmlint.engine import Engine
from shmlint.project.build_marks import BUILD_KINDS, may_build
from shmlint.results import FileResult, RenderStatus, Report
from shmlint.settings import Settings
from shmlint.source import InputError, read_bytes

if TYPE_CHECKING:
    from shmlint.parallel import Mapper
    from shmlint.project.index import ProjectIndex, Walk
    from shmlint.project.runtimes import Runtime, RuntimeIndex

#: a word of every KServe runtime kind (``extract.kserve.RUNTIME_KINDS``): a file without it holds no runtime, and
#: a run over such files does not load the KServe code
RUNTIME_MARK = b"ServingRuntime"
#: a kustomization or a chart is near (a template is how a pre-commit hook names a chart): the renderer is loaded
_UNIT_NAMES = ("Chart.yaml", *KUSTOMIZATION_NAMES)


def check_paths(settings: Settings, paths: Iterable[StrPath], jobs: int | None = None) -> Report:
    """Check everything below ``paths``. Results are slimmed (no file text) so memory stays flat on large trees
    and results cross process boundaries cheaply; each carries ``settings``."""
    paths = list(paths)
    candidates = list(discover(paths, settings))
    from shmlint.parallel import workers

    with workers(len(candidates), jobs) as run:  # one set of processes reads the files, then checks them
        project = project_for(settings, paths, candidates, run)
        rendered: tuple[FileResult, ...] = ()
        if any(_in_unit(c.path) for c in candidates):
            from shmlint.render import render_units

            whole = project._replace(fragments=None)  # a patch is read whole where a rendered finding maps to it
            components = project.fragments.components if project.fragments is not None else frozenset()
            candidates, rendered = render_units(_engine(settings, whole), candidates, components)
            candidates = _judged_elsewhere(candidates, rendered, project)
        results = _checked(run, _Check(settings, project), candidates)
    if rendered:
        from shmlint.render import said_once

        results, rendered = said_once(results, rendered)
        rendered = tuple(result._replace(settings=settings) for result in rendered)
    return Report((*results, *rendered))


#: the kinds whose reader costs a process much to load: Terraform's is the HCL library and its grammar (about 0.1 s,
#: more than checking 500 Kubernetes files), loaded by each process that parses a .tf file
_ONE_BATCH_KINDS = frozenset({FileKind.TERRAFORM})
#: the largest share of a run those files may have to be checked in one batch: a parsed .tf file costs about 20
#: YAML files, so even a batch of one sixteenth, each file parsed, keeps the worker that takes it busy for about as
#: long as the other one checking the rest; most .tf files hold no container and are not parsed at all
_ONE_BATCH_SHARE = 16


def _checked(run: Mapper, check: _Check, candidates: list[Candidate]) -> tuple[FileResult, ...]:
    """Every candidate checked, in discovery order. The files whose reader is costly to load are one batch, taken
    first by one worker (which loads that reader alone) while the others start on the rest."""
    together = [c for c in candidates if c.kind in _ONE_BATCH_KINDS]
    if not together or len(together) * _ONE_BATCH_SHARE > len(candidates):
        said = run(check, candidates)
    else:
        batch = run(functools.partial(_check_each, check), [together])  # submitted first: one worker takes it whole
        rest = run(check, [c for c in candidates if c.kind not in _ONE_BATCH_KINDS])
        apart = iter(next(batch))
        said = (next(apart) if c.kind in _ONE_BATCH_KINDS else next(rest) for c in candidates)
    return tuple(
        result if result is not None else FileResult(c.path, settings=check.settings)
        for c, result in zip(candidates, said, strict=True)
    )


def _check_each(check: _Check, candidates: list[Candidate]) -> list[FileResult | None]:
    return [check(candidate) for candidate in candidates]


def project_for(
    settings: Settings,
    paths: Iterable[StrPath],
    candidates: list[Candidate],
    run: Mapper | None = None,
    *,
    whole: bool = True,
) -> ProjectIndex:
    """The run's cross-file facts, found before any file is checked: where containers' code is followed (read
    only when a container names it), the KServe ServingRuntimes that complete InferenceServices in any file, the
    images the files build (by name: ``project.builds``), and the kustomize patches and components that are judged
    through the overlays that use them. ``run``: where the files are read for them (the run's worker processes;
    default: this process). ``whole``: a part of a repository looks images up in the whole's builds (the editor's
    checks, one each time a buffer changes, do not walk the repository: ``server.analysis``)."""
    from shmlint.project.index import ProjectFiles, ProjectIndex, Walk

    runtime_files, build_files = _marked(settings, candidates, run)
    project = ProjectIndex.for_paths(paths)
    walk = None
    if whole and _part_of_a_repository(paths, project.roots):  # a part: the whole's builds
        walk = Walk(settings.exclude, settings.pattern_root, settings.respect_gitignore, settings.force_exclude)
    files = ProjectFiles(project.roots, settings.max_file_size, whole=walk)
    project = project._replace(runtimes=kserve_runtimes(settings, runtime_files), files=files)
    if whole and any(c.kind is FileKind.DOCKERFILE for c in candidates):  # most runs: no image's own start (the
        # editor's checks do not walk the repository, and leave it unjudged)
        project = project._replace(starts=_starts(settings, candidates, project.roots, walk))
    if build_files:  # most runs: no file builds an image, and the build reader is not loaded
        from shmlint.project.builds import find_builds

        project = project._replace(builds=find_builds(build_files, project.roots, settings.max_file_size))
    folders = {os.path.dirname(os.path.normpath(c.path)) or "." for c in candidates if _near_kustomization(c)}
    if not folders:  # most runs: the kustomize reader is not loaded
        return project
    from shmlint.project.kustomize import find_fragments

    fragments = find_fragments(sorted(folders))
    return project._replace(fragments=fragments) if fragments.owners or fragments.components else project


def _starts(
    settings: Settings, candidates: list[Candidate], roots: tuple[str, ...], walk: Walk | None
) -> tuple[str, ...]:
    """Where the repository starts a container (``ProjectIndex.starts``): in the run's files, or for a run that
    checks a part, in the whole's (walked as ``check .`` at the top would)."""
    from shmlint.project.start_marks import first_start, repository_start

    if walk is None:
        found = first_start(candidates, settings.max_file_size)
    else:
        found = repository_start(roots, walk, settings.max_file_size)
    return () if found is None else (found,)


def _part_of_a_repository(paths: Iterable[StrPath], roots: tuple[str, ...]) -> bool:
    """Whether a path given is a file or folder below the top of a git work tree (what a hook or a CI job names):
    then the rest of the repository is what the part is run with. A file alone in a folder that is no repository
    has no such whole (its folder is only where it was found), and is not walked for one."""
    if not any(os.path.lexists(os.path.join(root, ".git")) for root in roots):
        return False
    return any(os.path.realpath(path) not in roots for path in paths)


def _marked(
    settings: Settings, candidates: list[Candidate], run: Mapper | None
) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """One read of each file that may say something about others: the YAML files that name a KServe runtime, and
    the files that may build an image (path and kind; the build index reads them again, so their text is not
    held here)."""
    readable = [c for c in candidates if c.kind in BUILD_KINDS and c.error is None]
    paths = [c.path for c in readable]  # only the paths cross to the workers
    task = functools.partial(_marks, settings.max_file_size)
    marks = run(task, paths) if run is not None else map(task, paths)
    runtimes: list[Candidate] = []
    builds: list[tuple[str, str]] = []
    for candidate, (runtime, build) in zip(readable, marks, strict=True):
        if runtime and candidate.kind is FileKind.YAML:
            runtimes.append(candidate)
        if build:
            builds.append((candidate.path, candidate.kind.value))
    return runtimes, builds


def _marks(max_file_size: int, path: str) -> tuple[bool, bool]:
    """Whether a file names a KServe runtime (one that is YAML may hold it), and whether it may build an image
    (False, False when it cannot be read: its check says why)."""
    try:
        data = read_bytes(path, max_file_size)
    except InputError:
        return False, False
    return RUNTIME_MARK in data, may_build(data)


def _in_unit(path: str) -> bool:
    """A kustomization's or a chart's file (by its name), or one below a ``templates`` folder (a chart's, as a
    pre-commit hook names it). Asked of every file while the workers wait: the path is split only when it holds
    the word."""
    if path.endswith(_UNIT_NAMES) and os.path.basename(path) in _UNIT_NAMES:
        return True
    return "templates" in path and "templates" in path_parts(path)


def _near_kustomization(candidate: Candidate) -> bool:
    """A kustomization file, or a file named on its own beside one (a pre-commit hook names a changed patch)."""
    if candidate.kind is not FileKind.YAML or candidate.error is not None:
        return False
    if not candidate.explicit and not candidate.path.endswith(KUSTOMIZATION_NAMES):  # most files, without a split
        return False
    folder, name = os.path.split(candidate.path)
    if name in KUSTOMIZATION_NAMES:
        return True
    return candidate.explicit and any(os.path.isfile(os.path.join(folder, n)) for n in KUSTOMIZATION_NAMES)


def _judged_elsewhere(
    candidates: list[Candidate], rendered: tuple[FileResult, ...], project: ProjectIndex
) -> list[Candidate]:
    """The candidates left to check on their own: a patch or component file that a rendered kustomization applies
    is judged in that output, as the kustomization's own files are."""
    fragments = project.fragments
    if fragments is None or not fragments.owners:
        return candidates
    done = {
        os.path.normpath(r.render.path)
        for r in rendered
        if r.render is not None and r.render.status is RenderStatus.RENDERED
    }
    return [c for c in candidates if not any(owner in done for owner in fragments.of(c.path))]


def kserve_runtimes(settings: Settings, candidates: list[Candidate]) -> RuntimeIndex | None:
    """The ServingRuntimes among the files (those that name ``ServingRuntime``, ``_marked``), which complete
    InferenceServices in any of them (KServe merges the runtime's pod spec into the predictor's)."""
    found: list[Runtime] = []
    for candidate in candidates:
        result = Engine(settings).check_candidate(candidate)
        if result.source is not None and result.workloads:
            from shmlint.extract.kserve import runtimes_in
            from shmlint.parsers.yamlnodes import compose

            found += runtimes_in(result.source, compose(result.source), result.workloads)
    if not found:
        return None
    from shmlint.project.runtimes import RuntimeIndex

    return RuntimeIndex(tuple(found))


@functools.lru_cache(maxsize=1)
def _engine(settings: Settings, project: ProjectIndex) -> Engine:
    """One engine per process, built on its first file (compiled patterns are reused)."""
    return Engine(settings, project)


class _Check:
    """The check of one candidate with the run's settings and index. A worker process unpickles one for each batch
    of files and asks for its engine once: the engine's cache compares the settings and index it is asked with
    to those it was built with (two large tuples), which for every file cost more than checking most of them."""

    def __init__(self, settings: Settings, project: ProjectIndex) -> None:
        self.settings, self.project = settings, project

    def __reduce__(self) -> tuple[type[_Check], tuple[Settings, ProjectIndex]]:
        return _Check, (self.settings, self.project)  # never the engine

    @functools.cached_property
    def engine(self) -> Engine:
        return _engine(self.settings, self.project)

    def __call__(self, candidate: Candidate) -> FileResult | None:
        """The file's result as the report keeps it; None when it has nothing to say (most files), which the main
        process writes from the candidate: ten thousand results pickled back cost more than checking 500 files."""
        result = kept(self.settings, self.engine.check_candidate(candidate))
        return None if result.says_nothing() else result


def kept(settings: Settings, result: FileResult) -> FileResult:
    """The result as the report keeps it, with the settings that judged it (made where the file is checked, so
    that the main process does not remake ten thousand results after the workers end): without the file's text
    and workloads (slimmed), except the text of a file whose findings are shown with their source
    (``show-source``), which is then not read again."""
    if settings.show_source and result.findings and result.source is not None:
        return result.slim(settings)._replace(source=result.source)
    return result.slim(settings)
