"""A run over paths: discover -> render what renders -> check each file (in worker processes for large trees).

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
from shmlint.model import FileResult, Report
from shmlint.settings import Settings
from shmlint.source import InputError, read_bytes

if TYPE_CHECKING:
    from shmlint.extract.kserve import Runtime, RuntimeIndex
    from shmlint.project.index import ProjectIndex

#: a word of every KServe runtime kind (``extract.kserve.RUNTIME_KINDS``): a file without it holds no runtime, and
#: a run over such files does not load the KServe code
RUNTIME_MARK = b"ServingRuntime"
#: what a file that may need the run's runtimes names
ISVC_MARK = "InferenceService"
#: a kustomization or a chart is near (a template is how a pre-commit hook names a chart): the renderer is loaded
_UNIT_NAMES = ("Chart.yaml", *KUSTOMIZATION_NAMES)


def check_paths(settings: Settings, paths: Iterable[StrPath], jobs: int | None = None) -> Report:
    """Check everything below ``paths``. Results are slimmed (no file text) so memory stays flat on large trees
    and results cross process boundaries cheaply."""
    paths = list(paths)
    candidates = list(discover(paths, settings))
    from shmlint.parallel import map_in_order
    from shmlint.project.index import ProjectIndex

    project = ProjectIndex.for_paths(paths)  # where containers' code is followed: nothing is read until then

    if any(os.path.basename(c.path) in _UNIT_NAMES or "templates" in path_parts(c.path) for c in candidates):
        from shmlint.render import render_units, said_once

        runtimes = kserve_runtimes(settings, candidates)  # rendered output is checked before the files are
        candidates, rendered = render_units(_engine(settings, runtimes, project), candidates)
        results = tuple(map_in_order(functools.partial(_check, settings, runtimes, project), candidates, jobs))
        if rendered:
            results, rendered = said_once(results, rendered)
        return Report((*results, *rendered))
    marked = tuple(map_in_order(functools.partial(_check_marked, settings, project), candidates, jobs))
    return Report(_completed_by_runtimes(settings, candidates, marked, project))


def _check_marked(settings: Settings, project: ProjectIndex, candidate: Candidate) -> tuple[FileResult, bool, bool]:
    """A file checked without the run's KServe runtimes, and whether its text names a ServingRuntime (it may
    define some) and an InferenceService (its check may need them)."""
    result = _engine(settings, None, project).check_candidate(candidate)
    text = result.source.text if result.source is not None else ""
    return result.slim(), RUNTIME_MARK.decode() in text, ISVC_MARK in text


def _completed_by_runtimes(
    settings: Settings,
    candidates: list[Candidate],
    marked: tuple[tuple[FileResult, bool, bool], ...],
    project: ProjectIndex,
) -> tuple[FileResult, ...]:
    """The results, with each file that names an InferenceService checked again with the ServingRuntimes the run
    found (KServe merges a runtime into an InferenceService from any file): the same findings as reading the
    runtimes first, without reading every file twice when, as in most trees, there is no KServe at all."""
    results = [result for result, _, _ in marked]
    defining = [c for c, (_, defines, _) in zip(candidates, marked, strict=True) if defines]
    using = [index for index, (_, _, uses) in enumerate(marked) if uses]
    if not defining or not using:
        return tuple(results)
    runtimes = kserve_runtimes(settings, defining)
    if runtimes is not None:
        engine = Engine(settings, runtimes, project)
        for index in using:
            results[index] = engine.check_candidate(candidates[index]).slim()
    return tuple(results)


def kserve_runtimes(settings: Settings, candidates: list[Candidate]) -> RuntimeIndex | None:
    """The ServingRuntimes among the files, which complete InferenceServices in any of them (KServe merges the
    runtime's pod spec into the predictor's). Only files that name ``ServingRuntime`` are parsed for this."""
    found: list[Runtime] = []
    for candidate in candidates:
        if candidate.kind is not FileKind.YAML or candidate.error is not None:
            continue
        try:
            data = read_bytes(candidate.path, settings.max_file_bytes)
        except InputError:
            continue
        if RUNTIME_MARK not in data:
            continue
        result = Engine(settings).check_candidate(candidate)
        if result.source is not None and result.workloads:
            from shmlint.extract.kserve import runtimes_in
            from shmlint.parsers.yamlnodes import compose

            found += runtimes_in(result.source, compose(result.source), result.workloads)
    if not found:
        return None
    from shmlint.extract.kserve import RuntimeIndex

    return RuntimeIndex(tuple(found))


@functools.lru_cache(maxsize=1)
def _engine(settings: Settings, runtimes: RuntimeIndex | None, project: ProjectIndex | None = None) -> Engine:
    """One engine per process, built on its first file (compiled patterns are reused)."""
    return Engine(settings, runtimes, project)


def _check(
    settings: Settings, runtimes: RuntimeIndex | None, project: ProjectIndex, candidate: Candidate
) -> FileResult:
    return _engine(settings, runtimes, project).check_candidate(candidate).slim()
