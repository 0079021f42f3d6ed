"""Time and memory of the bounded-work inputs the tests check, with their ratios.

The tests (tests/test_bounded_work.py, test_hostile_files.py, ...) hold what is decided: the exit code, the SHM000
"too complex", the message. How long a hostile input takes and how much memory it needs depends on the machine, so
it is measured here, where a figure can be read next to a reference instead of failing a shared CI machine:

    PYTHONPATH=$PWD python3 bench/bounds.py              # every input (a few minutes: the 10 MB shapes)
    PYTHONPATH=$PWD python3 bench/bounds.py --only bomb  # the inputs whose name holds "bomb"

Each file input runs in its own ``python -m shmlint check`` process (wall time, and that process's own peak RSS
read by a small launcher through ``os.wait4``); ``x ref`` is the time over the reference run, the same command on
one flagged pod (start-up and one file). The in-process inputs are the tests' own functions, called with their
parameters and timed. ``bound`` is the time (and memory) the input was once fixed to stay under; the run exits 1
when one is over its bound.
"""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import (  # noqa: E402
    test_accelerate_config,
    test_bounded_work,
    test_config_errors,
    test_hostile_files,
    test_job_containers,
    test_project_evidence,
    test_shell_parser,
    test_triton_repository,
)
from tests.hostile import POD  # noqa: E402
from tests.support import SHMLINT_ENV, default_engine  # noqa: E402

#: run argv[2:], write its own peak RSS (KiB) to argv[1], exit with its code (Linux gives an exec'd child the peak
#: of the process it was forked from, so the launcher is small and the figure is shmlint's own)
PEAK_RSS = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[2:])\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


@dataclass(frozen=True)
class FileInput:
    """Files written by ``write`` into a folder, then ``shmlint check`` on the names it returns."""

    name: str
    write: Callable[[Path], list[str]]
    seconds: float
    mib: int | None = None


@dataclass(frozen=True)
class Measured:
    seconds: float
    mib: float | None
    code: int


def run_check(folder: Path, names: list[str], timeout: float) -> Measured:
    rss = folder.parent / f"{folder.name}.rss"
    command = [sys.executable, "-c", PEAK_RSS, str(rss), sys.executable, "-m", "shmlint", "check", *names]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=folder, env=SHMLINT_ENV, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Measured(time.perf_counter() - started, None, -1)
    seconds = time.perf_counter() - started
    return Measured(seconds, int(rss.read_text()) / 1024, done.returncode)


def _shape(name: str, text: str) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        (folder / name).write_text(text, encoding="utf-8")
        return [name]

    return write


def _next_to_a_good_pod(writer: Callable[[Path], str]) -> Callable[[Path], list[str]]:
    def write(folder: Path) -> list[str]:
        (folder / "good.yaml").write_text(POD)
        return [writer(folder), "good.yaml"]

    return write


def file_inputs() -> Iterator[FileInput]:
    bounded = test_bounded_work
    for shape, (name, text, _) in sorted(bounded.SHAPES.items()):
        yield FileInput(f"shape {shape}", _shape(name, text), 45.0, 400)
    for kind in bounded.BOMBS:
        yield FileInput(f"alias bomb {kind}", lambda folder, kind=kind: bounded.write_bomb(folder, kind), 20.0)
    yield FileInput("fifty megabytes", bounded.write_fifty_megabytes, 20.0)
    yield FileInput("wide documents", bounded.write_wide_documents, 60.0)
    yield FileInput("20,000-digit size", bounded.write_many_digits, 10.0)
    yield FileInput("backtracking configured patterns", bounded.write_backtracking_patterns, 30.0)
    yield FileInput("8 MB flow sequence", bounded.write_eight_megabyte_flow, 60.0)
    for case, (writer, _) in sorted(test_hostile_files.CASES.items()):
        yield FileInput(f"hostile file {case}", _next_to_a_good_pod(writer), 30.0)


#: the tests whose work is timed in-process, with the bound each once asserted
IN_PROCESS: list[tuple[Callable[..., object], float]] = [
    (test_shell_parser.test_long_lines_are_read, 10.0),
    (test_job_containers.test_hostile_files_are_checked, 30.0),
    (test_config_errors.test_an_alias_bomb_under_known_keys_is_reported, 10.0),
    (test_bounded_work.test_flow_work_is_bounded_before_composing, 20.0),
    (test_triton_repository.test_hostile_config_is_read, 1.0),
    (test_accelerate_config.test_a_key_repeated_on_every_line_is_read_from_its_first_yaml_line, 1.0),
    (test_accelerate_config.test_a_key_repeated_in_json_is_read_from_its_last_line, 1.0),
]


#: work timed after its input is written: (name, write the input into a folder, the timed work, its bound)
SET_UP_THEN_TIMED: list[tuple[str, Callable[[Path], object], Callable[[Path], object], float]] = [
    (
        "3,000 modules, one followed",
        test_project_evidence.write_many_modules,
        test_project_evidence.follow_train_py,
        1.0,
    ),
]


def parameters(test: Callable[..., object]) -> Iterator[tuple[str, dict[str, object]]]:
    """Each set of arguments pytest would call ``test`` with (its ``parametrize`` marks; one set without)."""
    marks = [mark for mark in getattr(test, "pytestmark", []) if mark.name == "parametrize"]
    if not marks:
        yield "", {}
        return
    (mark,) = marks
    names = [name.strip() for name in mark.args[0].split(",")] if isinstance(mark.args[0], str) else mark.args[0]
    ids = mark.kwargs.get("ids")
    for index, value in enumerate(mark.args[1]):
        values = getattr(value, "values", None) or ((value,) if len(names) == 1 else value)
        label = ids[index] if isinstance(ids, list) else repr(values[0])[:12]
        yield str(label), dict(zip(names, values, strict=True))


def time_in_process(test: Callable[..., object], arguments: dict[str, object]) -> float:
    wanted = inspect.signature(test).parameters
    with tempfile.TemporaryDirectory(prefix="shmlint-bounds-") as folder:
        fixtures = {"tmp_path": Path(folder), "engine": default_engine()}
        call = {**{name: fixtures[name] for name in wanted if name in fixtures}, **arguments}
        started = time.perf_counter()
        test(**call)
        return time.perf_counter() - started


def report_in_process(name: str, took: float, seconds: float) -> bool:
    """Print one in-process line; True when it is over its bound."""
    print(f"{name[:48]:<48} {took:8.2f} {took / seconds:7.2f} {seconds:>17.0f} s  {'OVER' if took > seconds else 'ok'}")
    return took > seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="only the inputs whose name holds this text")
    options = parser.parse_args()
    over = 0
    with tempfile.TemporaryDirectory(prefix="shmlint-bounds-") as top:
        reference_folder = Path(top) / "reference"
        reference_folder.mkdir()
        (reference_folder / "pod.yaml").write_text(POD)
        reference = run_check(reference_folder, ["pod.yaml"], 60).seconds
        print(f"reference: shmlint check of one flagged pod, {reference:.2f} s")
        print(f"{'input':<48} {'seconds':>8} {'x ref':>7} {'MiB':>6} {'bound':>15}  verdict")
        for index, item in enumerate(file_inputs()):
            if options.only not in item.name:
                continue
            folder = Path(top) / f"input{index}"
            folder.mkdir()
            measured = run_check(folder, item.write(folder), 2 * item.seconds)
            late = measured.code == -1 or measured.seconds > item.seconds
            heavy = item.mib is not None and measured.mib is not None and measured.mib > item.mib
            over += late or heavy
            mib = f"{measured.mib:6.0f}" if measured.mib is not None else "     -"
            bound = f"{item.seconds:.0f} s" + (f", {item.mib} MiB" if item.mib else "")
            verdict = "OVER" if late or heavy else "ok"
            print(
                f"{item.name[:48]:<48} {measured.seconds:8.2f} {measured.seconds / reference:7.1f} {mib} "
                f"{bound:>15}  {verdict}"
            )
    print(f"\n{'in-process (the work of the tests)':<48} {'seconds':>8} {'x bound':>7} {'bound':>19}  verdict")
    for test, seconds in IN_PROCESS:
        for label, arguments in parameters(test):
            name = f"{test.__name__.removeprefix('test_')}[{label}]" if label else test.__name__.removeprefix("test_")
            if options.only not in name:
                continue
            over += report_in_process(name, time_in_process(test, arguments), seconds)
    for name, write, work, seconds in SET_UP_THEN_TIMED:
        if options.only not in name:
            continue
        with tempfile.TemporaryDirectory(prefix="shmlint-bounds-") as folder:
            write(Path(folder))
            started = time.perf_counter()
            work(Path(folder))
            took = time.perf_counter() - started
        over += report_in_process(name, took, seconds)
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
