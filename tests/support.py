"""Where the tests find things: the repository, and the real-world corpus that lives outside it.

Plain functions (not fixtures) because some tests are parametrized at collection time, before fixtures exist;
``conftest.py`` builds its fixtures on them.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from shmlint.engine import Engine
from shmlint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@functools.cache
def default_engine() -> Engine:
    """The engine with default settings but ``undecided: show``, built once (engines are immutable): findings about
    an accelerator whose software's need is not known are listed (as info) rather than only counted, so verdict
    tests see every tier (tests/test_undecided.py holds the default). Tests take the ``engine`` fixture; this is
    for what fixtures cannot reach: collection-time parameters and hypothesis checks."""
    return Engine(Settings(undecided="show"))


CORPUS_ENV = "SHMLINT_CORPUS"
#: where CI lays the shared corpus: a sibling of the checkout
#: how YAML nested too deeply is refused: by shmlint's own bound (``yamlnodes.MAX_DEPTH``), or, from PyYAML 6.0.4
#: on, by its libyaml, which stops at the same depth first with its own words (tests/test_yaml_nesting.py)
NESTING_REFUSED = r"nesting deeper than 1000 levels|exceeded maximum nesting depth"
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"


def corpus_dir() -> Path:
    """The corpus folder named by ``SHMLINT_CORPUS``, else ``../shared/corpus``; it may not exist."""
    configured = os.environ.get(CORPUS_ENV)
    return Path(configured).expanduser().resolve() if configured else DEFAULT_CORPUS


def corpus_missing() -> str | None:
    """Why the corpus cannot be used (the skip reason), or None when it can."""
    folder = corpus_dir()
    if (folder / "INDEX.tsv").is_file():
        return None
    return (
        f"the real-world corpus is not at {folder} (no INDEX.tsv): set {CORPUS_ENV} to its folder, or lay "
        "shared/corpus beside the checkout as CI does"
    )


def corpus_rows(kind: str | None = None) -> list[dict[str, str]]:
    """The corpus index (``local_name``, ``kind``, ``expect``, ...), optionally of one kind; [] without a corpus."""
    if corpus_missing():
        return []
    with (corpus_dir() / "INDEX.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [row for row in rows if kind is None or row["kind"] == kind]


def corpus_params(values: list[Any], ids: Any = None) -> list[Any]:
    """Parameters for a test over corpus items: without the corpus, one parameter that skips with the reason
    (an empty parameter list would hide why nothing ran)."""
    reason = corpus_missing()
    if reason:
        return [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(value, id=ids(value) if callable(ids) else None) for value in values]


def git(cwd: Path, *args: str) -> None:
    """One git command in a test's work tree, quietly; a failure fails the test."""
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def pre_commit_work_tree(tmp_path: Path) -> Path:
    """An initialised git work tree (``tmp_path/work``) for the real pre-commit; without git the test fails."""
    if shutil.which("git") is None:
        pytest.fail("git is needed to run pre-commit")
    work = tmp_path / "work"
    work.mkdir(parents=True, exist_ok=True)
    git(work, "init", "-q")
    git(work, "config", "user.email", "ci@example.com")
    git(work, "config", "user.name", "ci")
    return work


def pre_commit_env(tmp_path: Path) -> dict[str, str]:
    """pre-commit's environment with a cache of the test's own (hook environments are built there)."""
    return {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def try_repo(work: Path, env: dict[str, str], hook: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo`` of this checkout's ``hook`` in ``work`` (files are ``git add``-ed first by the test)."""
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), hook, *args]
    return subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900, check=False)


def namespace_backend(reaper: Any) -> Any:
    """The validation suite's namespace backend, checked before use (torch installed, a private /dev/shm can be
    mounted): a machine that cannot run it fails the test, saying why, rather than skipping it silently."""
    from shmlint.validate.backends import BackendUnavailable, make_backend
    from shmlint.validate.harness import require_torch

    try:
        require_torch()
        backend = make_backend("namespace", reaper)
        backend.check()
    except BackendUnavailable as exc:
        pytest.fail(f"namespace backend cannot run: {exc}", pytrace=False)
    return backend


def script_module(path: Path, name: str) -> ModuleType:
    """A script outside the package (bench/...) imported as the module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run_precision_benchmark(script: str, tmp_path: Path, timeout: float, *args: str) -> dict[str, Any]:
    """``bench/precision/<script>`` over its pinned repositories, and the JSON it writes. Its repositories are used
    only where they are already on disk (it never downloads here): SHMLINT_PRECISION_MIRROR (bare git mirrors) or
    SHMLINT_PRECISION_CACHE (the script's cache); otherwise the test skips, saying how to run it."""
    mirror, cache = os.environ.get("SHMLINT_PRECISION_MIRROR"), os.environ.get("SHMLINT_PRECISION_CACHE")
    if not mirror and not cache:
        pytest.skip(
            f"the repositories of bench/precision/{script} are not on disk: set SHMLINT_PRECISION_MIRROR=/work/.mirror "
            f"or SHMLINT_PRECISION_CACHE=<cache of bench/precision/{script}> to run it"
        )
    command = [sys.executable, str(ROOT / "bench" / "precision" / script), *args, "--cache", cache or str(tmp_path)]
    if mirror:
        command += ["--mirror", mirror]
    command += ["--json", str(tmp_path / "result.json")]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=timeout)
    # exit 0: every finding has a label or verdict written by reading, and every label points into the trees
    assert done.returncode == 0, done.stderr[-2000:] + done.stdout[-3000:]
    result: dict[str, Any] = json.loads((tmp_path / "result.json").read_text())
    return result


#: the environment a test runs ``python -m shmlint`` in: this checkout first on the path, no colour
SHMLINT_ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def run_shmlint(
    *args: str, cwd: Path, timeout: float = 120, env: Mapping[str, str] | None = None, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """``python -m shmlint ARGS`` as a user runs it, text output captured, never raising on the exit code; ``env``
    adds to (or overrides) ``SHMLINT_ENV``."""
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**SHMLINT_ENV, **(env or {})},
        timeout=timeout,
        check=False,
        **kwargs,
    )


#: the address space one shmlint process gets for a hostile input (``run_shmlint_bytes(limit_memory=True)``)
MEMORY_LIMIT = 2 * 1024**3


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_shmlint_bytes(
    *args: str,
    cwd: Path,
    stdin: bytes | None = None,
    timeout: float = 120,
    limit_memory: bool = False,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``run_shmlint`` with bytes in and out, for inputs and outputs that are not UTF-8; ``limit_memory`` runs it
    with ``MEMORY_LIMIT`` of address space, so that unbounded work is a failure rather than a swapping machine."""
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        env={**SHMLINT_ENV, **(env or {})},
        timeout=timeout,
        check=False,
        preexec_fn=_limit_memory if limit_memory else None,
    )


def read_python(code: str, arguments: tuple[str, ...] = (), config: dict | None = None, devices: int | None = 1):  # type: ignore[no-untyped-def]
    """What ``pycode`` reads of Python ``code`` (the file must parse)."""
    from shmlint.project import pycode

    facts = pycode.read(code, arguments, config or {}, devices)
    assert facts is not None
    return facts


def gather_facts(root: Path, launch: Any, devices: int | None = 1, image: str | None = None) -> Any:
    """What the walk into the tree at ``root`` finds for a container's ``launch``."""
    from shmlint.project.follow import gather
    from shmlint.project.index import ProjectIndex, Reader

    return gather(launch, devices, Reader(ProjectIndex.for_paths([root]), {}), image)


def pod_workload(**changes: Any) -> Any:
    """A GPU pod's workload of an image no name decides, with ``changes``: for ``shmlint.need.decide`` alone."""
    from shmlint.model import Evidence, Workload, WorkloadFormat, WorkloadId
    from shmlint.source import Span

    span = Span("p.yaml", 1, 1, 1, 1, 0, 0)
    base = Workload(WorkloadId(WorkloadFormat.KUBERNETES, "Pod", "p"), span, gpu=(Evidence("gpu: 1", span),))
    return base._replace(**{"image": "example.org/unknown:1", **changes})
