"""Fixing many files: each file is checked, fixed, diffed or written on its own, in worker processes when there
are enough files to pay for them; outcomes come back in discovery order."""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from shmlint.discover import Candidate
from shmlint.engine import Engine
from shmlint.extract.kserve import RuntimeIndex
from shmlint.model import Finding
from shmlint.parallel import map_in_order
from shmlint.project.index import ProjectIndex
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
    remaining: tuple[Finding, ...] = ()  # the findings left after the fixes (in the fixed text when it changed)
    failing: int = 0  # of those, how many are at or above the file's ``fail-on``
    hidden: int = 0  # of those, how many have an unsafe fix that was not asked for (``--unsafe-fixes``)
    unwritten: dict[str, Any] | None = None  # ``--write``: what ``remaining`` etc. are if the write fails

    def not_written(self, error: str) -> FileOutcome:
        """The outcome when the fixed text could not be written: nothing fixed, every finding left."""
        return replace(self, applied=0, changed=False, error=error, **(self.unwritten or {}))


def left_over(settings: Settings, findings: tuple[Finding, ...], unsafe: bool) -> dict[str, Any]:
    """What the findings left after fixing count for: the run's exit status and the ``--unsafe-fixes`` hint."""
    from shmlint.model import Applicability

    return {
        "remaining": tuple(f._replace(workload=None) for f in findings),  # small to send back between processes
        "failing": sum(1 for f in findings if f.severity >= settings.fail_on),
        "hidden": 0 if unsafe else sum(1 for f in findings if f.fix and f.fix.applicability is Applicability.UNSAFE),
    }


def reason(finding: Finding) -> str:
    """One applied fix for people: ``SHM001 Pod/x, container "train": give /dev/shm 8 GiB (the default fix-size)``."""
    who = finding.workload.name if finding.workload is not None else finding.span.path
    return f"{finding.code} {who}: {finding.fix.title if finding.fix else ''}"


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
    return _fix_group([(settings, candidate)], {settings: runtimes}, write=write, unsafe=unsafe, roots=roots)[0]


#: files a worker fixes before it writes them: their temp files are then synced together (``fix.write.prepare``)
WRITE_GROUP = 16


def _fix_group(
    group: list[tuple[Settings, Candidate]],
    runtimes: dict[Settings, RuntimeIndex | None],
    *,
    write: bool,
    unsafe: bool,
    roots: tuple[Path, ...],
) -> list[FileOutcome]:
    """Each file fixed, then (``write``) every fixed file written (``_fix_then_write``), SIGTERM unwinding the
    writing as Ctrl-C does."""
    with _terminated_as_interrupted() if write else contextlib.nullcontext():
        return _fix_then_write(group, runtimes, write=write, unsafe=unsafe, roots=roots)


@contextlib.contextmanager
def _terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM (a cancelled CI job, ``kill``) raises ``KeyboardInterrupt``, so that the temp files of the files
    being written are removed on the way out instead of staying beside them; the default is put back after. Left
    alone where SIGTERM is already handled, or off the main thread (where no handler can be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _fix_then_write(
    group: list[tuple[Settings, Candidate]],
    runtimes: dict[Settings, RuntimeIndex | None],
    *,
    write: bool,
    unsafe: bool,
    roots: tuple[Path, ...],
) -> list[FileOutcome]:
    """Each file fixed, then (``write``) every fixed file written: all temp files first, then each synced and
    renamed in turn, so that one sync of the file system carries them all. A file another program wrote to while
    its group waited is fixed again at once on its own (the wait must not cost the fix)."""
    from shmlint.fix.write import FileChanged, WriteError, abandon, commit, prepare, write_atomic

    outcomes: list[FileOutcome] = []
    pending = []
    try:
        for settings, candidate in group:
            outcome, result = _fixed(
                settings, candidate, write=write, unsafe=unsafe, runtimes=runtimes[settings], roots=roots
            )
            if result is None:
                outcomes.append(outcome)
                continue
            try:
                pending.append((len(outcomes), settings, candidate, prepare(Path(candidate.path), *result, roots)))
            except WriteError as exc:
                outcome = outcome.not_written(str(exc))
            outcomes.append(outcome)
        while pending:
            index, settings, candidate, prepared = pending[0]
            try:
                commit(prepared)  # which removes its own temp file, whatever stops it
            except FileChanged:
                outcome, result = _fixed(
                    settings, candidate, write=True, unsafe=unsafe, runtimes=runtimes[settings], roots=roots
                )
                try:
                    if result is not None:
                        write_atomic(Path(candidate.path), *result, roots)
                    outcomes[index] = outcome
                except WriteError as exc:
                    outcomes[index] = outcome.not_written(str(exc))
            except WriteError as exc:
                outcomes[index] = outcomes[index].not_written(str(exc))
            finally:
                pending.pop(0)
    finally:
        for *_, prepared in pending:  # an exception left these unwritten: no temp file stays behind
            abandon(prepared)
    return outcomes


def _fixed(
    settings: Settings,
    candidate: Candidate,
    *,
    write: bool,
    unsafe: bool,
    runtimes: RuntimeIndex | None,
    roots: tuple[Path, ...],
) -> tuple[FileOutcome, tuple[bytes, bytes] | None]:
    """The outcome of fixing the file (with its diff, when showing rather than writing), and, when writing a file
    the fixes change, its fixed and original bytes. ``roots`` are where containers' code is followed, as check
    does, so fix sees the findings check reports."""
    from shmlint.fix.apply import fix_source

    engine = _engine(settings, runtimes, ProjectIndex.for_paths(roots))
    checked = engine.check_candidate(candidate)
    path = str(candidate.path)
    unchanged = left_over(settings, checked.findings, unsafe)
    if checked.source is None and checked.findings:  # a folder not entered, a file not read: said, never passed
        return FileOutcome(path, problems=(f"not fixed: {checked.findings[0].message}",), **unchanged), None
    if checked.source is None or not any(f.fixable for f in checked.findings):
        return FileOutcome(path, **unchanged), None
    result = fix_source(engine, checked.source, candidate.kind, candidate.path, unsafe=unsafe, checked=checked)
    if not result.changed:
        return FileOutcome(path, problems=result.problems, **unchanged), None
    after = engine.check_source(result.source.with_text(result.text), candidate.kind, candidate.path)
    done = FileOutcome(
        path,
        len(result.applied),
        True,
        problems=result.problems,
        **left_over(settings, after.findings, unsafe),
    )
    if write:
        return replace(done, unwritten=unchanged), (result.source.encode(result.text), result.source.encode())
    from shmlint.fix.diff import unified

    bom = "\ufeff" if result.source.bom else ""  # so that git apply and patch accept a hunk at line 1
    note = "; ".join(map(reason, result.applied))  # why each fix writes its size, in the first hunk's header
    diff = unified(Path(candidate.path).as_posix(), bom + result.source.text, bom + result.text, note=note)
    return replace(done, diff=diff), None


@functools.lru_cache(maxsize=1)
def _engine(settings: Settings, runtimes: RuntimeIndex | None, project: ProjectIndex | None = None) -> Engine:
    return Engine(settings, runtimes, project)


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

        folders = {Path(os.path.realpath(candidate.path)).parent for _, candidate in jobs}
        remove_stale_temp_files(folders, started=time.time())
    groups: dict[Settings, list[Candidate]] = {}
    for settings, candidate in jobs:
        groups.setdefault(settings, []).append(candidate)
    runtimes = {settings: kserve_runtimes(settings, members) for settings, members in groups.items()}
    task = functools.partial(_fix_group, runtimes=runtimes, write=write, unsafe=unsafe, roots=roots)
    batches = [jobs[start : start + WRITE_GROUP] for start in range(0, len(jobs), WRITE_GROUP)]
    for outcomes in map_in_order(task, batches, processes, weight=len(jobs)):
        yield from outcomes
