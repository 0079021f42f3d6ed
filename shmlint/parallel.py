"""Worker processes for large trees, shared by ``check`` and ``fix``: results in input order on every platform.

Fork is used only where it is the platform's safe default (Linux); macOS (where fork is unsafe with some system
libraries) and Windows (which has no fork) start workers with spawn. Where no process pool can be made at all
(no working ``sem_open``, as on some serverless runtimes), the work runs in this process.

A worker never outlives the main process: each one watches a handle that the operating system closes when its
parent ends, however it ends (SIGKILL included), and exits at once, so no orphan goes on writing files. On Linux
the kernel's parent-death signal is asked for as well.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Item = TypeVar("Item")
Result = TypeVar("Result")

#: files per worker process: below this, starting a second process costs more than it saves
PARALLEL_MIN_FILES = 400
#: batches of items each worker takes, one at a time, as it finishes the last: the files of a folder cost alike and
#: folders differ (a batch of Terraform costs several of YAML), so with few large batches one worker could be left
#: with the last for a tenth of the run while the other waited (one run of 10,000 files: 5,625 files against 4,300)
CHUNKS_PER_WORKER = 16
_WINDOWS_MAX_WORKERS = 61


def start_method() -> str:
    """Fork where it is the safe default, spawn everywhere else."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


def worker_count(items: int, jobs: int | None = None) -> int:
    """As many workers as ``jobs`` (default: the CPUs) that each get at least ``PARALLEL_MIN_FILES`` items, and
    no more than Windows can wait on (``ProcessPoolExecutor`` refuses more than 61 there)."""
    workers = min(jobs or os.cpu_count() or 1, max(1, items // PARALLEL_MIN_FILES))
    return min(workers, _WINDOWS_MAX_WORKERS) if sys.platform == "win32" else workers


class Mapper(Protocol):
    """``map(task, items)`` in order, in this process or in a run's worker processes."""

    def __call__(self, task: Callable[[Item], Result], items: Sequence[Item]) -> Iterator[Result]: ...


def map_in_order(
    task: Callable[[Item], Result], items: Sequence[Item], jobs: int | None = None, *, weight: int | None = None
) -> Iterator[Result]:
    """``map(task, items)``, in worker processes when there are enough items to pay for them.

    ``task`` and the items cross process boundaries, so they must be picklable: a module-level function (or a
    ``functools.partial`` of one) and plain values. ``weight``: how many files the items stand for, when each
    item is a group of files.
    """
    with workers(len(items) if weight is None else weight, jobs) as run:
        yield from run(task, items)


@contextmanager
def workers(weight: int, jobs: int | None = None) -> Iterator[Mapper]:
    """A ``Mapper`` for a run over ``weight`` files, in worker processes when there are enough files to pay for
    them: started once, for each phase of the run that maps over its files (a run reads every file for the
    cross-file facts, then checks each one), and ended with the block."""
    count = worker_count(weight, jobs)
    pool = _pool(count) if count > 1 else None
    if pool is None:
        yield _in_process
        return
    with pool:

        def in_pool(task: Callable[[Item], Result], items: Sequence[Item]) -> Iterator[Result]:
            return pool.map(task, items, chunksize=max(8, len(items) // (count * CHUNKS_PER_WORKER)))

        yield in_pool


def _in_process(task: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[Result]:
    return map(task, items)


def _pool(workers: int) -> ProcessPoolExecutor | None:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    try:
        return ProcessPoolExecutor(workers, get_context(start_method()), initializer=start_worker)
    except (ImportError, OSError, NotImplementedError):  # no sem_open here: one process does the work
        return None


#: allocations between two young collections in a worker (Python's default is 700): a check makes and drops tens
#: of thousands of nodes a file, almost none in a cycle, so most collections found nothing to free
WORKER_GC_THRESHOLD = 5000


def start_worker() -> None:
    """Pool worker initializer: die with the parent (``die_with_parent``); leave what the parent built before the
    fork out of this worker's collections (``gc.freeze``: the collector never walks them, so it does not copy the
    parent's pages for that; reference counts still write to the objects the worker touches),
    and collect young objects less often."""
    import gc

    gc.freeze()
    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])
    die_with_parent()


def die_with_parent() -> None:
    """End this worker when the main process ends, by any means and on any platform."""
    _ask_kernel_for_death_signal()
    exit_when_parent_ends()


def exit_when_parent_ends() -> None:
    """Watch the parent from a daemon thread and exit the moment it is gone.

    ``multiprocessing`` gives every child a sentinel of its parent: the read end of a pipe only the parent holds
    open (POSIX), or a handle to the parent process (Windows). Either becomes ready when the parent ends, also
    when it ended before this call, so no polling and no race.
    """
    import multiprocessing
    import threading
    from multiprocessing.connection import wait

    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="shmlint-parent-watch", daemon=True).start()


def _ask_kernel_for_death_signal() -> None:
    """Linux only: SIGKILL from the kernel when the parent dies, before this process runs another line."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
