"""Fixing many files: each file is checked, fixed, diffed or written on its own, in worker processes when there
are enough files to pay for them; outcomes come back in discovery order."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from shmlint.discover import Candidate
from shmlint.engine import Engine
from shmlint.extract.kserve import RuntimeIndex
from shmlint.parallel import map_in_order
from shmlint.runner import kserve_runtimes
from shmlint.settings import Settings


@dataclass(frozen=True)
class FileOutcome:
    """What fixing one file did, small enough to come back from a worker process."""

    path: str
    applied: int = 0  # findings fixed
    changed: bool = False  # the fixes change the file (written with --write)
    diff: str = ""  # the unified diff, when showing rather than writing
    problems: tuple[str, ...] = ()  # fixes dropped, with why
    error: str | None = None  # the file could not be written


def fix_file(
    settings: Settings,
    candidate: Candidate,
    *,
    write: bool,
    unsafe: bool,
    runtimes: RuntimeIndex | None = None,
    roots: tuple[Path, ...] = (),
) -> FileOutcome:
    """``roots``: the checked folders and files; a write never follows a link out of them."""
    from shmlint.fix.apply import fix_source

    engine = _engine(settings, runtimes)
    checked = engine.check_candidate(candidate)
    path = str(candidate.path)
    if checked.source is None or not any(f.fixable for f in checked.findings):
        return FileOutcome(path)
    result = fix_source(engine, checked.source, candidate.kind, candidate.path, unsafe=unsafe, checked=checked)
    if not result.changed:
        return FileOutcome(path, problems=result.problems)
    if write:
        from shmlint.fix.write import WriteError, write_atomic

        try:
            write_atomic(Path(candidate.path), result.source.encode(result.text), result.source.encode(), roots)
        except WriteError as exc:
            return FileOutcome(path, problems=result.problems, error=str(exc))
        return FileOutcome(path, len(result.applied), True, problems=result.problems)
    from shmlint.fix.diff import unified

    bom = "\ufeff" if result.source.bom else ""  # so that git apply and patch accept a hunk at line 1
    diff = unified(Path(candidate.path).as_posix(), bom + result.source.text, bom + result.text)  # for git apply
    return FileOutcome(path, len(result.applied), True, diff, result.problems)


@functools.lru_cache(maxsize=1)
def _engine(settings: Settings, runtimes: RuntimeIndex | None) -> Engine:
    return Engine(settings, runtimes)


def fix_candidates(
    jobs: list[tuple[Settings, Candidate]],
    *,
    write: bool,
    unsafe: bool,
    processes: int | None = None,
    roots: tuple[Path, ...] = (),
) -> Iterator[FileOutcome]:
    if write:
        from shmlint.fix.write import remove_stale_temp_files

        remove_stale_temp_files({Path(os.path.realpath(candidate.path)).parent for _, candidate in jobs})
    groups: dict[Settings, list[Candidate]] = {}
    for settings, candidate in jobs:
        groups.setdefault(settings, []).append(candidate)
    runtimes = {settings: kserve_runtimes(settings, members) for settings, members in groups.items()}
    task = functools.partial(_fix_job, runtimes, write=write, unsafe=unsafe, roots=roots)
    yield from map_in_order(task, jobs, processes)


def _fix_job(
    runtimes: dict[Settings, RuntimeIndex | None],
    job: tuple[Settings, Candidate],
    *,
    write: bool,
    unsafe: bool,
    roots: tuple[Path, ...],
) -> FileOutcome:
    settings, candidate = job
    return fix_file(settings, candidate, write=write, unsafe=unsafe, runtimes=runtimes[settings], roots=roots)
