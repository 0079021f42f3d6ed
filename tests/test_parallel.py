"""The process pool shared by ``check`` and ``fix`` on the routes other systems take: spawn (macOS, Windows), no
pool at all (no ``sem_open``), and a parent that dies without a word (the portable no-orphan guarantee)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import shmlint.parallel as parallel
from bench.corpus import flagged_k8s, generate
from shmlint.discover import discover
from shmlint.fix.run import fix_candidates
from shmlint.runner import check_paths
from shmlint.settings import Settings
from tests.support import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def test_fork_only_where_it_is_the_safe_default(monkeypatch) -> None:
    for platform, method in (("linux", "fork"), ("darwin", "spawn"), ("win32", "spawn"), ("freebsd14", "spawn")):
        monkeypatch.setattr(sys, "platform", platform)
        assert parallel.start_method() == method


def test_never_more_workers_than_windows_allows(monkeypatch) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(sys, "platform", "linux")
    assert parallel.worker_count(1000, jobs=96) == 96
    assert parallel.worker_count(10, jobs=96) == 10
    monkeypatch.setattr(sys, "platform", "win32")
    assert parallel.worker_count(1000, jobs=96) == 61


def _collector_state(_: int) -> tuple[int, bool]:
    import gc

    return gc.get_threshold()[0], gc.get_freeze_count() > 0


def test_workers_leave_the_parents_objects_out_of_their_collections(monkeypatch) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    assert set(parallel.map_in_order(_collector_state, range(4), jobs=2)) == {(parallel.WORKER_GC_THRESHOLD, True)}


@pytest.fixture
def spawned(monkeypatch) -> list[str]:
    """Pools start their workers with spawn, as on macOS and Windows; the list records each pool made."""
    made: list[str] = []

    def spawn() -> str:
        made.append("spawn")
        return "spawn"

    monkeypatch.setattr(parallel, "start_method", spawn)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 8)  # two real workers for a small tree
    return made


def report_key(tree: Path, jobs: int) -> list[tuple]:
    report = check_paths(Settings(undecided="show"), [tree], jobs=jobs)
    return [(r.path, tuple((f.code, f.span, f.message, f.fixable) for f in r.findings)) for r in report.files]


def test_check_with_spawned_workers_gives_the_same_report_in_the_same_order(tmp_path: Path, spawned) -> None:
    generate(tmp_path, 120)
    serial = report_key(tmp_path, jobs=1)
    assert not spawned
    in_workers = report_key(tmp_path, jobs=2)
    assert spawned == ["spawn"], "the check did not run in a spawn pool"
    assert in_workers == serial
    assert sum(bool(findings) for _, findings in serial) > 5


def test_fix_write_with_spawned_workers_writes_the_same_bytes(tmp_path: Path, spawned) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    flagged_k8s(one, 60)
    shutil.copytree(one, two)
    settings = Settings(undecided="show")

    def outcomes(tree: Path, processes: int) -> list[tuple]:
        jobs = [(settings, c) for c in discover([tree])]
        done = fix_candidates(jobs, write=True, unsafe=False, processes=processes)
        return [(Path(o.path).relative_to(tree), o.applied, o.changed, o.problems, o.error) for o in done]

    serial = outcomes(one, 1)
    assert not spawned
    in_workers = outcomes(two, 2)
    assert spawned == ["spawn"]
    assert in_workers == serial and all(changed for _, _, changed, _, _ in serial)
    for path in sorted(one.iterdir()):
        assert (two / path.name).read_bytes() == path.read_bytes(), path.name


def test_without_a_process_pool_the_work_runs_here_in_order(monkeypatch) -> None:
    """Some runtimes (AWS Lambda, containers without /dev/shm) have no working ``sem_open``: no pool can exist."""
    import concurrent.futures

    def no_sem_open(*args: object, **kwargs: object) -> None:
        raise ImportError("This platform lacks a functioning sem_open implementation")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_sem_open)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    assert parallel.worker_count(50, jobs=4) == 4
    assert list(parallel.map_in_order(str, range(50), jobs=4)) == [str(i) for i in range(50)]


def test_terraform_files_go_to_the_pool_as_one_batch_and_results_keep_discovery_order(tmp_path: Path) -> None:
    """One worker loads the HCL reader: the .tf files are one item, submitted first. A file with nothing to say
    comes back as nothing and is reported with the run's settings, like every other."""
    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.runner import _Check, _checked, kept, project_for

    for index in range(40):
        (tmp_path / f"config-{index:02d}.yaml").write_text(f"key: {index}\n", encoding="utf-8")
    for name in ("a.tf", "m.tf"):
        (tmp_path / name).write_text('resource "null_resource" "x" {}\n', encoding="utf-8")
    flagged_k8s(tmp_path, 2)
    settings = Settings()
    candidates = list(discover([tmp_path], settings))
    project = project_for(settings, [tmp_path], candidates)
    asked: list[list[object]] = []

    def recording(task, items):  # type: ignore[no-untyped-def]
        asked.append(list(items))
        return map(task, items)

    results = _checked(recording, _Check(settings, project), candidates)
    assert asked[0] == [[c for c in candidates if c.kind is FileKind.TERRAFORM]]
    assert len(asked[0][0]) == 2
    expected = [kept(settings, Engine(settings, project).check_candidate(c)) for c in candidates]
    assert list(results) == expected
    assert any(r.findings for r in results)
    assert all(r.settings is settings for r in results)


#: workers that would write forever; the kernel's parent-death signal is switched off (forked workers inherit
#: this module as patched), so only the portable watch can end them when their parent is killed
WRITE_FOREVER = r"""
import os, sys, time
import shmlint.parallel as parallel
parallel._ask_kernel_for_death_signal = lambda: None
parallel.PARALLEL_MIN_FILES = 1

def write_forever(index):
    with open(os.path.join(sys.argv[1], f"{os.getpid()}.pid"), "a") as handle:
        while True:
            handle.write("x")
            handle.flush()
            time.sleep(0.01)

list(parallel.map_in_order(write_forever, range(16), jobs=2))  # two chunks of 8: one per worker
"""


def test_workers_exit_when_their_parent_is_killed_without_the_linux_death_signal(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", WRITE_FOREVER, str(tmp_path)],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.perf_counter() + 60
        while len(list(tmp_path.glob("*.pid"))) < 2:
            assert time.perf_counter() < deadline and process.poll() is None, "the workers never started"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)  # the main process only: its workers become orphans
        process.wait(timeout=30)
        time.sleep(0.5)
        sizes = {p.name: p.stat().st_size for p in tmp_path.glob("*.pid")}
        time.sleep(1.0)
        assert {p.name: p.stat().st_size for p in tmp_path.glob("*.pid")} == sizes, "an orphan is still writing"
        alive = [name for name in sizes if _alive(int(name.removesuffix(".pid")))]
        assert not alive, f"workers outlived their parent: {alive}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")
