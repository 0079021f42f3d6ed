"""Fixtures shared by the whole suite: the repository, engines, the real-world corpus, and the command line run
in-process (``invoke``) or as the real entry point in a subprocess (``shmlint_process``)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from shmlint.engine import Engine
from shmlint.settings import Settings
from tests.support import ROOT, corpus_dir, corpus_missing, default_engine, run_shmlint

REQUIRE_CORPUS_ENV = "SHMLINT_REQUIRE_CORPUS"


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> object:
    """``pytest`` runs on every core where pytest-xdist is installed (the ``[test]`` extra has it) and in one
    process where it is not: ``-n auto`` in ``addopts`` would make plain ``pytest`` a usage error without xdist.
    ``-n N`` on the command line (``-n 0`` for one process) wins. Workers steal tests from each other
    (``--dist worksteal``, unless ``--dist`` is given): the minute-long tests that end one worker's share do not
    leave the other idle. A wrapper, so it runs before xdist reads it."""
    worker = hasattr(config, "workerinput") or "PYTEST_XDIST_WORKER" in os.environ  # never a pool in a worker
    if not worker and config.pluginmanager.hasplugin("xdist"):
        if config.getoption("numprocesses", None) is None:
            config.option.numprocesses = "auto"
        if config.getoption("dist", "no") == "no":
            config.option.dist = "worksteal"
    return (yield)


def pytest_report_header() -> str:
    """Say up front whether the corpus tests will run."""
    return f"shmlint corpus: {corpus_missing() or corpus_dir()}"


#: packages of an extra that a test module may import at its top, and how to install each: where one is missing,
#: the modules that import it are skipped with that reason, never a collection error (torch is reached only through
#: the validation harness, podman only as a command: their tests skip or fail by themselves, saying why)
OPTIONAL_PACKAGES = {
    "hypothesis": "the [test] extra",
    "pytest_lsp": "the [test] extra",
    "lsprotocol": "the [lsp] extra",
    "pygls": "the [lsp] extra",
    "kubernetes_validate": "the [test] extra",
    "atheris": "pip install atheris (optional fuzzing)",
    "torch": "the [validation] extra",
}
_MISSING = re.compile(r"No module named '(\w+)|import of (\w+) halted")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A test module that cannot be imported for want of an optional package is a skip saying which and how to
    install it, where pytest would stop the whole run with a collection error."""
    report = yield
    if report.failed and isinstance(collector, pytest.Module):
        found = _MISSING.search(str(report.longrepr))
        package = found and (found.group(1) or found.group(2))
        if package in OPTIONAL_PACKAGES:
            report.outcome = "skipped"
            reason = f"Skipped: {package} is not installed ({OPTIONAL_PACKAGES[package]})"
            report.longrepr = (str(collector.path), None, reason)
    return report


def pytest_sessionstart(session: pytest.Session) -> None:
    """CI sets SHMLINT_REQUIRE_CORPUS=1: there a missing corpus stops the run instead of skipping its tests."""
    reason = corpus_missing()
    if reason and os.environ.get(REQUIRE_CORPUS_ENV) == "1":
        raise pytest.UsageError(f"{REQUIRE_CORPUS_ENV}=1 but {reason}")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


#: what a test that drops to the unprivileged user needs of the copy: to find and read shmlint's modules
NOBODY_READS = "import os, sys; os.setgroups([]); os.setgid(65534); os.setuid(65534); open(sys.argv[1]).close()"


@pytest.fixture(scope="session")
def nobody_pythonpath() -> Iterator[str]:
    """A PYTHONPATH with shmlint's package and rule catalog that the user 'nobody' (uid 65534) can read: the clone
    may sit under a folder only its owner can enter (``mktemp -d``, many home folders), and what a test imports
    after dropping privileges is read as that user. Skips, saying why, when not root or when 'nobody' cannot read
    the copy (a temporary folder it cannot enter)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to drop privileges to 'nobody'")
    folder = Path(tempfile.mkdtemp(prefix="shmlint-nobody-"))
    try:
        for name in ("shmlint", "rules"):
            shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        for path in [folder, *folder.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        probe = subprocess.run(
            [sys.executable, "-c", NOBODY_READS, str(folder / "shmlint" / "cli.py")],
            cwd="/",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or ["no message"])[-1]
            pytest.skip(f"user 'nobody' cannot read a copy of shmlint in {folder}: {why}")
        yield str(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real-world corpus folder (``SHMLINT_CORPUS``, default ``../shared/corpus``); skips where it is absent."""
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    return corpus_dir()


@pytest.fixture(scope="session")
def engine() -> Engine:
    """An engine with the default settings (engines are immutable: one serves every test)."""
    return default_engine()


@pytest.fixture(scope="session")
def make_engine() -> Callable[..., Engine]:
    """``make_engine(prefilter=False, ...)``: an engine with the given settings changed from the ``engine``
    fixture's (the defaults, with undecided findings listed)."""

    def make(**settings: object) -> Engine:
        return Engine(Settings(**{"undecided": "show", **settings}))

    return make


Invoke = Callable[..., Result]


class _EntryPoint:
    """What the ``shmlint`` console script runs (``shmlint.cli.main``: its error handling and exit codes), shaped
    for ``CliRunner.invoke``, which only calls ``.main(args=..., prog_name=...)`` and reads ``.name``."""

    name = "shmlint"

    def main(self, args: list[str], prog_name: str, **_: object) -> None:
        from shmlint.cli import main

        saved = sys.argv
        sys.argv = [prog_name, *args]
        try:
            main()
        finally:
            sys.argv = saved


@pytest.fixture
def invoke() -> Invoke:
    """Run the command line in this process: ``invoke("check", path, input=..., env=..., cwd=...)`` (default: in the
    current folder).

    It goes through the console script's ``main`` (so exit codes and error messages are the user's), without a
    subprocess; ``exit_code``, ``stdout`` and ``stderr`` are what a user would see (stdout is not a terminal, as in
    CI). A crash (main's "internal error", exit 2) fails the test that met it.
    """

    def run(
        *args: str,
        input: str | bytes | None = None,
        env: Mapping[str, str | None] | None = None,
        cwd: Path | None = None,
    ) -> Result:
        with contextlib.chdir(cwd) if cwd else contextlib.nullcontext():
            result = CliRunner().invoke(_EntryPoint(), list(args), input=input, env=env, catch_exceptions=False)  # type: ignore[arg-type]
        assert "internal error" not in result.stderr, result.stderr  # a crash, caught by main's last line of defence
        return result

    return run


ShmlintProcess = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def shmlint_process() -> ShmlintProcess:
    """Run ``python -m shmlint`` (the real entry point) in a subprocess, importing this checkout."""

    def run(
        *args: str,
        input: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        return run_shmlint(*args, cwd=cwd or ROOT, input=input, env=env, timeout=timeout)

    return run


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this checkout, built with the environment's hatchling (a ``[test]`` dependency)."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, f"building the wheel failed:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}"
    (path,) = out.glob("shmlint-*.whl")
    return path
